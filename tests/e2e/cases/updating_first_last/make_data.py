"""Writes data.csv for updating_first_last (run once; the CSV is committed).

600 readings of 5 sensors about 50 ms apart, some up to 0.5 s out of order
(inside the 1 s bound), and every 53rd one 8 s behind the rows before it
(behind the watermark: an updating query counts it in the next emission,
but FIRST_VALUE still orders it by its own time, so such a row can be a
sensor's first value).
"""
import random

rng = random.Random(11)
t = 1_000_000
rows = []
for i in range(600):
    t += rng.choice((25, 50, 75))
    ts = t - rng.choice((0, 0, 0, 200, 500))
    if i % 53 == 20:
        ts = t - 8_000
    rows.append(("s%d" % rng.randint(1, 5), rng.randint(-20, 80), ts))
with open("data.csv", "w", newline="") as f:
    f.write("sensor,v,ts\n")
    for r in rows:
        f.write("%s,%d,%d\n" % r)
