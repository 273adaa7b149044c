"""Writes clicks.csv for the distinct case (run once; the file is
committed): 800 clicks over 40 s from 6 users, in time order but for some
within 900 ms (the WATERMARK allows 1 s: no row is late on any number of
ranks); url, qty and price sometimes empty (NULL)."""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import disordered_times  # noqa: E402

rng = random.Random(1207)
with open("clicks.csv", "w", newline="") as f:
    f.write("user,url,qty,price,ts\n")
    for i, ts in disordered_times(rng, 800, (0, 40, 60, 100), 9, 4):
        url = "" if i % 13 == 6 else "/p%d" % rng.randrange(12)
        qty = "" if i % 17 == 8 else str(rng.randrange(-3, 9))
        price = "" if i % 11 == 2 else "%.2f" % (rng.randrange(1, 2000) / 100)
        f.write("u%d,%s,%s,%s,%d\n" % (rng.randrange(6), url, qty, price, max(ts, 0)))
