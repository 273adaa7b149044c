"""Checks join_aggregate against Python: the pairs of a and b rows with equal
keys in the same window (a row is in every window its time falls in; NULL
values skipped by the aggregates), aggregated per window and key. q1: per
window, the two keys with the largest SUM(x * y) (a NULL sum first, as
DESC orders NULL), then by key; q2: per 10 s window, over the pairs whose
x is not NULL."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import check_tagged_sets, csv_line, hop_starts, read_csv

here = os.path.dirname(os.path.abspath(__file__))


def load(name):
    return [(int(k), int(v) if v else None, int(ts)) for k, v, ts in read_csv(os.path.join(here, name), header=True)]


A, B = load("a.csv"), load("b.csv")


def pairs(size, adv):
    wins = {}
    for side, rows in ((0, A), (1, B)):
        for k, v, ts in rows:
            for s in hop_starts(ts, size, adv):
                wins.setdefault((s, k), ([], []))[side].append(v)
    return {key: [(x, y) for x in xs for y in ys] for key, (xs, ys) in wins.items() if xs and ys}


def nn(vals):
    return [v for v in vals if v is not None]


q1 = ["k,n,s,lo,ax,dy,WINDOW_START,WINDOW_END"]
per = {}
for (s, k), ps in pairs(10000, 5000).items():
    prods = nn(x * y if x is not None and y is not None else None for x, y in ps)
    xs = nn(x for x, _ in ps)
    ys = nn(y for _, y in ps)
    per.setdefault(s, []).append((k, len(ps), sum(prods) if prods else None, min(ys) if ys else None,
                                  sum(xs) / len(xs) if xs else None, len(set(ys)), s, s + 10000))
for s in sorted(per):
    rows = sorted(per[s], key=lambda r: (r[2] is None, r[2] if r[2] is not None else 0, -r[0]), reverse=True)
    q1 += [csv_line(r) for r in rows[:2]]

q2 = ["window_start,n,m,ny"]
win2 = {}
for (s, k), ps in pairs(10000, 10000).items():
    win2.setdefault(s, []).extend(p for p in ps if p[0] is not None)
for s in sorted(win2):
    ps = win2[s]
    if not ps:
        continue
    m = nn(x + y if y is not None else None for x, y in ps)
    q2.append(csv_line((s, len(ps), max(m) if m else None, len(nn(y for _, y in ps)))))
assert len(q1) > 8 and len(q2) > 2
check_tagged_sets(sys.argv[1], {"q1": q1, "q2": q2})
