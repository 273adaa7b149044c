"""Reference for top_n_where, from docs/language.md (the window Top-N) and
SQL: the inner query numbers every row of its partition (ROW_NUMBER over
the ranking; ties by every output column left to right, then the event
time, NULL after every value unless NULLS FIRST, first with DESC); the
outer WHERE then keeps the rows whose number is within the bound and that
the other conditions hold for (NULL counts as false), their numbers
unchanged. Rows are written window by window, each window's by the
partition's columns, the ranking, then every output column.

By hand: the numbering happens before the filter, so a partition whose
first row has d <= 0 writes rn 2 and 3 without a 1 (asserted below).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import hop_starts, print_result, read_csv, sort_rows, tumble_start

ROWS = [dict(k=k or None, v=None if v == "" else int(v), d=None if d == "" else float(d), ts=int(t))
        for k, v, d, t in read_csv("bids.csv", header=True)]


def numbered(windows, part, rank):
    """windows: {window start: [(output tuple, ts)]}; every row numbered in
    its partition (positions `part`) by `rank`, in output order."""
    out = []
    for ws in sorted(windows):
        count = {}
        for o, _ in sort_rows(windows[ws], [(i, False, None) for i in part] + rank):
            key = tuple(o[i] for i in part)
            count[key] = count.get(key, 0) + 1
            out.append(o + (count[key],))
    return out


def rows_by_window(wins, make):
    w = {}
    for r in ROWS:
        for ws in wins(r["ts"]):
            w.setdefault(ws, []).append((make(r, ws), r["ts"]))
    return w


arg = sys.argv[1] if len(sys.argv) > 1 else ""
if arg.endswith("agg.csv"):
    sums = {}
    for r in ROWS:
        for ws in hop_starts(r["ts"], 20000, 10000):
            g = sums.setdefault((ws, r["k"]), [])
            if r["v"] is not None:
                g.append(r["v"])
    wins = {}
    for (ws, k), vs in sums.items():  # (window_start, window_end, k, total)
        wins.setdefault(ws, []).append(((ws, ws + 20000, k, sum(vs) if vs else None), 0))
    rows = numbered(wins, [], [(3, True, None), (2, False, None)])
    keep = [(we, k, total, n) for ws, we, k, total, n in rows
            if n <= 3 and n > 1 and ((total is not None and total > 600) or (k is not None and k != "a1"))]
    print_result(["window_end", "k", "total", "rownum"], keep)
elif arg.endswith("first.csv"):
    wins = rows_by_window(lambda t: [tumble_start(t, 10000)], lambda r, ws: (r["k"], r["v"], r["d"], ws, ws + 10000))
    rows = numbered(wins, [0], [(2, False, "first")])
    keep = [(k, v, d, ws) for k, v, d, ws, we, n in rows if v is not None and n == 1 and ws >= 20000]
    print_result(["key", "value", "d", "window_start"], keep)
else:
    wins = rows_by_window(lambda t: [tumble_start(t, 10000)], lambda r, ws: (r["k"], r["v"], r["d"], ws + 10000))
    rows = numbered(wins, [0], [(1, True, None)])
    keep = [o for o in rows if o[4] <= 3 and o[2] is not None and o[2] > 0
            and o[1] is not None and not (o[1] % 2 == 0 and o[1] <= 32)]
    firsts = {(o[0], o[3]) for o in keep if o[4] == 1}
    assert any((o[0], o[3]) not in firsts for o in keep), "some partition lost its first row to d > 0"
    print_result(["k", "v", "d", "window_end", "rn"], keep)
