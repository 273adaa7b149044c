"""Reference for csv_cr_bom: Python's csv module (which takes CR, LF and
CRLF as line ends) over the file decoded as utf-8-sig (BOM dropped); per
(5 s window, sensor) COUNT and SUM.

By hand: the first window [0, 5000) holds records 0..39 (ts 1000..4900).
"""
import csv
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import print_result, tumble_start

SIZE = 5000
with open("data.csv", newline="", encoding="utf-8-sig") as f:
    rows = [r for r in csv.reader(f) if r]
assert rows[0] == ["sensor", "val", "ts"] and len(rows) == 301, (rows[0], len(rows))
acc = {}
for sensor, val, ts in rows[1:]:
    a = acc.setdefault((tumble_start(int(ts), SIZE) + SIZE, sensor), [0, 0])
    a[0] += 1
    a[1] += int(val)
assert sum(n for (w, _), (n, _) in acc.items() if w == 5000) == 40
print_result(["sensor", "n", "total", "WINDOW_END"], [(s, n, t, w) for (w, s), (n, t) in sorted(acc.items())])
