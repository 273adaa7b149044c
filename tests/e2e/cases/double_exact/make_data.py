"""Makes data.csv for double_exact (committed; run to regenerate).

Per key, values whose sum in floating point depends on the order of the
additions (1e15 + 0.1 - 1e15 is 0.125 left to right, 0.1 exactly), spread
over many rows so that every rank holds some of each window; a key with a
NaN, one with both infinities, one with +inf; zeros of both signs; and a
DOUBLE group key column g with -0.0, 0.0, NaN and ordinary values.
"""
import random

rng = random.Random(7)
vals = [1e15, 0.1, -1e15, 0.3, 0.2, 1e-3, -0.7, 2.5e10, -2.5e10, 1.0 / 3, 123.456]
lines = ["k,v,g,ts"]
ts = 0
gs = ["0.0", "-0.0", "nan", "NaN", "1.5", "-2.25", "0.1"]
for i in range(3000):
    ts += rng.choice((3, 7, 11))
    k = "k%d" % rng.randrange(4)
    v = repr(rng.choice(vals) * rng.choice((1, 1, 1, -1)))
    if i % 500 == 17:
        k, v = "nan", "nan"
    if i % 700 == 5:
        k, v = "inf", "inf"
    if i % 900 == 9:
        k, v = "both", ("inf" if i % 1800 == 9 else "-inf")
    if i % 300 == 1:
        v = "-0.0" if i % 600 == 1 else "0.0"
    lines.append("%s,%s,%s,%d" % (k, v, rng.choice(gs), ts))
with open("data.csv", "w") as f:
    f.write("\n".join(lines) + "\n")
