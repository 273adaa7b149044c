"""Reference for csv_filter_agg.

By hand: the first window is [1700000000000, 1700000005000); its rows of
category c are (26.25, qty 18), (21.75, qty 3) and (1.00, qty 14), the last
filtered out, so its row is
  c,21,21.75,26.25,24,2,1700000000000,1700000005000
Rows with amount exactly 10.00 (every 50th from the 8th) are filtered out.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import print_result, read_csv, tumble_start

SIZE = 5000
rows = read_csv("data.csv", header=True)
acc = {}  # (window start, category) -> [qty sum, min, max, amount sum, count]
kept = 0
for _id, cat, amount, qty, ts in rows:
    amount, qty, ts = float(amount), int(qty), int(ts)
    if not (amount > 10 and cat != "z"):
        continue
    kept += 1
    a = acc.setdefault((tumble_start(ts, SIZE), cat), [0, amount, amount, 0.0, 0])
    a[0] += qty
    a[1] = min(a[1], amount)
    a[2] = max(a[2], amount)
    a[3] += amount
    a[4] += 1

assert len(rows) == 300 and sum(a[4] for a in acc.values()) == kept
out = [(cat, q, lo, hi, s / n, n, ws, ws + SIZE)
       for (ws, cat), (q, lo, hi, s, n) in sorted(acc.items())]
print_result(["category", "qty_sum", "min_amount", "max_amount", "avg_amount", "n",
              "WINDOW_START", "WINDOW_END"], out)
