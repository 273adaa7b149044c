"""Reference for interval_join, by nested loops over the two files (written
from docs/language.md "Interval joins"):

- a row is late when its time is below its file's watermark before it: the
  largest time of the records before it minus the 2 s bound
  (airref.file_watermarks); late rows join nothing;
- a pair is an a row and a b row, neither late, with equal non-NULL keys
  and b.ts - a.ts within the bounds: [-2000, 3000] ms for the first query;
  for the second a.ts > b.ts and a.ts < b.ts + 1000 with equal g;
- the second query's pairs are counted per k and 5 s window of a.ts (its
  column named ts); the third's per 5 s window of the pair's later time.

Both outputs are compared sorted (the file `unordered`): an interval join
writes pairs as they are found.
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
if len(sys.argv) > 1 and sys.argv[1].endswith("per_later.csv"):
    per = {}
    for x in A:
        for y in B:
            if x["k"] is not None and x["k"] == y["k"] and 0 <= y["ts"] - x["ts"] <= 3000:
                w = tumble_start(max(x["ts"], y["ts"]), 5000) + 5000
                n, first = per.get(w, (0, None))
                per[w] = (n + 1, x["ts"] if first is None else min(first, x["ts"]))
    print_result(["n", "first_a", "WINDOW_END"], [(n, f, w) for w, (n, f) in sorted(per.items())])
elif len(sys.argv) > 1:
    per = {}
    for x in A:
        for y in B:
            if x["k"] is not None and x["k"] == y["k"] and x["g"] == y["g"] and y["ts"] < x["ts"] < y["ts"] + 1000:
                p = per.setdefault((x["k"], tumble_start(x["ts"], 5000) + 5000), [0, 0.0])
                p[0] += 1
                p[1] += y["v"]
    print_result(["k", "n", "sy", "WINDOW_END"], [(k, n, sy, w) for (k, w), (n, sy) in per.items()])
else:
    out = [(x["k"], x["v"], y["v"], x["ts"], y["ts"]) for x in A for y in B
           if x["k"] is not None and x["k"] == y["k"] and -2000 <= y["ts"] - x["ts"] <= 3000]
    print_result(["k", "x", "y", "ats", "bts"], out)
    print(f"late: a {na - len(A)}, b {nb - len(B)}, pairs {len(out)}", file=sys.stderr)
