"""Writes r.csv for expressions (run once; the CSV is committed).

36 rows over three 10 s windows, one id each. Edge values are forced:
i = 0, negative i (C's / and % truncate toward zero), |i| near 50000 so
that i * i overflows INT; b beyond the INT range (CAST(b AS INT) wraps) and
near 4e9 so that b * b overflows BIGINT; d on BETWEEN's bounds -1.5 and
2.5; z = 0 (integer division by zero gives 0, DOUBLE division by zero
+-inf; d is never 0, so there is no NaN).
"""
import random

rng = random.Random(41)
names = ["ab", "cd", "efg", "x", "long one"]
EDGE = {  # row -> (i, b, d, z)
    0: (0, 7, 2.5, 0),
    1: (-7, -5_000_000_000, -1.5, 2),
    2: (50_000, 4_000_000_000, 2.75, 0),
    3: (-46_341, 3, -1.75, -3),
    4: (46_340, -4_294_967_297, -0.25, 7),
    5: (1, 9_223_372_036, 0.25, 0),
    6: (3, 2_147_483_648, 1.0, -2),
}
with open("r.csv", "w", newline="") as f:
    f.write("id,name,i,b,d,z,ts\n")
    ts = 2000
    for k in range(36):
        ts += rng.choice((300, 700, 900))
        i = rng.randint(-100, 100)
        b = rng.randint(-10**10, 10**10)
        d = rng.randint(-40, 40) * 0.25 or 0.5
        z = rng.choice((0, 1, 2, 3, -2, 7))
        i, b, d, z = EDGE.get(k, (i, b, d, z))
        f.write(f"{k + 100},{rng.choice(names)},{i},{b},{d:.2f},{z},{ts}\n")
