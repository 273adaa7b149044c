"""Reference for map_filter (rows in any order: the harness sorts them).

By hand: row 6 (zeta, x -11, w 3.50) is kept since -11 % 3 = -2 in C, and
gives 6,zeta,-21,low,7,1530; row 4 (x 39) is dropped (39 % 3 = 0), as are
the 'skip' rows; rows 30..32 ("edge", x 10, 49, 50) give bands mid, mid,
high and y 21, 99, 101.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import c_mod, print_result, read_csv, wrap

out = []
for id_, name, x, w, ts in read_csv("items.csv", header=True):
    x, w = int(x), float(w)
    if not (c_mod(x, 3) != 0 and name != "skip"):
        continue
    band = "high" if x >= 50 else "mid" if x >= 10 else "low"
    out.append((int(id_), name, wrap(x * 2 + 1, 32), band, w * 2, int(ts)))
print_result(["id", "name", "y", "band", "w2", "ts"], out)
