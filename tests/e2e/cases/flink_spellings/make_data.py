"""Writes clicks.csv and users.csv for flink_spellings (run once; the files
are committed): 600 clicks 0 to 60 s, some out of order within 900 ms (the
WATERMARK allows 1 s, so no row is late on any number of ranks), some users
and prices empty (NULL), and users only some of whom are in the table."""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import disordered_times  # noqa: E402

rng = random.Random(1206)
USERS = ["u%d" % i for i in range(8)]
URLS = ["/home", "/cart", "/item/7", "/search?q=a,b"]
with open("clicks.csv", "w", newline="") as f:
    f.write("user,url,price,ts\n")
    for i, ts in disordered_times(rng, 600, (50, 100, 150), 7, 3):
        user = "" if i % 23 == 5 else rng.choice(USERS)
        price = "" if i % 11 == 2 else "%.2f" % (rng.randrange(1, 2000) / 100)
        url = rng.choice(URLS)
        url = '"%s"' % url if "," in url else url
        f.write("%s,%s,%s,%d\n" % (user, url, price, ts))
with open("users.csv", "w", newline="") as f:
    f.write("id,name\n")
    for i in range(0, 8, 2):
        f.write("u%d,name %d\n" % (i, i))
    f.write("u9,nobody\n")
