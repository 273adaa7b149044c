"""Reference for bad_rows: validate each line as docs/language.md section 7 says
(field count, numbers, string length, quoting), aggregate the good ones.

By hand, the good rows of window [0, 2000) are s1: 5, 3 (n 2, total 8),
s2: 7, 6 (2, 13), s3: -4, 11 (2, 7); of [2000, 4000): s1: -1 (the 2 at
2100 is on a 4-field line), s2: 1, 2 ("s2" quoted is good), s3: 5, 9.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import data_lines, parse_int, parse_ts, print_result, reported_lines, tumble_start

SIZE = 2000
acc, bad = {}, []
for lineno, fields in data_lines("data.csv"):
    ok = fields is not None and len(fields) == 3
    if ok:
        sensor, val, ts = fields[0], parse_int(fields[1], 32), parse_ts(fields[2])
        ok = len(sensor.encode()) <= 6 and val is not None and ts is not None
    if not ok:
        bad.append(lineno)
        continue
    a = acc.setdefault((tumble_start(ts, SIZE) + SIZE, sensor), [0, 0])
    a[0] += 1
    a[1] += val

# The lines stderr_grep expects to see reported are exactly the bad ones.
reported = reported_lines("stderr_grep", "data.csv")
assert bad == reported, (bad, reported)
assert acc[(2000, "s1")] == [2, 8] and acc[(4000, "s2")] == [2, 3], acc

rows = [(s, n, t, wend) for (wend, s), (n, t) in sorted(acc.items())]
print_result(["sensor", "n", "total", "WINDOW_END"], rows)
