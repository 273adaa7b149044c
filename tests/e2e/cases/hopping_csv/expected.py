"""Reference for hopping_csv: every row goes to each of the (three) 60 s
windows that hold it, starts being multiples of 20 s; per (window, driver)
COUNT, AVG and MAX; groups of 2 rows or fewer are left out by HAVING.

No row is late on any number of ranks: the reference checks it by running
each rank's watermark (largest ts read so far in its share, minus 5 s).

By hand: the first window holding any row is [1699999960000, 1700000020000)
(rows start at 1700000005000): lines 2-6 of trips.csv. Driver 12 has two
rows there (HAVING drops it), driver 13 three (40.25, 17.00, 67.00), so the
output begins
  13,3,41.416666666666664,67,1699999960000   (124.25 / 3)
Line 13 (ts ...22800) comes 3.5 s behind line 12 (ts ...26300).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import hop_starts, late_records, print_result, read_csv

SIZE, ADV, BOUND = 60000, 20000, 5000
rows = [(int(d), float(f), int(t)) for d, f, t in read_csv("trips.csv", header=True)]
times = [t for _, _, t in rows]
assert not late_records(times, BOUND, lambda t: hop_starts(t, SIZE, ADV)[-1] + SIZE)

acc = {}  # (window start, driver) -> [count, fare sum, max fare]
for driver, fare, ts in rows:
    for ws in hop_starts(ts, SIZE, ADV):
        a = acc.setdefault((ws, driver), [0, 0.0, fare])
        a[0] += 1
        a[1] += fare
        a[2] = max(a[2], fare)

assert all(len(hop_starts(t, SIZE, ADV)) == 3 for t in times)
first = min(acc)[0]
assert first == 1699999960000 and acc[(first, 12)][0] == 2
assert acc[(first, 13)] == [3, 124.25, 67.0], acc[(first, 13)]
out = [(d, n, s / n, m, ws) for (ws, d), (n, s, m) in sorted(acc.items()) if n > 2]
print_result(["driver", "n", "avg_fare", "top", "WINDOW_START"], out)
