"""Writes e.csv for proctime (run once; it is committed): 3000 rows, keys
k0..k4 and NULL, values 1..9 with NULLs. No time column: the query's time
is each row's processing time."""
import random

rng = random.Random(3)
with open("e.csv", "w", newline="") as f:
    f.write("k,v\n")
    for _ in range(3000):
        k = "" if rng.random() < 0.05 else f"k{rng.randint(0, 4)}"
        v = "" if rng.random() < 0.05 else str(rng.randint(1, 9))
        f.write(f"{k},{v}\n")
