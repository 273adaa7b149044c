"""Writes sales.csv for top_n_row_number (run once; the file is
committed): 1500 sales of 12 items in 3 categories over 60 s, in time
order but for some within 900 ms (the WATERMARK allows 1 s), prices in
cents as DOUBLEs (exact sums), ISO-8601 times."""
import datetime
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import disordered_times  # noqa: E402

rng = random.Random(1212)
E = datetime.datetime(2026, 12, 3, 10, 0, 0, tzinfo=datetime.timezone.utc)
ITEMS = {"i%02d" % i: "cat%d" % (i % 3) for i in range(12)}
with open("sales.csv", "w", newline="") as f:
    f.write("item,category,price,ts\n")
    for n, ms in disordered_times(rng, 1500, (0, 20, 40, 80), 9, 2):
        item = rng.choice(sorted(ITEMS))
        d = E + datetime.timedelta(milliseconds=max(ms, 0))
        f.write("%s,%s,%.2f,%s.%03dZ\n" % (item, ITEMS[item], rng.randrange(100, 5000) / 100,
                                          d.strftime("%Y-%m-%dT%H:%M:%S"), d.microsecond // 1000))
