"""Checks aggregate_filter's three queries against the generated rows
aggregated here: each FILTERed aggregate over the rows its condition holds
for, the groups (and windows) those of all rows."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import check_tagged, choice, col_value, csv_line, hop_starts, row_hash, sequence, tumble_start, uniform

rows = []
for i in range(4000):
    h = row_hash(21, i)
    rows.append((uniform(col_value(h, 0), 0, 5), uniform(col_value(h, 1), 1, 100),
                 choice(col_value(h, 2), ["home", "cart", "pay"]), sequence(i, 0, 9)))

g1 = {}
for k, v, p, ts in rows:
    a = g1.setdefault((tumble_start(ts, 10000) + 10000, k), [0, 0, None, 0, 0])
    a[0] += 1
    a[1] += v > 50
    if p == "pay":  # SUM over no rows is NULL
        a[2] = (a[2] or 0) + v
    if k == 1 and v < 30:
        a[3] += v
        a[4] += 1
# AVG over no rows is NULL, an empty field
want1 = ["k,n,big,paid,a1,WINDOW_END"] + [
    csv_line((k, a[0], a[1], a[2], a[3] / a[4] if a[4] else None, w))
    for (w, k), a in sorted(g1.items())]
g2 = {}
for k, v, p, ts in rows:
    a = g2.setdefault(tumble_start(ts, 5000) + 5000, [0, 0])
    a[0] += p.startswith("c")
    a[1] += v
want2 = ["carts,total,WINDOW_END"] + [csv_line((a[0], a[1], w)) for w, a in sorted(g2.items())]
g3 = {}
for k, v, p, ts in rows:
    for st in hop_starts(ts, 10000, 5000):
        g3[(st + 10000, k)] = g3.get((st + 10000, k), 0) + (v % 2 == 0)
want3 = ["k,evens,WINDOW_END"] + [csv_line((k, n, w)) for (w, k), n in sorted(g3.items())]
# sessions of the rows with v > 90 per key: a row 300 ms or more after its
# key's last one starts a new session, which ends at its last row + 300
GAP = 300
open_s, done = {}, []
for k, v, p, ts in rows:  # in time order
    if v <= 90:
        continue
    cur = open_s.get(k)
    if cur and ts >= cur[1] + GAP:
        done.append((cur[1] + GAP, k, cur))
        cur = None
    if not cur:
        cur = open_s[k] = [ts, ts, 0, None]
    cur[1] = ts
    cur[2] += 1
    if p != "home":
        cur[3] = (cur[3] or 0) + v
done += [(c[1] + GAP, k, c) for k, c in open_s.items()]
want4 = ["k,n,away,WINDOW_START,WINDOW_END"] + [csv_line((k, c[2], c[3], c[0], end)) for end, k, c in sorted(done)]
assert len(done) > 50, len(done)
check_tagged(sys.argv[1], {"q1": want1, "q2": want2, "q3": want3, "q4": want4})
