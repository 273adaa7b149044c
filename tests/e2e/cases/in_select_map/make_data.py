"""Makes ev.csv and t.csv of the in_select_map case (committed; rerun to
remake them): NULLs at random in the stream, NULLs in the table's columns
but its key, table strings longer than the stream's column, scores that
equal some integers."""
import random

rng = random.Random(31)


def maybe(v, p=0.2):
    return "" if rng.random() < p else v


with open("ev.csv", "w", newline="") as f:
    f.write("id,k,name,x,flag,ts\n")
    for i in range(120):
        k = maybe(str(rng.randint(-1, 9)))
        name = maybe(rng.choice(["ann", "ANN", "bob", "BOB", "carl", "dee", "eve", ""]))
        x = maybe(str(rng.choice([0.5, 1, 2, 2.5, 3, 4.25, 7, -0.0])))
        flag = maybe(rng.choice(["true", "false"]))
        f.write(",".join([str(i), k, name, x, flag, str(i * 100)]) + "\n")
with open("t.csv", "w", newline="") as f:
    f.write("k,name,score,n,on\n")
    f.write("1,ann,2.5,3,true\n2,bob,2,,false\n3,,0.5,1,true\n4,carolina,,4,\n"
            "5,dee,7,2,false\n7,eve,4.25,,true\n8,Bob,0,6,true\n")
