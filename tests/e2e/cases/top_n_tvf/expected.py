"""Reference for top_n_tvf, from docs/language.md (the window Top-N) and
Flink's window TVFs: the ranked query's * is the stream's columns, then
window_start, window_end and window_time (window_end - 1 ms). Per window
and partition, the rows (those the ranked query's WHERE keeps) sorted by
the ranking (NULL after every value, first with DESC, unless NULLS FIRST or
LAST), ties by every column the outer query picks left to right and then
the event time; each numbered from 1; the first n kept, then the
conditions beside the bound drop some (their numbers unchanged). Rows are
written window by window, each window's by the partition's columns, then
as ranked.

By hand (awk over bids.csv): in [0, 10000) key a0 has the values 7, 19,
21, 25, 38, 54, 56, 56 (no NULL), so the first query's a0 rows of that
window are 56, 56 and 54 (asserted below).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import hop_starts, order_cmp, print_result, read_csv, sort_rows, tumble_start

BIDS = [dict(k=k or None, v=None if v == "" else int(v), s=s or None, ts=int(t))
        for k, v, s, t in read_csv("bids.csv", header=True)]


def top_n(rows, wins, size, pick, part, rank, n, keep=lambda o, rn: True):
    """rows: dicts with ts; wins(ts): the window starts holding it; pick(r,
    ws, we, wt): the picked columns; part: their positions forming the
    partition; rank: (position, desc, nulls) items; keep: the conditions
    beside the bound. The picked columns with the number after them."""
    import functools
    windows = {}
    for r in rows:
        for ws in wins(r["ts"]):
            windows.setdefault(ws, []).append(r)
    out = []
    for ws in sorted(windows):
        parts = {}
        for r in windows[ws]:
            o = pick(r, ws, ws + size, ws + size - 1)
            parts.setdefault(tuple(o[i] for i in part), []).append((o, r["ts"]))

        def pcmp(a, b):
            for x, y in zip(a, b):
                c = order_cmp(x, y)
                if c:
                    return c
            return 0
        for key in sorted(parts, key=functools.cmp_to_key(pcmp)):
            ranked = sort_rows(parts[key], rank)
            for i, (o, _) in enumerate(ranked[:n]):
                if keep(o, i + 1):
                    out.append(o + (i + 1,))
    return out


def tumble(size):
    return lambda t: [tumble_start(t, size)]


arg = sys.argv[1] if len(sys.argv) > 1 else ""
if arg.endswith("hop.csv"):
    rows = top_n(BIDS, lambda t: hop_starts(t, 20000, 10000), 20000,
                 lambda r, ws, we, wt: (r["k"], r["v"], wt), [], [(1, False, None)], 2,
                 lambda o, rn: o[2] >= 29999)
    print_result(["k", "v", "WINDOW_TIME", "rownum"], rows)
elif arg.endswith("dedup.csv"):
    rows = top_n([r for r in BIDS if r["s"] is not None and r["s"] != "web"], tumble(5000), 5000,
                 lambda r, ws, we, wt: (r["k"], r["v"], r["s"], r["ts"], ws, we, wt), [0], [(3, False, None)], 1)
    print_result(["k", "v", "s", "ts", "window_start", "window_end", "window_time", "rownum"], rows)
elif arg.endswith("cond.csv"):
    rows = top_n([r for r in BIDS if r["k"] is not None], tumble(10000), 10000,
                 lambda r, ws, we, wt: (r["k"], r["v"], r["s"], r["ts"], ws, we, wt), [0], [(1, True, "last")], 3,
                 lambda o, rn: o[1] is not None and o[1] > 20 and o[2] is not None)
    print_result(["k", "v", "s", "ts", "window_start", "window_end", "window_time", "rownum"], rows)
elif arg.endswith("derived.csv"):
    d = [dict(k=r["k"], v2=r["v"] * 2, ts=r["ts"]) for r in BIDS if r["v"] is not None]
    rows = top_n(d, tumble(30000), 30000, lambda r, ws, we, wt: (we, r["k"], r["v2"], r["ts"]), [],
                 [(2, True, None), (1, False, None)], 4)
    print_result(["window_end", "k", "v2", "ts", "rownum"], rows)
else:
    rows = top_n(BIDS, tumble(10000), 10000,
                 lambda r, ws, we, wt: (r["k"], r["v"], r["s"], r["ts"], ws, we, wt), [0], [(1, True, None)], 3)
    a0 = [o[1] for o in rows if o[0] == "a0" and o[4] == 0]
    assert a0 == [56, 56, 54], a0
    print_result(["k", "v", "s", "ts", "window_start", "window_end", "window_time", "rownum"], rows)
