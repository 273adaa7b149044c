"""Checks join_several_keys' standard output against both queries computed
here from the generated rows and dims.csv: q1 pairs rows of l and r in the
same 5 s window with equal k and equal g (ordered by WINDOW_END, then the
output columns); q2 looks each l row up by k in dims, keeps it when its g
equals the row's grp, and counts and sums per name and window. q3 and q4
are q1 and q2 written with a comma and WHERE: the same lines."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import check_tagged, col_value, csv_line, read_csv, row_hash, sequence, tumble_start, uniform

SIZE = 5000


def gen(seed, limit, step, last):
    out = []
    for i in range(limit):
        h = row_hash(seed, i)
        ts = sequence(i, 0, step)
        out.append((uniform(col_value(h, 0), 0, 9), uniform(col_value(h, 1), 0, 2),
                    uniform(col_value(h, 2), 1, last), tumble_start(ts, SIZE) + SIZE))
    return out


L = gen(5, 2000, 13, 100)
R = gen(6, 1500, 17, 100)
q1 = sorted((wa, ka, ga, x, y) for ka, ga, x, wa in L for kb, gb, y, wb in R if wa == wb and ka == kb and ga == gb)
want1 = ["k,g,x,y,WINDOW_END"] + [csv_line((k, g, x, y, w)) for w, k, g, x, y in q1]
assert len(q1) > 1000, len(q1)
dims = {int(i): (int(g), n) for i, g, n in read_csv("dims.csv", header=True)}
q2 = {}
for k, g, x, w in L:
    if k in dims and dims[k][0] == g:
        a = q2.setdefault((w, dims[k][1].encode()), [0, 0])
        a[0] += 1
        a[1] += x
want2 = ["name,n,sx,WINDOW_END"] + [csv_line((n.decode(), c, s, w)) for (w, n), (c, s) in sorted(q2.items())]
assert len(q2) > 10, q2

check_tagged(sys.argv[1], {"q1": want1, "q2": want2, "q3": want1, "q4": want2})
