"""Writes data.csv for late_rows (run once; the CSV is committed).

4400 readings of 4 sensors, about 50 ms apart (220 s), mostly in order,
some up to 1.5 s behind the rows before them (inside the 2 s bound: not
late). Two rows are far behind: record 4200 (ts 1003000, window
[1000000, 1010000)) and record 4301 (ts 1100000), written when the other
rows are past 1200000. So many rows because the data was made when each
rank's watermark followed its own share and moved once per 1024 rows; the
lateness rule now depends on the file's record order alone.
"""
import random

rng = random.Random(23)
LATE = {4200: 1_003_000, 4301: 1_100_000}
t = 1_000_000
rows = []
for k in range(4400):
    t += rng.choice((0, 25, 50, 75, 100))
    ts = t
    if k % 97 == 13 and k > 0:
        ts = t - rng.choice((500, 1000, 1500))
    ts = LATE.get(k, ts)
    rows.append((rng.choice(("s1", "s2", "s3", "s4")), rng.randint(-50, 99), ts))
with open("data.csv", "w", newline="") as f:
    f.write("sensor,val,ts\n")
    for r in rows:
        f.write("%s,%d,%d\n" % r)
