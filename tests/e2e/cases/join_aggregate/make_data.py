"""Writes a.csv and b.csv for join_aggregate (run once; the files are
committed): 300 rows each over about 30 s, in time order (no row is late),
keys 0 to 4 (5 only in a: never matched), some x and y empty (NULL)."""
import random

rng = random.Random(1210)
for name, col, keys in (("a", "x", 6), ("b", "y", 5)):
    with open(name + ".csv", "w", newline="") as f:
        f.write("k,%s,ts\n" % col)
        t = 0
        for i in range(300):
            t += rng.choice((0, 50, 100, 200))
            v = "" if i % 17 == 3 else str(rng.randrange(-5, 10))
            f.write("%d,%s,%d\n" % (rng.randrange(keys), v, t))
