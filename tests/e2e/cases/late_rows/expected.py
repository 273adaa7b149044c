"""Reference for late_rows: per (10 s window, sensor) COUNT and SUM of the
rows that are not late.

Record i is late when its window ended by W(i), the largest event time of
records 0..i-1 minus the 2 s bound (docs/guarantees.md): exactly records
4200 and 4301, whatever the number of ranks.

By hand: record 4200 is "s4,5,1003000" (line 4202), read when rows are at
ts 1209700, long after its window [1000000, 1010000) closed; without it,
that window's s4 row would count one more reading and 5 more.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import late_records, print_result, read_csv, tumble_start

SIZE, BOUND = 10000, 2000
rows = [(s, int(v), int(t)) for s, v, t in read_csv("data.csv", header=True)]
times = [t for _, _, t in rows]
end = lambda t: tumble_start(t, SIZE) + SIZE  # noqa: E731
late = late_records(times, BOUND, end)
assert late == {4200, 4301}, sorted(late)
# Rows out of order, but within the bound.
top, behind = times[0], 0
for t in times[1:]:
    behind += t < top and t >= top - 1500
    top = max(top, t)
assert behind > 40, behind
assert rows[4200] == ("s4", 5, 1003000)

acc = {}  # (window end, sensor) -> [count, sum]
for i, (sensor, val, ts) in enumerate(rows):
    if i in (4200, 4301):
        continue
    a = acc.setdefault((end(ts), sensor), [0, 0])
    a[0] += 1
    a[1] += val
out = [(s, n, t, wend) for (wend, s), (n, t) in sorted(acc.items())]
print_result(["sensor", "n", "total", "WINDOW_END"], out)
