"""Reference for csv_table_join: a dict lookup per order, then per
(10 s window, dept) aggregates, rows ordered by window end then dept bytes.

By hand: the first window [0, 10000) holds 25 orders, 4 of them for
sku-13/sku-99 (dropped); its "home, garden" orders are sku-10 x8, sku-06 x4,
sku-06 x7 (prices 6.50, 4.50), so its row is "home, garden",3,19,6.5,10000,
and the counts of its four rows add up to 21. Departments sort bytewise:
"books" < "food" < "home, garden" < "toys".
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import print_result, read_csv, tumble_start

SIZE = 10000
products = {sku: (dept, float(price)) for sku, dept, price in read_csv("products.csv", header=True)}
acc = {}  # (window end, dept) -> [count, units, max price]
dropped = 0
for _oid, sku, units, ts in read_csv("orders.csv"):
    if sku not in products:
        dropped += 1
        continue
    dept, price = products[sku]
    a = acc.setdefault((tumble_start(int(ts), SIZE) + SIZE, dept), [0, 0, price])
    a[0] += 1
    a[1] += int(units)
    a[2] = max(a[2], price)

assert dropped > 0 and len(products) == 12
out = [(dept, n, u, p, wend) for (wend, dept), (n, u, p) in
       sorted(acc.items(), key=lambda kv: (kv[0][0], kv[0][1].encode()))]
print_result(["dept", "n", "units", "top_price", "WINDOW_END"], out)
