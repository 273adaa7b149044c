"""Reference for csv_numbers: each line validated as docs/guarantees.md
says (decimal DOUBLEs only, inf/infinity/nan words, out-of-range numbers
and TIMESTAMPs outside years 1 to 9999 are bad), the good rows aggregated.

By hand: the window [0, 10000) holds a: 25 (the 0x1p4, "1." and NUL rows
are bad), b: 0.25 (1e400 and 1e-400 are bad), c: inf + inf = inf; the
first window starts at -62135596800000 (a: 1.5), the last ends at
253402300800000 (a: 3).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import data_lines, parse_double, parse_ts, print_result, reported_lines, tumble_start

SIZE = 10000
acc, bad = {}, []
for lineno, fields in data_lines("data.csv"):
    ok = fields is not None and len(fields) == 3
    if ok:
        k, x, ts = fields[0], parse_double(fields[1]), parse_ts(fields[2])
        ok = len(k.encode()) <= 4 and "\0" not in k and x is not None and ts is not None
    if not ok:
        bad.append(lineno)
        continue
    a = acc.setdefault((tumble_start(ts, SIZE) + SIZE, k), [0, 0.0])
    a[0] += 1
    a[1] += x

reported = reported_lines("stderr_grep", "data.csv")
assert bad == reported, (bad, reported)
assert acc[(10000, "a")] == [1, 25.0] and acc[(10000, "c")] == [2, float("inf")], acc

rows = [(k, n, t, wend) for (wend, k), (n, t) in sorted(acc.items())]
print_result(["k", "n", "total", "WINDOW_END"], rows)
