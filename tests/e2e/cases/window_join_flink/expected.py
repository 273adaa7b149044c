"""Reference for window_join_flink: per 5 s window, the pairs of a and b
rows with equal num (a FULL JOIN: a row of either side that met none goes
on with the other's columns NULL; the window's bounds given by COALESCE),
and the inner pairs with a.id < b.id with the window's start, end and last
millisecond (epoch ms: the harness compiles with --timestamp-format=epoch_ms);
per 10 s window and num of a, COUNT(*). Three queries on standard output,
lines q1, q2, q3 (compared sorted)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import csv_line, read_csv, tumble_start  # noqa: E402


def rows(path):
    return [(int(i), int(n), int(ts)) for i, n, ts in read_csv(path, header=True)]


a, b = rows("a.csv"), rows("b.csv")
wins = sorted({tumble_start(t, 5000) for _, _, t in a + b})
q1, q2 = ["q1,L_Num,L_Id,R_Num,R_Id,window_start,window_end"], ["q2,l,r,ws,we,wt"]
for w in wins:
    la = [x for x in a if tumble_start(x[2], 5000) == w]
    lb = [y for y in b if tumble_start(y[2], 5000) == w]
    for x in la:
        m = [y for y in lb if y[1] == x[1]]
        for y in m:
            q1.append("q1," + csv_line((x[1], x[0], y[1], y[0], w, w + 5000)))
            if x[0] < y[0]:
                q2.append("q2," + csv_line((x[0], y[0], w, w + 5000, w + 4999)))
        if not m:
            q1.append("q1," + csv_line((x[1], x[0], None, None, w, w + 5000)))
    for y in lb:
        if not any(x[1] == y[1] for x in la):
            q1.append("q1," + csv_line((None, None, y[1], y[0], w, w + 5000)))
assert len(q1) > 60 and len(q2) > 10 and any(",,," in line for line in q1)
q3 = ["q3,window_start,num,n,window_time"]
counts = {}
for _, n, t in a:
    counts[(tumble_start(t, 10000), n)] = counts.get((tumble_start(t, 10000), n), 0) + 1
q3 += ["q3," + csv_line((w, n, c, w + 9999)) for (w, n), c in sorted(counts.items())]
print("\n".join(q1 + q2 + q3))
