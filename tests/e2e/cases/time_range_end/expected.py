"""Reference for time_range_end: rows i = 0, 1, ... with ts = 253402300000000
+ 1000 i while ts <= 253402300799999 (9999-12-31T23:59:59.999Z): 800 rows;
counts per key per hopping window. By hand: the last row is i = 799 at ts
253402300799000, in windows ending 253402300800000 and 253402300900000."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import col_value, hop_starts, print_result, row_hash, uniform

TS_MAX = 253402300799999
acc = {}
i = 0
while 253402300000000 + 1000 * i <= TS_MAX:
    ts = 253402300000000 + 1000 * i
    k = uniform(col_value(row_hash(3, i), 0), 0, 2)
    for s in hop_starts(ts, 200000, 100000):
        acc[(s + 200000, k)] = acc.get((s + 200000, k), 0) + 1
    i += 1
assert i == 800
print_result(["k", "n", "WINDOW_END"], [(k, n, w) for (w, k), n in sorted(acc.items())])
