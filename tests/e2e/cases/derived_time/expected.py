"""Reference for derived_time, from the generator formulas (runtime/air.h,
airref) and the rule for derived streams' event time (README "Decisions"):
a row of `hop` has event time WINDOW_START; a row of `rare` the latest event
time of the rows behind it. No row of either is late.

By hand: the events are at ts 0, 10, ..., 199990, so the hopping windows
start at -8 s, -6 s, ..., 198 s: 104 windows; the one starting at 0 holds
the 1000 events of [0, 10 s) over its 4 keys, and re-windowed by 2 s it is
the window ending at 2000: 4 rows, 1000 events.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import col_value, hop_starts, print_result, row_hash, sequence, tumble_start, uniform

SEED, N = 17, 20000
rows = []
for i in range(N):
    h = row_hash(SEED, i)
    rows.append((uniform(col_value(h, 0), 0, 3), uniform(col_value(h, 1), 0, 99), sequence(i, 0, 10)))

if len(sys.argv) > 1:  # rare.csv
    per = {}  # (10 s window start, r) -> [count, latest ts]
    for k, r, ts in rows:
        if r < 3:
            a = per.setdefault((tumble_start(ts, 10000), r), [0, ts])
            a[0] += 1
            a[1] = max(a[1], ts)
    out = {}
    for (ws, r), (n, latest) in per.items():
        o = out.setdefault((tumble_start(latest, 2000) + 2000, r), [0, 0])
        o[0] += 1
        o[1] += n
    print_result(["r", "nrows", "total", "WINDOW_END"],
                 [(r, a, b, wend) for (wend, r), (a, b) in sorted(out.items())])
    sys.exit(0)

hop = {}  # (window start, k) -> count
for k, r, ts in rows:
    for s in hop_starts(ts, 10000, 2000):
        hop[(s, k)] = hop.get((s, k), 0) + 1
out = {}  # 2 s window end -> [rows, total]
for (s, k), n in hop.items():
    o = out.setdefault(tumble_start(s, 2000) + 2000, [0, 0])
    o[0] += 1
    o[1] += n
assert len(out) == 104, len(out)
assert out[2000] == [4, 1000], out[2000]
print_result(["nrows", "total", "WINDOW_END"], [(a, b, w) for w, (a, b) in sorted(out.items())])
