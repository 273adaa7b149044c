"""Reference for stream_join: for every 10 s window, every pair of an a row
and a b row of that window with equal k (a nested loop). Rows of one window
are ordered by WINDOW_END, then by every output column left to right
(strings bytewise, numbers by value), as the collector orders non-grouped
windowed results.

By hand: in [0, 10000) a has k3 rows x = 28 (ts 1200) and 10 (ts 8900)
and b has k3 rows y = 6.00 (2700), 2.25 (3600), -8.25 (6800), so the
window has six k3 rows, from 10,-8.25 to 28,6; b's k3 row at 14100 is in
the next window and does not meet a's k3 rows of the first.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import print_result, read_csv, tumble_start

SIZE = 10000
a = [(k, int(x), tumble_start(int(t), SIZE) + SIZE) for k, x, t in read_csv("a.csv", header=True)]
b = [(k, float(y), tumble_start(int(t), SIZE) + SIZE) for k, y, t in read_csv("b.csv", header=True)]
out = [(wa, ka.encode(), x, y, ka) for ka, x, wa in a for kb, y, wb in b if ka == kb and wa == wb]
out.sort()
rows = [(k, x, y, w) for w, _, x, y, k in out]
k3 = [(x, y) for k, x, y, w in rows if k == "k3" and w == 10000]
assert k3 == [(10, -8.25), (10, 2.25), (10, 6.0), (28, -8.25), (28, 2.25), (28, 6.0)], k3
assert {k for k, _, _, _ in rows} == {"k2", "k3", "k4", "k5", "x,y"}
print_result(["k", "x", "y", "WINDOW_END"], rows)
