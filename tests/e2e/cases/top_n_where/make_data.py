"""Writes bids.csv for top_n_where (run once; it is committed).

1200 rows over about 2 minutes in time order: 8 keys and NULL, an INT
value with ties and about 6% NULLs, a DOUBLE that is negative about a
third of the time and NULL about 4%.
"""
import random

rng = random.Random(5)
t = 0
with open("bids.csv", "w", newline="") as f:
    f.write("k,v,d,ts\n")
    for _ in range(1200):
        t += rng.choice((0, 50, 100, 150))
        k = "" if rng.random() < 0.05 else f"a{rng.randint(0, 7)}"
        v = "" if rng.random() < 0.06 else str(rng.randint(0, 50))
        d = "" if rng.random() < 0.04 else f"{rng.randint(-100, 200) / 4}"
        f.write(f"{k},{v},{d},{t}\n")
