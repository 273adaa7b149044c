"""Writes a.csv and b.csv for the window_join_flink case (run once; the
files are committed): 60 rows each over 30 s, num from 0 to 7, times in
order (no row late)."""
import random

for name, seed in (("a", 1), ("b", 2)):
    r = random.Random(seed)
    with open(name + ".csv", "w") as f:
        f.write("id,num,ts\n")
        for i in range(60):
            f.write("%d,%d,%d\n" % (i, r.randrange(8), i * 500 + r.randrange(300)))
