"""Checks day_windows: rows counted per key and UTC day, and per two-week
window advancing by a week, computed here (windows aligned to the epoch)."""
import datetime
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import check_tagged, col_value, csv_line, hop_starts, row_hash, sequence, tumble_start, uniform

DAY, WEEK = 86400000, 7 * 86400000
rows = [(uniform(col_value(row_hash(4, i), 0), 0, 2), sequence(i, 1764979200123, 3599999)) for i in range(1000)]
g1 = {}
for k, ts in rows:
    w = tumble_start(ts, DAY)
    g1[(w + DAY, k)] = g1.get((w + DAY, k), 0) + 1
day = lambda ms: (datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)).day  # noqa: E731
want1 = ["k,n,d,WINDOW_END"] + [csv_line((k, n, day(w - DAY), w)) for (w, k), n in sorted(g1.items())]
g2 = {}
for k, ts in rows:
    for st in hop_starts(ts, 2 * WEEK, WEEK):
        a = g2.setdefault(st + 2 * WEEK, [0, 0])
        a[0] += 1
        a[1] = max(a[1], ts)
want2 = ["n,before_last,WINDOW_END"] + [csv_line((n, m - DAY, w)) for w, (n, m) in sorted(g2.items())]
assert len(g1) > 100 and len(g2) >= 4
check_tagged(sys.argv[1], {"q1": want1, "q2": want2})
