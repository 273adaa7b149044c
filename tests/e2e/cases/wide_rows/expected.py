"""Reference for wide_rows: per 4 s window, per k: count, longest c299,
total length of c0 and c150; and per (c0, the table's big) the count.
By hand: row 0 is at ts 0 with k 0, its c0 is 'a0' (2 bytes)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import print_result, read_csv, tumble_start

rows = read_csv("w.csv")
assert rows[0][0] == "a0" and len(rows[0]) == 302
tab = {int(k): big for k, big in read_csv("t.csv")}
if len(sys.argv) > 1:
    acc = {}
    for r in rows:
        key = (tumble_start(int(r[301]), 4000) + 4000, r[0].encode(), tab[int(r[300])].encode())
        acc[key] = acc.get(key, 0) + 1
    print_result(["c0", "big", "n", "WINDOW_END"],
                 [(c0.decode(), big.decode(), n, w) for (w, c0, big), n in sorted(acc.items())])
    sys.exit(0)
acc = {}
for r in rows:
    a = acc.setdefault((tumble_start(int(r[301]), 4000) + 4000, int(r[300])), [0, 0, 0])
    a[0] += 1
    a[1] = max(a[1], len(r[299]))
    a[2] += len(r[0]) + len(r[150])
print_result(["k", "n", "l299", "l", "WINDOW_END"],
             [(k, n, l299, l, w) for (w, k), (n, l299, l) in sorted(acc.items())])
