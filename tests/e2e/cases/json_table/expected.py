"""Reference for json_table: csv_table_join's join, its table read here
from products.json with Python's json module (a line whose dept is not a
string is a bad row, not a product)."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import print_result, read_csv, tumble_start  # noqa: E402

SIZE = 10000
products = {}
for line in open("products.json", encoding="utf-8"):
    o = json.loads(line)
    if isinstance(o["dept"], str) and isinstance(o["sku"], str):
        products[o["sku"]] = (o["dept"], float(o["price"]))
assert len(products) == 12
acc = {}
for _oid, sku, units, ts in read_csv("orders.csv"):
    if sku not in products:
        continue
    dept, price = products[sku]
    a = acc.setdefault((tumble_start(int(ts), SIZE) + SIZE, dept), [0, 0, price])
    a[0] += 1
    a[1] += int(units)
    a[2] = max(a[2], price)
out = [(dept, n, u, p, wend) for (wend, dept), (n, u, p) in
       sorted(acc.items(), key=lambda kv: (kv[0][0], kv[0][1].encode()))]
print_result(["dept", "n", "units", "top_price", "WINDOW_END"], out)
