"""check.py OUT: the processing-time windows of proctime (see query.airq).

Per key (NULL: the empty field), the windows' counts add up to the rows of
e.csv, their sums to the values' sum; every window is 100 ms long and
aligned; the rows come by window end, then key (NULL last), each
(window, key) once; more than one window (the replay takes 0.5 s)."""
import csv
import sys
from collections import Counter

src = list(csv.reader(open("e.csv", newline="")))[1:]
want_n, want_s, want_nv = Counter(), Counter(), Counter()
for k, v in src:
    want_n[k] += 1
    if v:
        want_s[k] += int(v)
        want_nv[k] += 1
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows[0] == ["k", "n", "s", "nv", "window_start", "window_end"], rows[0]
got_n, got_s, got_nv = Counter(), Counter(), Counter()
seen, order = set(), []
for k, n, s, nv, ws, we in rows[1:]:
    ws, we = int(ws), int(we)
    assert we - ws == 100 and ws % 100 == 0, (ws, we)
    assert (ws, k) not in seen, ("twice", ws, k)
    seen.add((ws, k))
    order.append((we, k == "", k))
    got_n[k] += int(n)
    got_s[k] += int(s or 0)
    got_nv[k] += int(nv)
assert order == sorted(order), "rows out of order"
assert (got_n, got_s, got_nv) == (want_n, want_s, want_nv), (got_n, want_n, got_s, want_s)
assert len({ws for ws, _ in seen}) > 1, "one window only: the replay rate was not applied"
