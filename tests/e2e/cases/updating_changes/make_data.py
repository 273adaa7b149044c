"""Writes data.csv for updating_changes (run once; the CSV is committed).

500 rows of keys 1..5 (BIGINT), in bursts: half the steps are 0 ms, so
that several rows, of one key or several, share a millisecond; every 23rd
row is up to 400 ms behind (inside the 500 ms WATERMARK bound). Records
150, 300 and 420 are 3 to 5 s behind the watermark; record 299 is 501 ms
ahead of the rows around it, so that record 300 counts at W + 1 = the
millisecond of records 301 to 303 (a burst).
"""
import random

rng = random.Random(8)
LATE = {150: -3000, 300: -4000, 420: -5000}
t = 50_000
rows = []
for i in range(500):
    t += rng.choice((0, 0, 0, 0, 5, 20, 60, 130))
    ts = t
    if i % 23 == 7 and not 290 < i < 340:
        ts = t - rng.randint(1, 400)
    if i == 299:
        anchor = t
        ts = t + 501  # W(300) = t + 1
    if i in LATE:
        ts = t + LATE[i]
    if i in (301, 302, 303):
        t = ts = anchor + 2
    rows.append((rng.randint(1, 5), rng.randint(-20, 40), ts))
with open("data.csv", "w", newline="") as f:
    f.write("k,v,ts\n")
    for r in rows:
        f.write("%d,%d,%d\n" % r)
