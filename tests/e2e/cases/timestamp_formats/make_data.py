"""Writes events.csv for the timestamp_formats case (run once; the file is
committed): 300 events over 40 s from 2026-12-03 09:59:50 UTC, times as
epoch ms, in order but for some within 900 ms; the column at empty (NULL)
now and then, else up to a day before ts."""
import random

rng = random.Random(1208)
base = 1796292000000 - 10000  # 2026-12-03 09:59:50.000 UTC
with open("events.csv", "w", newline="") as f:
    f.write("k,at,ts\n")
    for i in range(300):
        ts = base + i * 133 - (rng.randrange(900) if i % 7 == 3 else 0)
        at = "" if i % 11 == 5 else str(ts - rng.randrange(-5000, 86400000))
        f.write("k%d,%s,%d\n" % (rng.randrange(3), at, ts))
