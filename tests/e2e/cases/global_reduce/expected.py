"""Reference for global_reduce: one row per 5 s window over the rows whose
tag is not 'skip'.

By hand: ts = 1000 + 7*i, so the first window [0, 5000) holds i = 0..571
(1000 + 7*571 = 4997) and the last row (i = 4999, ts = 35993) falls in
[35000, 40000): 8 windows ending at 5000, 10000, ..., 40000.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import choice, col_value, print_result, row_hash, sequence, tumble_start, uniform

SEED, LIMIT, SIZE = 2024, 5000, 5000

acc = {}  # window end -> [count, sum, max]
seen = {}  # window end -> rows before the filter
for i in range(LIMIT):
    h = row_hash(SEED, i)
    x = uniform(col_value(h, 0), -1000, 1000)
    tag = choice(col_value(h, 1), ("a", "b", "skip"))
    ts = sequence(i, 1000, 7)
    wend = tumble_start(ts, SIZE) + SIZE
    seen[wend] = seen.get(wend, 0) + 1
    if tag == "skip":
        continue
    a = acc.setdefault(wend, [0, 0, x])
    a[0] += 1
    a[1] += x
    a[2] = max(a[2], x)

assert seen[5000] == 572 and sorted(seen) == list(range(5000, 40001, 5000)), seen
rows = [(n, s, m, wend) for wend, (n, s, m) in sorted(acc.items())]
print_result(["n", "total", "top", "WINDOW_END"], rows)
