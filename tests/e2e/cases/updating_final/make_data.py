"""Writes sales.csv for updating_final (run once; the CSV is committed).

700 sales of items 1..4 in five shops: "north", "Zoë" (non-ASCII), "a,b"
(quoted in CSV), "" (the empty string, written "") and NULL (an empty
field), about 90 ms apart (63 s), every 29th up to 900 ms behind (inside
the 1 s bound); records 350 and 500 are 5 and 15 s behind the watermark.
qty is NULL in about a fifth of the rows, and in all of shop "a,b"'s
item 4 (SUM NULL); prices are multiples of 0.25 (sums exact in any order).
"""
import random

rng = random.Random(12)
SHOPS = ("north", "Zoë", "a,b", '""', "")
LATE = {350: -5000, 500: -15000}
t = 3_000_000
with open("sales.csv", "w", encoding="utf-8", newline="") as f:
    f.write("shop,item,qty,price,ts\n")
    for i in range(700):
        t += rng.choice((0, 40, 90, 140))
        ts = t - (rng.randint(1, 900) if i % 29 == 11 else 0) + LATE.get(i, 0)
        shop, item = rng.choice(SHOPS), rng.randint(1, 4)
        qty = "" if rng.random() < 0.2 or (shop, item) == ("a,b", 4) else str(rng.randint(1, 9))
        q = '"a,b"' if shop == "a,b" else shop
        f.write("%s,%d,%s,%s,%d\n" % (q, item, qty, rng.randint(1, 80) / 4, ts))
