"""Writes a.csv and b.csv for interval_join (run once; both are committed).

Two streams over about 60 s, rows up to 3 s out of order (the queries'
WATERMARK bound is 2 s, so a few rows are late), keys k0..k5 and NULL (an
empty field), a second key g in 0..1.
"""
import random

rng = random.Random(21)


def write(path, n, col, val):
    rows = []
    t = 1000
    for _ in range(n):
        t += rng.choice((0, 100, 250, 400))
        ts = t - (rng.choice((0, 0, 0, 500, 1500, 3000)) if rng.random() < 0.3 else 0)
        k = "" if rng.random() < 0.08 else f"k{rng.randint(0, 5)}"
        rows.append(f"{k},{rng.randint(0, 1)},{val()},{ts}")
    with open(path, "w", newline="") as f:
        f.write(f"k,g,{col},ts\n" + "\n".join(rows) + "\n")


write("a.csv", 220, "x", lambda: rng.randint(-50, 50))
write("b.csv", 200, "y", lambda: f"{rng.randint(-40, 40) * 0.25:.2f}")
