"""Reference for top_n_rows, from docs/language.md ("Top-N"): per window and
partition, the rows sorted by the ranking (NULL after every value; first
with DESC), ties by every output column left to right and then the event
time; the first n of them, numbered from 1. Rows are written window by
window (in window order), each window's rows by the partition's columns,
the ranking, then every output column (as the collector orders them).

By hand: in [0, 10000) key a0 has the values 38, 7, 54, 56, 19, 56, 21,
25 (no NULL), so its rows ranked 1 and 2 hold 56 and 56 (see the assert
below).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import hop_starts, print_result, read_csv, tumble_start

ROWS = [dict(k=k or None, v=None if v == "" else int(v), s=s or None, ts=int(t))
        for k, v, s, t in read_csv("bids.csv", header=True)]


def asc(v):
    return (v is None, v.encode() if isinstance(v, str) else v)


def desc(v):
    return (v is not None, -v if v is not None else 0)


def topn(wins, make, part, rank, n):
    """make(row, ws) -> output tuple; part, rank: the output positions of
    the partition and (position, descending) of the ranking."""
    out = []
    for ws in sorted({w for r in ROWS for w in wins(r["ts"])}):
        groups = {}
        for r in ROWS:
            if ws in wins(r["ts"]):
                o = make(r, ws)
                groups.setdefault(tuple(o[i] for i in part), []).append((o, r["ts"]))
        for key in sorted(groups, key=lambda g: [asc(v) for v in g]):
            ranked = sorted(groups[key], key=lambda ot: ([desc(ot[0][i]) if d else asc(ot[0][i]) for i, d in rank]
                                                         + [asc(v) for v in ot[0]] + [ot[1]]))
            out += [o + (i + 1,) for i, (o, _) in enumerate(ranked[:n])]
    return out


tumble = lambda size: (lambda t: [tumble_start(t, size)])
if len(sys.argv) > 1 and sys.argv[1].endswith("low.csv"):
    rows = topn(lambda t: hop_starts(t, 20000, 10000), lambda r, ws: (r["k"], r["v"], ws), [], [(1, False)], 2)
    print_result(["k", "v", "window_start", "rn"], rows)
elif len(sys.argv) > 1 and sys.argv[1].endswith("lim.csv"):
    rows = topn(tumble(30000), lambda r, ws: (r["k"], r["v"], ws + 30000), [], [(1, True), (0, False)], 4)
    print_result(["k", "v", "WINDOW_END"], [r[:-1] for r in rows])
elif len(sys.argv) > 1:
    rows = topn(tumble(5000), lambda r, ws: (r["k"], r["v"], r["s"], r["ts"], ws, ws + 5000), [0], [(3, False)], 1)
    print_result(["k", "v", "s", "t", "window_start", "window_end", "rownum"], rows)
else:
    rows = topn(tumble(10000), lambda r, ws: (r["k"], r["v"], r["s"], ws + 10000), [0], [(1, True)], 3)
    a0 = [r[1] for r in rows if r[0] == "a0" and r[3] == 10000]
    assert a0[:2] == [56, 56], a0
    print_result(["k", "v", "s", "window_end", "rn"], rows)
