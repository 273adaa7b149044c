"""Reference for session_csv: per user, sort the event times and cut a new
session wherever the next event is at least the gap after the last one
(airref.sessions); rows ordered by WINDOW_END, then user_id.

By hand: u1's first session is 100000 (amount 1), 104000 (16), 108000 (5):
  u1,3,22,100000,113000
and u1's events at 120000, 125000 and 129999 make [120000, 125000) and
[125000, 134999).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import print_result, read_csv, sessions

GAP = 5000
rows = [(u, int(a), int(t)) for u, a, t in read_csv("clicks.csv", header=True)]
by_user = {}
for u, a, t in rows:
    by_user.setdefault(u, []).append((t, a))

out = []
for u, evs in by_user.items():
    for start, end, idx in sessions([t for t, _ in evs], GAP):
        out.append((end, u.encode(), (u, len(idx), sum(evs[i][1] for i in idx), start, end)))
out.sort()
got = {(r[0], r[3]): r for _, _, r in out}
assert got[("u1", 100000)] == ("u1", 3, 22, 100000, 113000)
assert ("u1", 120000) in got and got[("u1", 125000)][4] == 134999
assert sum(1 for _, _, r in out if r[0] == "u4") == 4
print_result(["user_id", "n", "total", "WINDOW_START", "WINDOW_END"], [r for _, _, r in out])
