"""Checks two_selects' standard output: every line starts with q1, or q2,;
the lines of each query, in order, with the tag removed, are exactly that
query's result (computed here); the lines of the two queries may interleave
in any order (each window's rows are written as it closes)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import check_tagged, csv_line, read_csv, tumble_start

rows = [(int(d), int(f), int(t)) for d, f, t in read_csv("trips.csv", header=True)]
q1 = {}
for d, f, t in rows:
    k = (tumble_start(t, 10000) + 10000, d)
    q1[k] = q1.get(k, 0) + 1
want1 = ["driver,n,WINDOW_END"] + [csv_line((d, n, w)) for (w, d), n in sorted(q1.items())]
q2 = {}
for d, f, t in rows:
    if f > 3:
        q2.setdefault(tumble_start(t, 20000) + 20000, []).append(f)
want2 = ["total,top,WINDOW_END"] + [csv_line((sum(v), max(v), w)) for w, v in sorted(q2.items())]

check_tagged(sys.argv[1], {"q1": want1, "q2": want2})
