"""Writes items.csv for map_filter (run once; the CSV is committed).

Names include values that need quoting on output (a comma, a double quote,
a leading space) and 'skip', which the WHERE removes; x covers negative
values (C's % keeps the dividend's sign) and all three CASE bands.
"""
import random

rng = random.Random(3)
names = ["plain", "a,b", 'say "hi"', " lead", "skip", "zeta", "Alpha"]
with open("items.csv", "w", newline="") as f:
    f.write("id,name,x,w,ts\n")
    ts = 1000
    for k in range(40):
        ts += rng.choice((0, 10, 500))
        name = rng.choice(names)
        if any(c in name for c in ',"') or name != name.strip():
            name = '"' + name.replace('"', '""') + '"'
        x = rng.randint(-30, 90)
        if k in (30, 31, 32):  # the CASE's bounds
            name, x = "edge", (10, 49, 50)[k - 30]
        w = rng.randint(-19, 19) * 0.25  # |2w| < 10: no exponent in any reading
        f.write(f"{k},{name},{x},{w:.2f},{ts}\n")
