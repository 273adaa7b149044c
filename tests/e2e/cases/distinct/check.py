"""Checks the distinct case's standard output against a Python reference.
q1: per hopping window (10 s, every 5 s) and user, with more than 20 rows:
COUNT(DISTINCT url), COUNT(*), COUNT(url), SUM(price), AVG(qty), MAX(price),
COUNT(DISTINCT url) over the rows with price > 10; in window then user
order. q2: per 10 s window: COUNT, SUM and AVG of the distinct qty values,
COUNT(*), MIN(qty). q3, several DISTINCT arguments: per hopping window and
user with more than 6 distinct qty values: COUNT(DISTINCT url),
COUNT(DISTINCT qty), COUNT(*), SUM(qty), MIN(price), AVG(qty),
COUNT(DISTINCT url) over price > 10, SUM(DISTINCT qty) over price < 5,
MAX(DISTINCT price), COUNT(url). q4: per 10 s window, over the rows with
no price or one below 15: COUNT(DISTINCT user), COUNT(DISTINCT url) over
qty > 2, AVG(DISTINCT qty), COUNT(*). NULLs are skipped; an aggregate of
no values is NULL.

SUM(price) beside a DISTINCT aggregate is, as docs/language.md says, the
exact sum of the per-(window, user, url) sums each rounded to a DOUBLE (the
first of the two aggregations writes them as DOUBLEs): computed so here."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import check_tagged_sets, csv_line, hop_starts, read_csv, tumble_start

here = os.path.dirname(os.path.abspath(__file__))
rows = [(u, url or None, int(q) if q else None, float(p) if p else None, int(ts))
        for u, url, q, p, ts in read_csv(os.path.join(here, "clicks.csv"), header=True)]


def nn(vals):
    return [v for v in vals if v is not None]


q1w = {}
for r in rows:
    for s in hop_starts(r[4], 10000, 5000):
        q1w.setdefault((s + 10000, r[0]), []).append(r)
q1 = ["user,urls,n,nu,total,aq,top,big_urls,WINDOW_START,WINDOW_END"]
for (end, user), g in sorted(q1w.items()):
    if len(g) <= 20:
        continue
    per_url = {}
    for r in g:
        per_url.setdefault(r[1], []).append(r[3])
    parts = [math.fsum(nn(p)) for p in per_url.values() if nn(p)]
    qs, prices = nn(r[2] for r in g), nn(r[3] for r in g)
    q1.append(csv_line((user, len(set(nn(r[1] for r in g))), len(g), len(nn(r[1] for r in g)),
                        math.fsum(parts) if parts else None, sum(qs) / len(qs) if qs else None,
                        max(prices) if prices else None,
                        len({r[1] for r in g if r[1] is not None and r[3] is not None and r[3] > 10}),
                        end - 10000, end)))

q2w = {}
for r in rows:
    q2w.setdefault(tumble_start(r[4], 10000), []).append(r)
q2 = ["window_start,window_end,dq,sdq,adq,n,lo"]
for s, g in sorted(q2w.items()):
    d = set(nn(r[2] for r in g))
    q2.append(csv_line((s, s + 10000, len(d), sum(d) if d else None, sum(d) / len(d) if d else None, len(g),
                        min(nn(r[2] for r in g), default=None))))
assert len(q1) > 20 and len(q2) == 6

q3 = ["user,urls,qtys,n,sq,lo,aq,big_urls,cheap_q,top,nu,WINDOW_END"]
for (end, user), g in sorted(q1w.items()):
    qs, prices, urls = nn(r[2] for r in g), nn(r[3] for r in g), nn(r[1] for r in g)
    if len(set(qs)) <= 6:
        continue
    cheap = {r[2] for r in g if r[2] is not None and r[3] is not None and r[3] < 5}
    q3.append(csv_line((user, len(set(urls)), len(set(qs)), len(g), sum(qs) if qs else None,
                        min(prices) if prices else None, sum(qs) / len(qs) if qs else None,
                        len({r[1] for r in g if r[1] is not None and r[3] is not None and r[3] > 10}),
                        sum(cheap) if cheap else None, max(prices) if prices else None, len(urls), end)))

q4 = ["users,urls,adq,n,window_start,window_end"]
for s, g in sorted(q2w.items()):
    g = [r for r in g if r[3] is None or r[3] < 15]
    d = set(nn(r[2] for r in g))
    q4.append(csv_line((len({r[0] for r in g}), len({r[1] for r in g if r[1] is not None and r[2] is not None
                                                     and r[2] > 2}),
                        sum(d) / len(d) if d else None, len(g), s, s + 10000)))
assert 10 < len(q3) <= len(q1w) and len(q4) == len(q2)

check_tagged_sets(sys.argv[1], {"q1": q1, "q2": q2, "q3": q3, "q4": q4})
