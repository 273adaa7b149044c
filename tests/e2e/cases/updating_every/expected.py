"""Reference for updating_every: the changelog of per-user running
aggregates emitted every 10 s of event time (intervals [s, s + 10000),
s a multiple of 10000), HAVING SUM(v) > 0.

A row counts at ts, or at W(i) + 1 when ts <= W(i) (airref.updating_times:
W(i) is the largest ts of the records before it minus the 2 s bound); so
records 250, 433, 600 and 777, 12 to 45 s behind, count in the interval
after the watermark, not in their own (closed) one. Record 600 counts at
1080000 exactly, the first ms of an interval.

Per interval, each user with rows in it, in byte order ("Eli" before
"ann"), gets its result over all its rows so far: +I when it was not shown
and HAVING holds, -U old and +U new when shown and the row changed, -D old
when shown and HAVING fails; nothing when the row did not change (a user
hidden before and after).

By hand: the first interval [1000000, 1010000) holds lines 2-85 of
data.csv; Eli has 20 of them, v summing to 7, max 9, and 15 non-NULL x
summing to 282: the first line is +I,Eli,20,7,0.35,9,15,282. Eli's line
252 (record 250, ts 986190) would be in it too, were it not 45 s behind.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import changelog, csv_line, file_watermarks, read_csv, updating_times

EVERY, BOUND = 10000, 2000
rows = [(u, int(v), None if x == "" else int(x), int(t)) for u, v, x, t in read_csv("data.csv", header=True)]
times = [t for *_, t in rows]
uts = updating_times(times, BOUND)
# The rows far behind the watermark, and where they count.
wms = file_watermarks(times, BOUND)
behind = [i for i, (t, w) in enumerate(zip(times, wms)) if w is not None and t <= w]
assert behind == [250, 433, 600, 777], behind
assert all((times[i] // EVERY + 1) * EVERY <= wms[i] < uts[i] for i in behind)  # own interval closed
assert uts[600] == 1080000
# Rows out of order inside the bound keep their own time.
assert sum(t < max(times[:i]) and uts[i] == t for i, t in enumerate(times) if i) > 20

batches = {}
for (user, v, x, _), u in zip(rows, uts):
    batches.setdefault(u // EVERY, []).append(((user,), (v, x)))


def fold(s, r):
    n, total, top, nx, sx = s or (0, 0, r[0], 0, None)
    v, x = r
    return (n + 1, total + v, max(top, v), nx + (x is not None),
            sx if x is None else (sx or 0) + x)


def result(k, s):
    n, total, top, nx, sx = s
    return k + (n, total, total / n, top, nx, sx) if total > 0 else None


out = changelog([batches[b] for b in sorted(batches)], fold, result)
# Some users have rows in an interval but the same (hidden) result: no line.
assert sum(len({k for k, _ in b}) for b in batches.values()) > len({(n, r[0]) for n, _, r in out})
ops = [op for _, op, _ in out]
assert ops.count("-D") >= 3 and any(op == "+I" and r[0] in [q[0] for _, o, q in out[:j] if o == "-D"]
                                    for j, (_, op, r) in enumerate(out)), "no user hidden and shown again"
assert any(r[-1] is None for _, _, r in out), "no NULL SUM(x) shown"
assert out[0] == (0, "+I", ("Eli", 20, 7, 0.35, 9, 15, 282))
print("op,user,n,total,mean,top,nx,sx")
for _, op, r in out:
    print(csv_line((op,) + r))
