"""Reference for csv_header_skip: both files' first lines are skipped
unread; per (10 s window, region) COUNT and SUM of the joined trips.

By hand: drivers 1 and 3 are north, so the north rows of [0, 10000) are
the trips of drivers 1 and 3 among records 0..19.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import print_result, read_csv, tumble_start

region = {int(k): v for k, v in read_csv("drivers.csv", header=True)}
acc = {}
for driver, fare, ts in read_csv("trips.csv", header=True):
    a = acc.setdefault((tumble_start(int(ts), 10000) + 10000, region[int(driver)]), [0, 0])
    a[0] += 1
    a[1] += int(fare)
print_result(["region", "n", "total", "WINDOW_END"], [(r, n, t, w) for (w, r), (n, t) in sorted(acc.items())])
