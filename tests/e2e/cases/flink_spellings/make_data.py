"""Writes clicks.csv and users.csv for flink_spellings (run once; the files
are committed): 600 clicks 0 to 60 s, some out of order within 900 ms (the
WATERMARK allows 1 s, so no row is late on any number of ranks), some users
and prices empty (NULL), and users only some of whom are in the table."""
import random

rng = random.Random(1206)
USERS = ["u%d" % i for i in range(8)]
URLS = ["/home", "/cart", "/item/7", "/search?q=a,b"]
with open("clicks.csv", "w", newline="") as f:
    f.write("user,url,price,ts\n")
    t = 0
    for i in range(600):
        t += rng.choice((50, 100, 150))
        ts = t - rng.randrange(900) if i % 7 == 3 else t
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
