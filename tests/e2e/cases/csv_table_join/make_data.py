"""Writes orders.csv (the stream, no header) and products.csv (the table,
with a header) for csv_table_join. Run once; both files are committed.

skus 1..12 are in the table; orders also name sku-13 and sku-99, which the
inner join drops. One department, "home, garden", needs CSV quoting both in
the table file and in the output.
"""
import random

rng = random.Random(5)
depts = ["toys", "books", "home, garden", "food"]
with open("products.csv", "w", newline="") as f:
    f.write("sku,dept,price\n")
    for k in range(1, 13):
        dept = depts[k % 4]
        price = rng.randint(1, 39) * 0.25 + 0.5  # 0.75 .. 10.25, never an integer >= 10
        q = '"' if "," in dept else ""
        f.write(f"sku-{k:02d},{q}{dept}{q},{price:.2f}\n")

skus = [f"sku-{k:02d}" for k in range(1, 13)] + ["sku-13", "sku-99"]
ts = 5000
with open("orders.csv", "w", newline="") as f:
    for k in range(200):
        ts += rng.choice((0, 100, 250, 300, 400))
        f.write(f"{k + 1},{rng.choice(skus)},{rng.randint(1, 9)},{ts}\n")
