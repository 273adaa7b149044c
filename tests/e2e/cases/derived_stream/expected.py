"""Reference for derived_stream: recompute the 6000 generated rows, sum v
per (10 s window, key), then per window count the keys seen, and take the
largest and the total of their sums.

By hand: ts = 500 + 7*i, so the window [0, 10000) holds i = 0..1357
(500 + 7*1357 = 9999), 1358 rows; the last row (i = 5999, ts 42493) is in
[40000, 50000), which holds only 357 rows: five windows. With 300 keys and
about 1430 rows in a full window, a few keys are missing from each, so
nkeys is just under 300 there, and near 200 in the last.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import col_value, print_result, row_hash, sequence, tumble_start, uniform

SEED, LIMIT, SIZE = 31, 6000, 10000
per_key = {}  # (window end, key) -> [sum, latest ts]
rows_in = {}
for i in range(LIMIT):
    h = row_hash(SEED, i)
    key = uniform(col_value(h, 0), 0, 299)
    v = uniform(col_value(h, 1), 1, 100)
    ts = sequence(i, 500, 7)
    wend = tumble_start(ts, SIZE) + SIZE
    rows_in[wend] = rows_in.get(wend, 0) + 1
    a = per_key.setdefault((wend, key), [0, ts])
    a[0] += v
    a[1] = max(a[1], ts)

assert rows_in[10000] == 1358 and rows_in[50000] == 357 and sorted(rows_in) == [10000, 20000, 30000, 40000, 50000]
acc = {}  # window end of the derived row's ts -> [count, max, sum]
for (wend, _key), (total, ts) in per_key.items():
    w2 = tumble_start(ts, SIZE) + SIZE
    assert w2 == wend
    a = acc.setdefault(w2, [0, total, 0])
    a[0] += 1
    a[1] = max(a[1], total)
    a[2] += total
assert all(250 < a[0] < 300 for w, a in acc.items() if w < 50000), acc
out = [(n, m, s, wend) for wend, (n, m, s) in sorted(acc.items())]
print_result(["nkeys", "top", "all_v", "WINDOW_END"], out)
