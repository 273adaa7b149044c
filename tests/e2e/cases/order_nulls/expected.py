"""Reference for order_nulls, from docs/language.md ("ORDER BY and LIMIT",
the window Top-N): each window's rows sorted by the ORDER BY items, an item
putting NULL after every value unless it says NULLS FIRST (by default NULL
goes first with DESC, last without); ties broken by the group keys (for a
Top-N of rows, the partition's), then every output column left to right
(NULL last), then the event time; the first n of each window, or of each
partition; a Top-N numbers them from 1. Windows in time order.

By hand: key z0's values are all NULL, so in every 10 s window where z0 has
rows its MAX is NULL: last in agg.csv (hi DESC NULLS LAST), first in
aggtop.csv (hi NULLS FIRST), see the asserts below.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import hop_starts, print_result, read_csv, sort_rows, tumble_start

ROWS = [dict(k=k or None, v=None if v == "" else int(v), d=None if d == "" else float(d), ts=int(t))
        for k, v, d, t in read_csv("bids.csv", header=True)]


def topn_rows(wins, make, part, rank, n, number=True):
    """A window's rows: per window, per partition (output positions `part`,
    in their order), the first n by `rank`, numbered."""
    out = []
    for ws in sorted({w for r in ROWS for w in wins(r["ts"])}):
        rows = [(make(r, ws), r["ts"]) for r in ROWS if ws in wins(r["ts"])]
        rows = sort_rows(rows, [(i, False, None) for i in part] + rank)
        count = {}
        for o, _ in rows:
            key = tuple(o[i] for i in part)
            count[key] = count.get(key, 0) + 1
            if count[key] <= n:
                out.append(o + (count[key],) if number else o)
    return out


def aggregates(size):
    """(window start, key, MAX(v), COUNT(*)) per 10 s window and key."""
    groups = {}
    for r in ROWS:
        g = groups.setdefault((tumble_start(r["ts"], size), r["k"]), [])
        g.append(r["v"])
    res = []
    for (ws, k), vs in groups.items():
        vals = [v for v in vs if v is not None]
        res.append((ws, k, max(vals) if vals else None, len(vs)))
    return res


def top_aggs(rows, rank, n):
    """rows: (window start, output tuple) with key position 0 of the group
    keys; per window the first n by rank, ties by the keys then outputs."""
    out = []
    for ws in sorted({w for w, _ in rows}):
        win = sort_rows([(o, 0) for w, o in rows if w == ws], rank + [(key_pos, False, None)])
        out += [o for o, _ in win[:n]]
    return out


tumble = lambda size: (lambda t: [tumble_start(t, size)])
arg = sys.argv[1] if len(sys.argv) > 1 else ""
if arg.endswith("low.csv"):
    rows = topn_rows(lambda t: hop_starts(t, 20000, 10000), lambda r, ws: (r["k"], r["d"], ws), [],
                     [(1, False, "first"), (0, False, "last")], 4)
    print_result(["k", "d", "window_start", "rn"], rows)
elif arg.endswith("lim.csv"):
    rows = topn_rows(tumble(30000), lambda r, ws: (r["k"], r["v"], ws + 30000), [],
                     [(0, False, "first"), (1, True, "last")], 5, number=False)
    print_result(["k", "v", "WINDOW_END"], rows)
elif arg.endswith("aggtop.csv"):
    key_pos = 2
    aggs = [(ws, (ws, ws + 10000, k, hi)) for ws, k, hi, _ in aggregates(10000)]
    rows = top_aggs(aggs, [(3, False, "first"), (2, True, "first")], 3)
    num, last = [], None
    for o in rows:
        num.append(1 if o[0] != last else num[-1] + 1)
        last = o[0]
    rows = [o + (i,) for o, i in zip(rows, num)]
    z0 = {o[0] for o in rows if o[2] == "z0"}
    assert z0 and all(o[3] is None and o[4] == 1 for o in rows if o[2] == "z0")
    print_result(["window_start", "window_end", "k", "hi", "rownum"], rows)
elif arg.endswith("agg.csv"):
    key_pos = 0
    aggs = [(ws, (k, hi, n, ws + 10000)) for ws, k, hi, n in aggregates(10000)]
    rows = top_aggs(aggs, [(1, True, "last"), (0, False, "first")], 4)
    assert all(o[1] is not None for o in rows)  # 12 other keys: z0's NULL is never among the first 4
    print_result(["k", "hi", "n", "WINDOW_END"], rows)
else:
    rows = topn_rows(tumble(10000), lambda r, ws: (r["k"], r["v"], r["d"], ws + 10000), [0],
                     [(1, True, "last")], 3)
    print_result(["k", "v", "d", "window_end", "rn"], rows)
