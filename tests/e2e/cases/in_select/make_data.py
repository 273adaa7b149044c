"""Makes orders.csv, vip.csv and skus.csv of the in_select case (committed;
rerun to remake them): fields left empty (NULL) at random in the stream and
in both tables, prices that are some table costs, and keys the tables do not
hold."""
import random

rng = random.Random(23)


def maybe(v, p=0.2):
    return "" if rng.random() < p else v


with open("orders.csv", "w", newline="") as f:
    f.write("id,cust,sku,qty,price,ts\n")
    for i in range(160):
        cust = maybe(str(rng.randint(1, 9)))
        sku = maybe(rng.choice(["a1", "a2", "b1", "b2", "c1", "zz"]), 0.12)
        qty = maybe(str(rng.randint(-2, 7)))
        price = maybe(str(rng.choice([1.5, 2.25, 4, 7.75, 9.5, 12])))
        f.write(",".join([str(i), cust, sku, qty, price, str(1000 + i * 280)]) + "\n")
with open("vip.csv", "w", newline="") as f:
    f.write("cust,tier,since\n")
    f.write("1,gold,2019\n2,gold,\n3,,2021\n5,iron,2020\n7,gold,2018\n8,iron,\n")
with open("skus.csv", "w", newline="") as f:
    f.write("sku,dept,cost\n")
    f.write("a1,food,1.5\na2,food,\nb1,toys,7.75\nb2,void,9.5\nc1,,4\n")
