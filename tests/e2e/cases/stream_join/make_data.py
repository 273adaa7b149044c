"""Writes a.csv and b.csv for stream_join (run once; both are committed).

Two streams in event-time order over about 38 s, joined on k within 10 s
tumbling windows. a has keys k1..k5 and "x,y", b has k2..k6 and "x,y" (a
key that needs CSV quoting): k1 rows of a and k6 rows of b never match.
y is a multiple of 0.25 below 10 (no exponent in any reading).
"""
import random

rng = random.Random(8)


def write(path, keys, n, val):
    ts = 1000
    with open(path, "w", newline="") as f:
        f.write(f"k,{'x' if path == 'a.csv' else 'y'},ts\n")
        for _ in range(n):
            ts += rng.choice((0, 200, 500, 900, 1200))
            k = rng.choice(keys)
            k = '"x,y"' if k == "x,y" else k
            f.write(f"{k},{val()},{ts}\n")


write("a.csv", ["k1", "k2", "k3", "k4", "k5", "x,y"], 60, lambda: rng.randint(-20, 99))
write("b.csv", ["k2", "k3", "k4", "k5", "k6", "x,y"], 50, lambda: f"{rng.randint(-39, 39) * 0.25:.2f}")
