"""Writes t.csv for agg_types (run once; the CSV is committed).

120 rows over 20 s (four 5 s windows), four VARCHAR keys, one of which
needs CSV quoting ("k,2") and one has an inner space. i (INT) is near
2e9 for key "big" so that its SUM leaves the INT range (SUM of INT is a
BIGINT); b (BIGINT) is near 4e18 for key "big" so that its SUM wraps
around 64 bits; d (DOUBLE) is a multiple of 0.25, so sums are exact in any
order. The seed is one whose sums and averages print without an exponent.
"""
import random
import sys

seed = int(sys.argv[1]) if sys.argv[1:] else 9
rng = random.Random(seed)
keys = ["big", "k,2", "a b", "z"]
with open("t.csv", "w", newline="") as f:
    f.write("key,i,b,d,ts\n")
    ts = 100
    for _ in range(120):
        ts += rng.choice((0, 50, 150, 300))
        k = rng.choice(keys)
        if k == "big":
            i = rng.randint(2_000_000_000, 2_147_483_647)
            b = rng.randint(4 * 10**18, 9 * 10**18)
        else:
            i = rng.randint(-1000, 1000)
            b = rng.randint(-10**12, 10**12)
        d = rng.randint(-200, 200) * 0.25
        q = '"' if "," in k else ""
        f.write(f"{q}{k}{q},{i},{b},{d:.2f},{ts}\n")
