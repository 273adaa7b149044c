"""Reference for regular_join, by nested loops over the two files (written
from docs/language.md "Regular joins"):

- every row joins, none is late (a regular join keeps every row of both
  sides for ever), whatever its time against its file's watermark;
- the first query's pairs: equal non-NULL keys, a.g <> b.g and a.x > b.y;
- the second's: equal non-NULL keys, a.g = b.g, b.ts >= a.ts; each pair's
  time is max(a.ts, b.ts), raised to W + 1 for W the watermark of either
  row's file before it (airref.file_watermarks: the largest time before it
  minus the 2 s bound) when it is at or below that; counted per k and 5 s
  window of that time. None of them is late for the windows (the summary's
  late count is 0: stderr_grep).

Checked by hand: the first b row of key k3 (1100 ms, g 1) meets a's k3
rows of g 0 whose x > -1.5. Outputs are compared sorted (`unordered`): a
join writes pairs as they are found.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import print_result, read_csv, regular_join_time, tumble_start, with_watermarks

A, B = ([dict(k=k or None, g=int(g), v=conv(v), ts=int(t)) for k, g, v, t in read_csv(path, header=True)]
        for path, conv in (("a.csv", int), ("b.csv", float)))
A, B = with_watermarks(A, 2000), with_watermarks(B, 2000)


if len(sys.argv) > 1:
    per = {}
    for x in A:
        for y in B:
            if x["k"] is not None and x["k"] == y["k"] and x["g"] == y["g"] and y["ts"] >= x["ts"]:
                p = per.setdefault((tumble_start(regular_join_time(x, y), 5000) + 5000, x["k"]), [0, 0.0, None])
                p[0] += 1
                p[1] += y["v"]
                p[2] = x["ts"] if p[2] is None else min(p[2], x["ts"])
    print_result(["k", "n", "sy", "first_a", "WINDOW_END"],
                 [(k, n, sy, f, w) for (w, k), (n, sy, f) in sorted(per.items())])
else:
    out = [(x["k"], x["v"], y["v"], x["ts"], y["ts"]) for x in A for y in B
           if x["k"] is not None and x["k"] == y["k"] and x["g"] != y["g"] and x["v"] > y["v"]]
    print_result(["k", "x", "y", "ats", "bts"], out)
