"""Makes data.csv and products.csv of the nulls case (committed; rerun to
remake them): fields left empty (NULL) at random, some quoted empty
strings, and rows whose NOT NULL id is empty (bad rows)."""
import random

rng = random.Random(15)


def maybe(v, p=0.25):
    return "" if rng.random() < p else v


with open("data.csv", "w", newline="") as f:
    f.write("id,k,a,x,s,flag,n,ts\n")
    for i in range(90):
        rid = "" if i in (17, 55) else str(i)
        k = maybe(rng.choice(["p1", "p2", "p3", "zz"]), 0.15)
        a = maybe(str(rng.randint(-2, 9)))
        x = maybe(str(rng.randint(-8, 40) / 4))
        s = rng.choice(["", '""', "ab", "zz", "12", "-7", "x y", "Abc"])
        flag = maybe(rng.choice(["true", "false"]))
        n = maybe(str(rng.randint(-1, 3)))
        f.write(",".join([rid, k, a, x, s, flag, n, str(i * 250)]) + "\n")
with open("products.csv", "w", newline="") as f:
    f.write("k,name,w\n")
    f.write("p1,first,1.5\np2,,2\nzz,last,\n")
