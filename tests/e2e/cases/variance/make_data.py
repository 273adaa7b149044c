"""Writes data.csv for the variance case (run once; the file is committed):
500 rows of keys a..e over 50 s in time order; i an INT, d a DOUBLE near
1e9 (a large mean and a small spread: the textbook formula over rounded
sums would lose every digit), some empty (NULL); key e has one row per
window at most, where the sample forms are NULL."""
import random

rng = random.Random(1211)
with open("data.csv", "w", newline="") as f:
    f.write("k,i,d,ts\n")
    t = 0
    for n in range(500):
        t += 100
        k = rng.choice("abcd") if n % 97 != 50 else "e"
        i = "" if n % 23 == 4 else str(rng.randrange(-20, 40))
        d = "" if n % 19 == 6 else repr(1e9 + rng.randrange(0, 1000) / 8)
        f.write("%s,%s,%s,%d\n" % (k, i, d, t))
