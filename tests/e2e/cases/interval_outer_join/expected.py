"""Reference for interval_outer_join, by nested loops over the two files
(written from docs/language.md "Interval joins", Flink's interval outer
join):

- a row is late when its time is below its file's watermark before it: the
  largest time of the records before it minus the 2 s bound
  (airref.file_watermarks); late rows join nothing and are not padded;
- a pair is an a row and a b row, neither late, for which all of ON is
  true: equal non-NULL keys, b.ts - a.ts within the bounds, and ON's other
  conditions;
- LEFT: every pair, and each a row in no pair, b's columns NULL; RIGHT the
  same for b's rows, a's columns NULL; FULL both; WHERE is tested on the
  pairs and the padded rows alike;
- a derived stream's rows have the time of its ts column (a's time), or
  without one the later time of a pair, a padded row's own; they are
  aggregated per 5 s window of it, and none is late there.

Outputs are compared sorted (the file `unordered`). The data is
interval_join's (its make_data.py). The runs are paced (`args`: --rate
200, a few ms a row), so that the watermark moves row by row, and padded
rows are sent while the derived streams' windows close, not all at the
end: with the derived stream's watermark held back by max(hi, -lo) alone
(not a bucket more), per5.csv has windows twice.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import file_watermarks, print_result, read_csv, tumble_start


def rows(path, conv):
    recs = [dict(k=k or None, g=int(g), v=conv(v), ts=int(t)) for k, g, v, t in read_csv(path, header=True)]
    wms = file_watermarks([r["ts"] for r in recs], 2000)
    return [r for r, w in zip(recs, wms) if w is None or r["ts"] >= w], len(recs)


A, na = rows("a.csv", int)
B, nb = rows("b.csv", float)


def join(on, keep_a, keep_b):
    """(a row or None, b row or None) of every pair and padded row."""
    out, hit_a, hit_b = [], set(), set()
    for i, x in enumerate(A):
        for j, y in enumerate(B):
            if x["k"] is not None and x["k"] == y["k"] and on(x, y):
                out.append((x, y))
                hit_a.add(i)
                hit_b.add(j)
    if keep_a:
        out += [(x, None) for i, x in enumerate(A) if i not in hit_a]
    if keep_b:
        out += [(None, y) for j, y in enumerate(B) if j not in hit_b]
    return out


def col(r, c):
    return None if r is None else r[c]


def coalesce(*v):
    return next((x for x in v if x is not None), None)


want = sys.argv[1] if len(sys.argv) > 1 else ""
if want == "right.csv":
    on = lambda x, y: x["g"] == y["g"] and y["ts"] < x["ts"] < y["ts"] + 1000 and x["v"] < y["v"] * 10
    out = [(y["k"], col(x, "v"), y["v"], col(x, "ts"), y["ts"]) for x, y in join(on, False, True)]
    print_result(["k", "x", "y", "ats", "bts"], out)
elif want == "full.csv":
    on = lambda x, y: -1000 <= y["ts"] - x["ts"] <= 500
    out = [(coalesce(col(x, "k"), col(y, "k")), col(x, "v"), col(y, "v"), col(x, "ts"), col(y, "ts"))
           for x, y in join(on, True, True) if y is None or y["v"] > 0]
    print_result(["k", "x", "y", "ats", "bts"], out)
elif want == "per5.csv":
    on = lambda x, y: 0 <= y["ts"] - x["ts"] <= 1500
    per = {}
    for x, y in join(on, True, False):
        p = per.setdefault((x["k"], tumble_start(x["ts"], 5000) + 5000), [0, 0, 0])
        p[0] += 1
        p[1] += y is not None
        p[2] += x["v"]
    print_result(["k", "n", "ys", "sx", "WINDOW_END"], [(k, n, ys, sx, w) for (k, w), (n, ys, sx) in per.items()])
elif want == "perfull.csv":
    on = lambda x, y: x["g"] == y["g"] and -1000 <= y["ts"] - x["ts"] <= 1000
    per = {}
    for x, y in join(on, True, True):
        t = max(r["ts"] for r in (x, y) if r is not None)
        p = per.setdefault(tumble_start(t, 5000) + 5000, [0, 0, 0])
        p[0] += 1
        p[1] += y is not None
        p[2] += coalesce(col(x, "k"), col(y, "k")) is not None
    print_result(["n", "ys", "ks", "WINDOW_END"], [(n, ys, ks, w) for w, (n, ys, ks) in sorted(per.items())])
else:
    on = lambda x, y: -2000 <= y["ts"] - x["ts"] <= 3000
    out = [(x["k"], x["v"], col(y, "v"), x["ts"], col(y, "ts")) for x, y in join(on, True, False)]
    print_result(["k", "x", "y", "ats", "bts"], out)
    print(f"late: a {na - len(A)}, b {nb - len(B)}, rows {len(out)}", file=sys.stderr)
