"""Reference for agg_types: per (5 s window, key) every aggregate, with
SUM of INT and BIGINT taken as a BIGINT that wraps around 64 bits, AVG as
the double quotient of the exact sum and the count. Keys sort bytewise:
"a b" < "big" < "k,2" < "z".

By hand: key z has 9 rows in [0, 5000); i: -654 + 617 - 448 + 598 + 326
- 573 + 211 + 820 + 793 = 1690 (min -654, max 820), d: -30 - 37 - 38.75
+ 4.75 + 47.25 - 12.5 - 0.5 - 43.25 + 29.5 = -80.5 (min -43.25, max
47.25), so that row reads
  z,9,9,1690,-654,820,187.77777777777777,...,-80.5,-43.25,47.25,-8.944444444444445,5000
SUM(b) for key "big" exceeds 2^63 in every window, so its printed value
is the sum minus 2^64.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import print_result, read_csv, tumble_start, wrap

SIZE = 5000
acc = {}  # (window end, key) -> list of (i, b, d)
for k, i, b, d, ts in read_csv("t.csv", header=True):
    acc.setdefault((tumble_start(int(ts), SIZE) + SIZE, k.encode()), []).append((int(i), int(b), float(d)))

out = []
for (wend, kb), rs in sorted(acc.items()):
    i = [r[0] for r in rs]
    b = [r[1] for r in rs]
    d = [r[2] for r in rs]
    n = len(rs)
    out.append((kb.decode(), n, n, sum(i), min(i), max(i), sum(i) / n,
                wrap(sum(b), 64), min(b), max(b), sum(d), min(d), max(d), sum(d) / n, wend))
z = next(r for r in out if r[0] == "z")
assert z[:6] == ("z", 9, 9, 1690, -654, 820) and z[10:13] == (-80.5, -43.25, 47.25), z
big = [r for r in out if r[0] == "big"]
assert all(r[7] != sum(x[1] for x in acc[(r[14], b"big")]) for r in big)
assert all(r[3] > 2**31 for r in big if r[1] > 1)
print_result(["key", "n", "ni", "si", "mini", "maxi", "avgi", "sb", "minb", "maxb",
              "sd", "mind", "maxd", "avgd", "WINDOW_END"], out)
