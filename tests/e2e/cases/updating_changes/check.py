"""Checks updating_changes' standard output: three updating queries
emitting per millisecond of event time (intervals of 1 ms), each line
tagged with its query (q1, q2, q3; the queries' lines interleave).

A row counts at its ts, or at W(i) + 1 when ts <= W(i) (records 150, 300
and 420: airref.updating_times). Record 300 counts at 58357, the ms of
the burst of records 301 to 303, so that ms's emission folds all four.
Per ms, each key with rows in it, in key order, gets its result over all
its rows so far (airref.changelog): +I, -U and +U, -D, or nothing when
its row is the same.

By hand: lines 2-5 are keys 3, 2, 1, 5 at 50000, and line 6 "1,9,50060":
q2's first emission (50000) is +I,1,-12,-12, +I,2,25,25, +I,3,4,4 and
+I,5,-7,-7, in key order; its second (50060) -U,1,-12,-12 and +U,1,9,-12.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import changelog, check_tagged, csv_line, file_watermarks, read_csv, updating_times

BOUND = 500
rows = [(int(k), int(v), int(t)) for k, v, t in read_csv("data.csv", header=True)]
times = [t for *_, t in rows]
uts = updating_times(times, BOUND)
wms = file_watermarks(times, BOUND)
assert [i for i, (t, w) in enumerate(zip(times, wms)) if w is not None and t <= w] == [150, 300, 420]
assert uts[300] == 58357 == times[301] == times[303] and uts[300] not in times[:300]
assert sum(len({k for k, _, t in rows if t == ms}) > 1 for ms in set(times)) > 50  # ms of several keys
assert sum(len([k for k, _, t in rows if t == ms]) > len({k for k, _, t in rows if t == ms})
           for ms in set(times)) > 10  # a key with several rows in one ms


def batches(keep, key):
    by_ms = {}
    for r, u in zip(rows, uts):
        if keep(r):
            by_ms.setdefault(u, []).append((key(r), r[1]))
    return [by_ms[ms] for ms in sorted(by_ms)]


def tagged(header, out):
    return [header] + [csv_line((op,) + r) for _, op, r in out]


count_sum = changelog(batches(lambda r: True, lambda r: (r[0],)),
                      lambda s, v: (s[0] + 1, s[1] + v) if s else (1, v),
                      lambda k, s: k + s if s[0] % 4 else None)
by_key = batches(lambda r: True, lambda r: (r[0],))
extremes = changelog(by_key,
                     lambda s, v: (max(s[0], v), min(s[1], v)) if s else (v, v),
                     lambda k, s: k + s)
overall = changelog(batches(lambda r: r[1] > 30, lambda r: ()),
                    lambda s, v: (s[0] + 1, max(s[1], v)) if s else (1, v),
                    lambda k, s: s)
assert [op for _, op, _ in count_sum].count("-D") > 20
# keys with rows in a ms whose extremes stay: no line
assert sum(len({k for k, _ in b}) for b in by_key) > len({(n, r[0]) for n, _, r in extremes}) + 100
assert extremes[:6] == [(0, "+I", (1, -12, -12)), (0, "+I", (2, 25, 25)), (0, "+I", (3, 4, 4)),
                        (0, "+I", (5, -7, -7)), (1, "-U", (1, -12, -12)), (1, "+U", (1, 9, -12))]
check_tagged(sys.argv[1], {"q1": tagged("op,k,n,total", count_sum),
                           "q2": tagged("op,k,top,lo", extremes),
                           "q3": tagged("op,n,top", overall)})
