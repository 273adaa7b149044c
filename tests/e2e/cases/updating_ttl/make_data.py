"""Writes data.csv for updating_ttl (run once; the CSV is committed).

3000 readings of 400 devices, about 120 ms apart (6 minutes), some up to
0.8 s out of order (inside the 1 s bound) and every 211th one 20 s behind
the rows before it (behind the watermark: an updating query counts it in
the next emission). Devices 0-99 report all the time; devices 100-399 in
bursts: a device of a burst is silent for minutes between them, longer
than the query's 30 s state_ttl, so its state is dropped and begins anew.
"""
import random

rng = random.Random(7)
t = 1_000_000
rows = []
for i in range(3000):
    t += rng.choice((60, 120, 180))
    ts = t
    if i % 37 == 5:
        ts = t - rng.choice((200, 500, 800))
    if i % 211 == 17:
        ts = t - 20_000
    if rng.random() < 0.4:
        dev = rng.randint(0, 99)
    else:
        burst = (t // 60_000) % 3  # which third of the bursty devices reports this minute
        dev = 100 + burst * 100 + rng.randint(0, 99)
    rows.append((dev, rng.randint(1, 50), ts))
with open("data.csv", "w", newline="") as f:
    f.write("dev,v,ts\n")
    for r in rows:
        f.write("%d,%d,%d\n" % r)
