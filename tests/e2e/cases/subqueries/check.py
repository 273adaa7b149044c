"""Checks subqueries' standard output against its three queries computed
here from the generated rows: every line is tagged q1, q2 or q3 (the
statements, not their WITH queries and subqueries), and each query's lines,
tag removed and in order, are exactly its result."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import check_tagged, col_value, csv_line, row_hash, sequence, tumble_start, uniform

SEED, LIMIT, SIZE = 41, 6000, 10000
rows = []
for i in range(LIMIT):
    h = row_hash(SEED, i)
    rows.append((uniform(col_value(h, 0), 0, 49), uniform(col_value(h, 1), 1, 100), sequence(i, 500, 7)))


def wend(ts):
    return tumble_start(ts, SIZE) + SIZE


# q1: SUM(2v), COUNT per (window, key) over v > 60
q1 = {}
for k, v, ts in rows:
    if v > 60:
        a = q1.setdefault((wend(ts), k), [0, 0])
        a[0] += 2 * v
        a[1] += 1
want1 = ["key,sw,n,WINDOW_END"] + [csv_line((k, s, n, w)) for (w, k), (s, n) in sorted(q1.items())]

# q2: per-key sums per window (a derived row's time is its latest row's,
# in the same window), those above 300 counted, their max and sum
per = {}
for k, v, ts in rows:
    a = per.setdefault((wend(ts), k), [0, ts])
    a[0] += v
    a[1] = max(a[1], ts)
q2 = {}
for (w, k), (total, ts) in per.items():
    assert wend(ts) == w
    if total > 300:
        a = q2.setdefault(w, [0, total, 0])
        a[0] += 1
        a[1] = max(a[1], total)
        a[2] += total
want2 = ["nkeys,top,all_v,WINDOW_END"] + [csv_line((n, m, s, w)) for w, (n, m, s) in sorted(q2.items())]
assert len(want2) > 3, want2

# q3: counts of v <= 50 and of v > 50 per (window, key), joined on key
lo, hi = {}, {}
for k, v, ts in rows:
    d = lo if v <= 50 else hi
    d[(wend(ts), k)] = d.get((wend(ts), k), 0) + 1
want3 = ["key,n,m,WINDOW_END"] + [csv_line((k, lo[(w, k)], hi[(w, k)], w)) for (w, k) in sorted(lo) if (w, k) in hi]

check_tagged(sys.argv[1], {"q1": want1, "q2": want2, "q3": want3})
