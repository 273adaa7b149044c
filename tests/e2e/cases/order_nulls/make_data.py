"""Writes bids.csv for order_nulls (run once; it is committed).

1500 rows over about 2.5 minutes in time order: 12 keys and NULL, an INT
value with ties and about 8% NULLs, a DOUBLE with about 4% NULLs; key z0's
value is always NULL (its MAX is NULL), so an aggregate's NULL meets the
NULLS FIRST and NULLS LAST of an ORDER BY.
"""
import random

rng = random.Random(71)
t = 0
with open("bids.csv", "w", newline="") as f:
    f.write("k,v,d,ts\n")
    for _ in range(1500):
        t += rng.choice((0, 50, 100, 150))
        k = "" if rng.random() < 0.05 else rng.choice([f"a{i}" for i in range(12)] + ["z0"])
        v = "" if k == "z0" or rng.random() < 0.08 else str(rng.randint(0, 40))
        d = "" if rng.random() < 0.04 else f"{rng.randint(-200, 200) / 8}"
        f.write(f"{k},{v},{d},{t}\n")
