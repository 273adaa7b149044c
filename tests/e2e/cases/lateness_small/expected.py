"""Reference for lateness_small: per (10 s window, sensor) COUNT and SUM of
the rows that are not late, record i being late when its window ended by
W(i), the largest event time of records 0..i-1 (no WATERMARK: bound 0).

By hand: record 15 (s2, 4, ts 89000) is late: its window ends at 90000 <=
W(15) = 114000. Without it, [80000, 90000) has no row; [100000, 110000)
holds s1: 3 7 2 4 9 (n 5, total 25) and s2: 5 1 8 6 2 (5, 22).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import late_records, print_result, read_csv, tumble_start

SIZE = 10000
rows = [(s, int(v), int(t)) for s, v, t in read_csv("data.csv", header=True)]
end = lambda t: tumble_start(t, SIZE) + SIZE  # noqa: E731
late = late_records([t for *_, t in rows], 0, end)
assert late == {15}, late
acc = {}
for i, (sensor, val, ts) in enumerate(rows):
    if i not in late:
        a = acc.setdefault((end(ts), sensor), [0, 0])
        a[0] += 1
        a[1] += val
assert acc[(110000, "s1")] == [5, 25] and acc[(110000, "s2")] == [5, 22], acc
print_result(["sensor", "n", "total", "WINDOW_END"], [(s, n, t, w) for (w, s), (n, t) in sorted(acc.items())])
