"""Reference for swa_datagen: recompute the 20000 generated rows from the
formulas of air.h and aggregate them per (10 s window, key).

By hand: row i has ts = 3*i ms, so the window [0, 10000) holds i = 0..3333
(3*3333 = 9999), 3334 rows, and the windows of 20000 rows end at 10000,
20000, ..., 60000 (the last, [50000, 60000), holds i = 16667..19999: 3333).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import col_value, print_result, row_hash, sequence, tumble_start, uniform

SEED, LIMIT, SIZE = 42, 20000, 10000

acc = {}  # (window end, key) -> [sum, count]
for i in range(LIMIT):
    h = row_hash(SEED, i)
    key = uniform(col_value(h, 0), 0, 49)
    value = uniform(col_value(h, 1), 1, 100)
    ts = sequence(i, 0, 3)
    a = acc.setdefault((tumble_start(ts, SIZE) + SIZE, key), [0, 0])
    a[0] += value
    a[1] += 1

counts = {}
for (wend, _), (_, n) in acc.items():
    counts[wend] = counts.get(wend, 0) + n
assert counts[10000] == 3334 and counts[60000] == 3333, counts
assert sorted(counts) == [10000, 20000, 30000, 40000, 50000, 60000]

rows = [(key, s, n, wend) for (wend, key), (s, n) in sorted(acc.items())]
print_result(["key", "total", "n", "WINDOW_END"], rows)
