"""Checks updating_first_last: q1 the EMIT EVERY 5 s changelog, q2 the
EMIT FINAL table. FIRST_VALUE (LAST_VALUE) is v of the sensor's row with
the earliest (latest) own ts, ties by the smaller (larger) v; a row counts
in the 5 s interval of its ts, or of W(i) + 1 when ts is not above its
watermark W(i) (tests/e2e/lib/airref.py, updating_times)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import changelog, check_tagged, csv_line, read_csv, tumble_start, updating_times

rows = [(s, int(v), int(t)) for s, v, t in read_csv("data.csv", header=True)]
uts = updating_times([t for *_, t in rows], 1000)
moved = [r for r, u in zip(rows, uts) if u != r[2]]
assert len(moved) >= 8, len(moved)


def first_last(rs):
    return min(rs, key=lambda r: (r[2], r[1]))[1], max(rs, key=lambda r: (r[2], r[1]))[1]


batches = {}
for r, u in zip(rows, uts):
    batches.setdefault(tumble_start(u, 5000), []).append(((r[0],), r))
log = changelog([batches[b] for b in sorted(batches)], lambda s, r: (s or []) + [r],
                lambda k, rs: k + first_last(rs) + (len(rs),))
want1 = ["op,sensor,first_v,last_v,n"] + [csv_line((op,) + r) for _, op, r in log]
# a retimed row is some sensor's first value at least once (its own ts decides)
assert any(first_last([r for r in rows[:i + 1] if r[0] == m[0]])[0] == m[1] and
           min((r for r in rows[:i + 1] if r[0] == m[0]), key=lambda r: (r[2], r[1])) == m
           for i, m in ((rows.index(m), m) for m in moved)), "no retimed row is a first value"
final = {}
for r in rows:
    final.setdefault(r[0], []).append(r)
want2 = ["sensor,first_v,last_v,t0"] + [csv_line((s,) + first_last(rs) + (min(r[2] for r in rs),))
                                         for s, rs in sorted(final.items())]
check_tagged(sys.argv[1], {"q1": want1, "q2": want2})
