"""Reference for lateness_chunks: per (10 s window, sensor) COUNT and SUM
of the rows that are not late, with lateness by the file-order rule:
record i is late when its window ended by W(i), the largest event time of
records 0..i-1 minus the 5 s bound.

By hand: record 1500 has ts 999499000 (2000 s before record 1499's
1001499000); its window [999490000, 999500000) ended long before W(1500) =
1001494000, so it is late, and that window has no row at all.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import late_records, print_result, read_csv, tumble_start

SIZE, BOUND = 10000, 5000
rows = [(s, int(v), int(t)) for s, v, t in read_csv("data.csv", header=True)]
end = lambda t: tumble_start(t, SIZE) + SIZE  # noqa: E731
late = late_records([t for *_, t in rows], BOUND, end)
assert late == {1500} and rows[1500][2] == 999_499_000, late
acc = {}
for i, (sensor, val, ts) in enumerate(rows):
    if i in late:
        continue
    a = acc.setdefault((end(ts), sensor), [0, 0])
    a[0] += 1
    a[1] += val
assert min(acc)[0] == 1_000_010_000
print_result(["sensor", "n", "total", "WINDOW_END"], [(s, n, t, w) for (w, s), (n, t) in sorted(acc.items())])
