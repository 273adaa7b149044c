"""Writes bids.csv for top_n_rows (run once; it is committed).

3000 rows over about 5 minutes in time order: 25 keys (and NULL), a value
with ties and NULLs, a short string; enough rows per key and window that
every rank keeps its own first rows before the exchange.
"""
import random

rng = random.Random(33)
t = 0
with open("bids.csv", "w", newline="") as f:
    f.write("k,v,s,ts\n")
    for _ in range(3000):
        t += rng.choice((0, 50, 100, 150))
        k = "" if rng.random() < 0.04 else f"a{rng.randint(0, 24)}"
        v = "" if rng.random() < 0.05 else str(rng.randint(0, 60))
        s = rng.choice(("web", "app", '"x,y"', ""))
        f.write(f"{k},{v},{s},{t}\n")
