"""Reference for sink_csv. `python3 expected.py` prints the expected
standard output: nothing, since every result goes to the sink;
`python3 expected.py fares.csv` prints the expected sink file: per 60 s
window starting every 20 s and driver, COUNT, AVG and MAX of the fares,
groups of more than 2 rows only, with a header line as on stdout.

No row is late on 1 to 4 ranks (checked with each rank's watermark, the
largest ts of its share so far minus 5 s).

By hand: the first window holding rows, [1699999960000, 1700000020000),
holds lines 2-6 of trips.csv, no driver more than twice: no output. In the
next, [1699999980000, 1700000040000), driver 11 has lines 6, 22, 24, 25,
30: fares 16.25 + 85.50 + 54.00 + 83.25 + 68.75 = 307.75, so the file
begins
  driver,n,avg_fare,top,WINDOW_START
  11,5,61.55,85.5,1699999980000
(line 24, ts ...37100, comes after line 22, ts ...38850).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import hop_starts, late_records, print_result, read_csv

SIZE, ADV, BOUND = 60000, 20000, 5000
rows = [(int(d), float(f), int(t)) for d, f, t in read_csv("trips.csv", header=True)]
assert not late_records([t for *_, t in rows], BOUND, lambda t: hop_starts(t, SIZE, ADV)[-1] + SIZE)
acc = {}  # (window start, driver) -> [count, fare sum, max fare]
for driver, fare, ts in rows:
    for ws in hop_starts(ts, SIZE, ADV):
        a = acc.setdefault((ws, driver), [0, 0.0, fare])
        a[0] += 1
        a[1] += fare
        a[2] = max(a[2], fare)
assert acc[(1699999980000, 11)] == [5, 307.75, 85.5]
assert all(a[0] <= 2 for (ws, _), a in acc.items() if ws == 1699999960000)
out = [(d, n, s / n, m, ws) for (ws, d), (n, s, m) in sorted(acc.items()) if n > 2]
if sys.argv[1:] == ["fares.csv"]:
    print_result(["driver", "n", "avg_fare", "top", "WINDOW_START"], out)
else:
    assert not sys.argv[1:], sys.argv
