"""Writes orders.csv and products.csv for the table_join_on case (run once;
the files are committed): 400 orders over 39 s of 12 skus (s10 and s11 not
in the table), a sku or units empty (NULL) now and then; 10 products, one
with no dept and one with no price."""
import random

r = random.Random(5)
with open("orders.csv", "w") as f:
    f.write("sku,units,ts\n")
    for i in range(400):
        sku = "" if i % 23 == 4 else "s%d" % r.randrange(12)
        f.write("%s,%s,%d\n" % (sku, "" if i % 17 == 3 else r.randrange(1, 9), i * 97))
with open("products.csv", "w") as f:
    f.write("sku,dept,price\n")
    for k in range(10):
        f.write("s%d,%s,%s\n" % (k, "" if k == 3 else ["toys", "food", "tools"][k % 3],
                                 "" if k == 5 else "%.1f" % (k * 3.5)))
