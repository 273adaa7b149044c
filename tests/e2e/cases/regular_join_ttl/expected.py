"""Reference for regular_join_ttl, by nested loops over the two files
(written from docs/language.md "Regular joins", state_ttl):

- a join WITH (state_ttl = d) is the interval join of b.ts - a.ts in
  [-d, d]: a row below its file's watermark before it (the largest time
  before it minus the 2 s bound, airref.file_watermarks) is late and joins
  nothing; the others join those of the other side with an equal non-NULL
  key within d either way (3 s for the first query);
- each query counts its late rows (25 of a and 20 of b, in each of the two queries: the summary says 90, stderr_grep);
- the second (LEFT JOIN, d = 2 s, ON a second equality on g): the pairs,
  and every a row that is not late and met none, b's columns NULL (an a row
  whose key is NULL too).

Checked by hand: a's first row (k1, 1250 ms) meets b's k1 rows up to
4250 ms. Outputs are compared sorted (`unordered`).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import print_result, read_csv, with_watermarks

ALL = [with_watermarks([dict(k=k or None, g=int(g), v=conv(v), ts=int(t)) for k, g, v, t in read_csv(path, header=True)],
                       2000) for path, conv in (("a.csv", int), ("b.csv", float))]
(A, B), (na, nb) = ([[r for r in rs if r["wm"] is None or r["ts"] >= r["wm"]] for rs in ALL],
                    [len(rs) for rs in ALL])
assert na - len(A) > 10 and nb - len(B) > 10, "the data has too few late rows"


def meets(x, y, d, g):
    return x["k"] is not None and x["k"] == y["k"] and abs(y["ts"] - x["ts"]) <= d and (not g or x["g"] == y["g"])


if len(sys.argv) > 1:
    out = []
    for x in A:
        ys = [y for y in B if meets(x, y, 2000, True)]
        out += [(x["k"], x["v"], y["v"], x["ts"]) for y in ys] or [(x["k"], x["v"], None, x["ts"])]
    print_result(["k", "x", "y", "ats"], out)
else:
    out = [(x["k"], x["v"], y["v"], x["ts"], y["ts"]) for x in A for y in B if meets(x, y, 3000, False)]
    print_result(["k", "x", "y", "ats", "bts"], out)
