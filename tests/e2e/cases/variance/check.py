"""Checks the variance case against exact rational arithmetic: the sum of
squared deviations M2 of each group's non-NULL values computed exactly
(fractions), rounded once to a DOUBLE, then divided by n (pop) or n - 1
(samp) and square-rooted as IEEE doubles do (Python's floats are them):
what docs/language.md promises (M2 rounded once). NULL below one value,
for the sample forms below two."""
import math
import os
import sys
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import check_tagged_sets, csv_line, hop_starts, read_csv, tumble_start

here = os.path.dirname(os.path.abspath(__file__))
rows = [(k, int(i) if i else None, float(d) if d else None, int(ts))
        for k, i, d, ts in read_csv(os.path.join(here, "data.csv"), header=True)]


def var(vals, samp, root):
    vals = [Fraction(v) for v in vals if v is not None]
    n = len(vals)
    if n < (2 if samp else 1):
        return None
    mean = sum(vals) / n
    m2 = float(sum((v - mean) ** 2 for v in vals))
    v = m2 / (n - 1 if samp else n)
    return math.sqrt(v) if root else v


g1 = {}
for k, i, d, ts in rows:
    g1.setdefault((tumble_start(ts, 10000) + 10000, k), []).append((i, d))
q1 = ["k,vp,vs,sdp,sd,vd,sdi,WINDOW_END"]
for (end, k), g in sorted(g1.items()):
    ii, dd = [i for i, _ in g], [d for _, d in g]
    q1.append(csv_line((k, var(ii, False, False), var(ii, True, False), var(dd, False, True), var(dd, True, True),
                        var(dd, True, False), var([i for i in ii if i is not None and i > 0], True, True), end)))
g2 = {}
for k, i, d, ts in rows:
    for s in hop_starts(ts, 20000, 10000):
        g2.setdefault(s + 20000, []).append((i, d))
q2 = ["vp,ss,n,WINDOW_END"]
for end, g in sorted(g2.items()):
    q2.append(csv_line((var([d for _, d in g], False, False), var([i for i, _ in g], True, True), len(g), end)))
assert any(",," in line for line in q1)
check_tagged_sets(sys.argv[1], {"q1": q1, "q2": q2})
