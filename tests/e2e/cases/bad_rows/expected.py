"""Reference for bad_rows: validate each line as LANGUAGE.md section 7 says
(field count, numbers, string length, quoting), aggregate the good ones.

By hand, the good rows of window [0, 2000) are s1: 5, 3 (n 2, total 8),
s2: 7, 6 (2, 13), s3: -4, 11 (2, 7); of [2000, 4000): s1: -1 (the 2 at
2100 is on a 4-field line), s2: 1, 2 ("s2" quoted is good), s3: 5, 9.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import parse_int, parse_line_strict, print_result, tumble_start

SIZE = 2000
acc, bad = {}, []
with open("data.csv", newline="") as f:
    lines = f.read().split("\n")
for lineno, line in enumerate(lines[1:], start=2):
    if line == "":
        continue
    fields = parse_line_strict(line)
    ok = fields is not None and len(fields) == 3
    if ok:
        sensor, val, ts = fields[0], parse_int(fields[1], 32), parse_int(fields[2], 64)
        ok = len(sensor.encode()) <= 6 and val is not None and ts is not None
    if not ok:
        bad.append(lineno)
        continue
    a = acc.setdefault((tumble_start(ts, SIZE) + SIZE, sensor), [0, 0])
    a[0] += 1
    a[1] += val

# The lines stderr_grep expects to see reported are exactly the bad ones.
with open("stderr_grep") as f:
    reported = [int(m) for m in re.findall(r"^data\\\.csv:(\d+):$", f.read(), re.M)]
assert bad == reported, (bad, reported)
assert acc[(2000, "s1")] == [2, 8] and acc[(4000, "s2")] == [2, 3], acc

rows = [(s, n, t, wend) for (wend, s), (n, t) in sorted(acc.items())]
print_result(["sensor", "n", "total", "WINDOW_END"], rows)
