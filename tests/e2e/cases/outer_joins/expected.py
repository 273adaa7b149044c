"""Reference for outer_joins, by nested loops per window (SQL's outer join
semantics, written from docs/language.md "Joins"):

- a window's pairs of an a row and a b row whose ON equalities are all true
  (NULL equals nothing, so a NULL key matches no row);
- LEFT: each a row that is in no pair, once, with b's columns NULL; RIGHT:
  each such b row with a's NULL; FULL: both;
- WHERE is tested on the joined and the padded rows alike.

Rows of a window are ordered by the window, then by every output column left
to right, NULL after every value; grouped results by the window, then the
group key, NULL last.

By hand, from a.csv and b.csv: the first window [0, 10000) of the LEFT join
holds a's k1 rows (800, 1100: b has no k1) padded, and a's k2 row at 1800
(g = 1) matched with b's k2 row at 4300 (g = 1, y = 4.5).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import csv_line, hop_starts, read_csv, tumble_start


def opt(v, conv):
    return None if v == "" else conv(v)


def rows(path):
    return [dict(k=opt(k, str), g=opt(g, int), v=opt(v, float if path == "b.csv" else int), ts=int(t))
            for k, g, v, t in read_csv(path, header=True)]


A, B = rows("a.csv"), rows("b.csv")


def eq(p, q):
    return p is not None and q is not None and p == q


def outer(wins, on, keep_l, keep_r):
    """(window start, a row or None, b row or None) of every joined or padded row."""
    out = []
    for w in sorted({s for r in A + B for s in wins(r["ts"])}):
        la = [r for r in A if w in wins(r["ts"])]
        lb = [r for r in B if w in wins(r["ts"])]
        hit_b = set()
        for x in la:
            m = [i for i, y in enumerate(lb) if on(x, y)]
            out += [(w, x, lb[i]) for i in m]
            hit_b.update(m)
            if not m and keep_l:
                out.append((w, x, None))
        if keep_r:
            out += [(w, None, y) for i, y in enumerate(lb) if i not in hit_b]
    return out


def col(r, c):
    return None if r is None else r[c]


def order(v):
    return (v is None, v.encode() if isinstance(v, str) else v)


def emit(header, result):
    lines = [",".join(header)]
    for _, r in sorted(result, key=lambda wr: (wr[0], [order(v) for v in wr[1]])):
        lines.append(csv_line(r))
    print("\n".join(lines))


tumble = lambda t: [tumble_start(t, 10000)]
hop = lambda t: hop_starts(t, 10000, 5000)
on_k = lambda x, y: eq(x["k"], y["k"])


def left():
    j = outer(tumble, lambda x, y: on_k(x, y) and eq(x["g"], y["g"]), True, False)
    emit(["k", "g", "x", "y", "WINDOW_END"],
         [(w, (x["k"], x["g"], x["v"], col(y, "v"), w + 10000)) for w, x, y in j])


def right():
    j = outer(tumble, on_k, False, True)
    emit(["k", "x", "y", "WINDOW_END"],
         [(w, (y["k"], col(x, "v"), y["v"], w + 10000)) for w, x, y in j
          if col(x, "v") is None or col(x, "v") > 5])


def full():
    j = outer(hop, on_k, True, True)
    res = []
    for w, x, y in j:
        if not (col(y, "v") is None or col(y, "v") > 0):
            continue
        k = col(x, "k") if col(x, "k") is not None else col(y, "k")
        res.append((w, (k, col(x, "v"), col(y, "v"), w)))
    emit(["k", "x", "y", "WINDOW_START"], res)


def left_cond():
    def on(x, y):
        return (on_k(x, y) and y["v"] is not None and y["v"] > 0 and x["v"] is not None
                and x["v"] < y["v"] * 10)
    j = outer(tumble, on, True, False)
    emit(["k", "x", "y", "WINDOW_END"], [(w, (x["k"], x["v"], col(y, "v"), w + 10000)) for w, x, y in j])


def grouped():
    j = outer(tumble, on_k, True, False)
    groups = {}
    for w, x, y in j:
        g = groups.setdefault((w, x["k"]), [0, 0, None])
        g[0] += 1
        if col(y, "v") is not None:
            g[1] += 1
            g[2] = (g[2] or 0.0) + y["v"]
    print("k,n,ys,sy,WINDOW_END")
    for (w, k), (n, ys, sy) in sorted(groups.items(), key=lambda kv: (kv[0][0], order(kv[0][1]))):
        print(csv_line((k, n, ys, sy, w + 10000)))


if len(sys.argv) > 1:
    {"left.csv": left, "right.csv": right, "full.csv": full,
     "left_cond.csv": left_cond}[os.path.basename(sys.argv[1])]()
else:
    grouped()
