"""Checks minmax_strings against Python: strings ordered by their UTF-8
bytes; an empty field is NULL (skipped), "" the empty string. q1 per
hopping window (10 s, every 5 s) and key; q2 per 20 s window; q3 per key
session (gap 400 ms): a row joins the sessions its time touches, merging
them. Output in window end, then key order (NULL last)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import check_tagged_sets, csv_line, hop_starts, sessions, tumble_start

here = os.path.dirname(os.path.abspath(__file__))
rows = []
with open(os.path.join(here, "data.csv"), encoding="utf-8") as f:
    for line in f.read().splitlines()[1:]:
        k, w, n, ts = line.split(",")
        rows.append((k, None if w == "" else "" if w == '""' else w, int(n), int(ts)))


def lo(ws):
    ws = [w for w in ws if w is not None]
    return min(ws, key=lambda w: w.encode()) if ws else None


def hi(ws):
    ws = [w for w in ws if w is not None]
    return max(ws, key=lambda w: w.encode()) if ws else None


q1w = {}
for k, w, n, ts in rows:
    for s in hop_starts(ts, 10000, 5000):
        q1w.setdefault((s + 10000, k), []).append((w, n))
q1 = ["k,lo,hi,hi6,nw,WINDOW_END"]
for (end, k), g in sorted(q1w.items()):
    ws = [w for w, _ in g]
    q1.append(csv_line((k, lo(ws), hi(ws), hi(w for w, n in g if n > 6), sum(w is not None for w in ws), end)))

q2w = {}
for k, w, n, ts in rows:
    q2w.setdefault(tumble_start(ts, 20000) + 20000, []).append((k, w))
q2 = ["lo,hi,lk,WINDOW_END"]
for end, g in sorted(q2w.items()):
    q2.append(csv_line((lo(w for _, w in g), hi(w for _, w in g), lo(k for k, _ in g), end)))

q3r = []
for key in sorted({r[0] for r in rows}):
    mine = [r for r in rows if r[0] == key]
    for start, end, idx in sessions([r[3] for r in mine], 400):
        ws = [mine[i][1] for i in idx]
        q3r.append(((end, key.encode()), (key, lo(ws), hi(ws), start, end)))
q3 = ["k,lo,hi,WINDOW_START,WINDOW_END"] + [csv_line(v) for _, v in sorted(q3r)]


def first(vals, last=False):
    """(time, value) pairs: the value of the earliest (latest) time, ties by
    value as MIN (MAX) orders it, NULL values skipped."""
    vals = [(t, v) for t, v in vals if v is not None]
    if not vals:
        return None
    key = lambda tv: (tv[0], tv[1].encode() if isinstance(tv[1], str) else tv[1])
    return (max if last else min)(vals, key=key)[1]


q4w = {}
for k, w, n, ts in rows:
    for s in hop_starts(ts, 10000, 5000):
        q4w.setdefault((s + 10000, k), []).append((ts, w, n))
q4 = ["k,fw,lw,fn,ln,WINDOW_END"]
for (end, k), g in sorted(q4w.items()):
    q4.append(csv_line((k, first((t, w) for t, w, _ in g), first(((t, w) for t, w, _ in g), True),
                        first((t, n) for t, _, n in g), first(((t, n) for t, _, n in g if n < 5), True), end)))
q5r = []
for key in sorted({r[0] for r in rows}):
    mine = [r for r in rows if r[0] == key]
    for start, end, idx in sessions([r[3] for r in mine], 400):
        g = [mine[i] for i in idx]
        q5r.append(((end, key.encode()), (key, first((r[3], r[1]) for r in g), first(((r[3], r[2]) for r in g), True),
                                          end)))
q5 = ["k,fw,ln,WINDOW_END"] + [csv_line(v) for _, v in sorted(q5r)]
assert len(q1) > 40 and len(q3) > 40
check_tagged_sets(sys.argv[1], {"q1": q1, "q2": q2, "q3": q3, "q4": q4, "q5": q5})
