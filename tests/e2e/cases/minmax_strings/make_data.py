"""Writes data.csv for minmax_strings (run once; the file is committed):
600 rows of 5 keys over 60 s, in time order but for some within 900 ms
(the WATERMARK allows 1 s), words that order differently by bytes than by
letters (upper case before lower, bytes above 0x7f last, a prefix before
its extensions), the empty string (quoted) and NULL (an empty field)."""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import disordered_times  # noqa: E402

rng = random.Random(1209)
WORDS = ["apple", "Apple", "app", "apples", "zebra", "Zebra", "\u00e9t\u00e9", "\u65e5\u672c", "a b", "~x"]
with open("data.csv", "w", newline="", encoding="utf-8") as f:
    f.write("k,w,n,ts\n")
    for i, ts in disordered_times(rng, 600, (0, 50, 100, 150, 200), 8, 3):
        ts = max(0, ts)
        w = rng.choice(WORDS)
        if i % 29 == 7:
            w = '""'
        elif i % 13 == 4:
            w = ""
        f.write("k%d,%s,%d,%d\n" % (rng.randrange(5), w, rng.randrange(10), ts))
