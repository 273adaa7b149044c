"""Writes data.csv for lateness_chunks (run once; the CSV is committed).

2000 readings of 3 sensors, one a second, in order, but record 1500 is
2000 s behind the one before it, in a 10 s window no other row is in. When
each rank's watermark followed its own share and moved once per 1024 rows,
that row was late on 1 rank (its watermark had moved at row 1024) and on
time on 2 and 3 (their shares were below 1024 rows), where it wrote an
extra window: lateness depended on the rank count.
"""
import random

rng = random.Random(11)
rows = []
for i in range(2000):
    ts = 1_000_000_000 + 1000 * i
    if i == 1500:
        ts = rows[-1][2] - 2_000_000
    rows.append((rng.choice(("s1", "s2", "s3")), rng.randint(0, 50), ts))
with open("data.csv", "w", newline="") as f:
    f.write("sensor,val,ts\n")
    for r in rows:
        f.write("%s,%d,%d\n" % r)
