"""Checks top_n_row_number against Python: per 10 s window the 3 items of
the largest SUM(price) (the exact sum of the DOUBLEs), ties by item, numbered 1..3; per
hopping window (20 s, every 10 s) and category the 2 items sold most often,
ties by item; q3 is q1's top 2 with its item and total columns' names
swapped. Rows in window order, then as ranked (the category first)."""
import os
import sys
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import check_tagged_sets, csv_line, hop_starts, parse_iso_ms, read_csv, tumble_start

here = os.path.dirname(os.path.abspath(__file__))
rows = [(i, c, p, parse_iso_ms(ts)) for i, c, p, ts in read_csv(os.path.join(here, "sales.csv"), header=True)]

w1 = {}
for item, _, p, ts in rows:
    w1.setdefault(tumble_start(ts, 10000), {}).setdefault(item, []).append(Fraction(float(p)))
q1 = ["window_start,window_end,item,total,n,rownum"]
for s in sorted(w1):
    ranked = sorted(w1[s].items(), key=lambda kv: (-sum(kv[1]), kv[0]))[:3]
    for rk, (item, ps) in enumerate(ranked, 1):
        q1.append(csv_line((s, s + 10000, item, float(sum(ps)), len(ps), rk)))

w2 = {}
for item, cat, _, ts in rows:
    for s in hop_starts(ts, 20000, 10000):
        w2.setdefault((s + 20000, cat), {}).setdefault(item, 0)
        w2[(s + 20000, cat)][item] += 1
q2 = ["window_end,category,item,cnt"]
for (end, cat) in sorted(w2):
    for item, cnt in sorted(w2[(end, cat)].items(), key=lambda kv: (-kv[1], kv[0]))[:2]:
        q2.append(csv_line((end, cat, item, cnt)))
q3 = ["window_end,total,item"]
for s in sorted(w1):
    for item, ps in sorted(w1[s].items(), key=lambda kv: (-sum(kv[1]), kv[0]))[:2]:
        q3.append(csv_line((s + 10000, item, float(sum(ps)))))
check_tagged_sets(sys.argv[1], {"q1": q1, "q2": q2, "q3": q3})
