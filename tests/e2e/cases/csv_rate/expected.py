"""Reference for csv_rate and csv_rate_override: per (10 s window,
sensor) COUNT and SUM; the rate changes when rows are read, not which.

By hand: each 10 s window holds 400 records (25 ms apart).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import print_result, read_csv, tumble_start

acc = {}
for sensor, val, ts in read_csv("data.csv", header=True):
    a = acc.setdefault((tumble_start(int(ts), 10000) + 10000, sensor), [0, 0])
    a[0] += 1
    a[1] += int(val)
assert all(sum(n for (w2, _), (n, _) in acc.items() if w2 == w) == 400 for w, _ in acc)
print_result(["sensor", "n", "total", "WINDOW_END"], [(s, n, t, w) for (w, s), (n, t) in sorted(acc.items())])
