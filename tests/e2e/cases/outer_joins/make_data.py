"""Writes a.csv and b.csv for outer_joins (run once; both are committed).

Two streams in event-time order over about 45 s. Keys k1..k4 and NULL (an
empty field) on both sides, a second key g in 0..1; a has keys b lacks in
some windows and the other way round, so every window has rows of both
sides that match nothing.
"""
import random

rng = random.Random(15)


def write(path, keys, n, col, val):
    ts = 500
    with open(path, "w", newline="") as f:
        f.write(f"k,g,{col},ts\n")
        for _ in range(n):
            ts += rng.choice((0, 300, 700, 1100, 1600))
            k = rng.choice(keys)
            v = "" if rng.random() < 0.1 else val()
            f.write(f"{k},{rng.randint(0, 1)},{v},{ts}\n")


write("a.csv", ["k1", "k2", "k3", "", "k5"], 45, "x", lambda: rng.randint(-9, 40))
write("b.csv", ["k2", "k3", "k4", "", "k6"], 40, "y", lambda: f"{rng.randint(-20, 20) * 0.5:.1f}")
