"""Reference for late_rows: per (10 s window, sensor) COUNT and SUM of the
rows that are not late.

Which rows are late depends on how records are dealt to ranks and on each
rank's watermark (LANGUAGE.md section 2); the data is chosen so that the
answer is the same for 1 to 4 ranks, with a watermark that follows every
row or one that moves once per 1024 rows: exactly records 4200 and 4301.

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
for ranks in (1, 2, 3, 4):
    for chunk in (1, 1024):
        late = late_records(times, BOUND, ranks, end, chunk)
        assert late == {4200, 4301}, (ranks, chunk, sorted(late))
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
