"""Reference for ysb_star_datagen: recompute the 10050 rows, count clicks
and views per (10 s window, campaign) through the ads table, and join the
two per window and campaign (inner: both counts must exist); ctr is the
IEEE quotient clicks / views. Rows ordered by WINDOW_END, campaign, ctr.

By hand: ts = 3*i, so [0, 10000) holds i = 0..3333 and the last window
[30000, 40000) holds i = 10000..10049 only; there a campaign appears only
when those 50 rows give it both a click and a view: 5 of the 9 campaigns,
camp-2 .. camp-6 (camp-6 with 3 clicks and 2 views: ctr 1.5).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import choice, col_value, print_result, read_csv, row_hash, sequence, tumble_start, uniform

SEED, LIMIT, SIZE = 99, 10050, 10000
ads = {int(a): c for a, c in read_csv("ads.csv", header=True)}
n = {}  # (window end, campaign) -> [clicks, views]
for i in range(LIMIT):
    h = row_hash(SEED, i)
    ad = uniform(col_value(h, 0), 0, 49)
    kind = choice(col_value(h, 1), ("view", "click", "buy"))
    ts = sequence(i, 0, 3)
    if ad not in ads or kind == "buy":
        continue
    a = n.setdefault((tumble_start(ts, SIZE) + SIZE, ads[ad]), [0, 0])
    a[kind == "view"] += 1

rows = sorted((wend, camp.encode(), k / v, camp) for (wend, camp), (k, v) in n.items() if k and v)
last = [r for r in rows if r[0] == 40000]
assert [c for *_, c in last] == ["camp-%d" % j for j in range(2, 7)] and last[-1][2] == 1.5
assert len([r for r in rows if r[0] == 10000]) == 9, rows
print_result(["campaign", "ctr", "WINDOW_END"], [(c, r, w) for w, _, r, c in rows])
