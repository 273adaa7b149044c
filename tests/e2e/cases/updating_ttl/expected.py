"""Reference for updating_ttl: the changelog of an updating query with
EMIT EVERY 5 s and state_ttl 30 s (docs/language.md, "Updating queries").

Each row counts in the 5 s interval of uts = ts, or W(i) + 1 when ts is
not above its watermark W(i). When an interval [s, s + 5 s) closes, each
device it has rows of, in order: if the device has state whose latest row
(by its own ts, not uts) is at or before s - 30 s, that state is dropped (it begins anew, not
shown); its rows are added; its new row (dev, n, total) is written +I when
not shown before, else -U old and +U new.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import file_watermarks, print_result, read_csv, tumble_start

EVERY, TTL, BOUND = 5000, 30000, 1000
rows = [(int(d), int(v), int(t)) for d, v, t in read_csv("data.csv", header=True)]
wms = file_watermarks([t for _, _, t in rows], BOUND)
intervals = {}
retimed = 0
for (dev, v, ts), w in zip(rows, wms):
    uts = ts if w is None or ts > w else w + 1
    retimed += uts != ts
    intervals.setdefault(tumble_start(uts, EVERY), []).append((dev, v, ts))
assert retimed >= 10, retimed
state = {}  # dev -> [n, total, latest ts, shown row or None]
out, resets = [], 0
for s in sorted(intervals):
    touched = {}
    for dev, v, ts in intervals[s]:
        touched.setdefault(dev, []).append((v, ts))
    for dev in sorted(touched):
        st = state.get(dev)
        if st is not None and st[2] <= s - TTL:
            st, resets = None, resets + 1
        if st is None:
            st = state[dev] = [0, 0, None, None]
        for v, ts in touched[dev]:
            st[0] += 1
            st[1] += v
            st[2] = ts if st[2] is None else max(st[2], ts)
        now = (dev, st[0], st[1])
        if st[3] is not None and st[3] != now:
            out.append(("-U",) + st[3])
        if st[3] != now:
            out.append(("+U" if st[3] is not None else "+I",) + now)
        st[3] = now
assert resets >= 100, resets
print_result(["op", "dev", "n", "total"], out)
