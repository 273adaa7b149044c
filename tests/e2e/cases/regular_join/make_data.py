"""Writes a.csv and b.csv for regular_join and regular_join_ttl (run once;
both are committed, and copied into regular_join_ttl).

Two streams over about 50 s, keys k0..k3 and NULL (an empty field), so a
key matches dozens of rows of the other side; a second column g in 0..1.
A third of the rows are moved back in time by 0.5 to 20 s: the queries'
WATERMARK bound is 2 s, so many rows are behind their file's watermark
(a regular join keeps and joins them all; with a state_ttl they are late).
"""
import random

rng = random.Random(16)


def write(path, n, col, val):
    rows = []
    t = 1000
    for _ in range(n):
        t += rng.choice((0, 100, 250, 400))
        ts = t - (rng.choice((500, 1500, 3000, 6000, 20000)) if rng.random() < 0.33 else 0)
        k = "" if rng.random() < 0.08 else f"k{rng.randint(0, 3)}"
        rows.append(f"{k},{rng.randint(0, 1)},{val()},{max(ts, 0)}")
    with open(path, "w", newline="") as f:
        f.write(f"k,g,{col},ts\n" + "\n".join(rows) + "\n")


write("a.csv", 160, "x", lambda: rng.randint(-50, 50))
write("b.csv", 140, "y", lambda: f"{rng.randint(-40, 40) * 0.25:.2f}")
