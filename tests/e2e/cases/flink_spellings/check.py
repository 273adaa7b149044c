"""Checks flink_spellings' standard output against a Python reference.
q1: per 10 s window (TUMBLE) and user name (the LEFT JOIN's: NULL for a
user missing from the table or NULL), in window then name order, NULL
last: COUNT(*), COUNT(user), SUM(price) (exact, math.fsum; NULL when all
are NULL), window_time = window_end - 1. q3: the Map over per_url (HOP, 5 s
slide, 10 s size: COUNT(*), MAX(price) per url and window), rows with
n >= 12 and window_start >= 10000, in any order (compared sorted)."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import check_tagged_sets, csv_line, hop_starts, read_csv, tumble_start

here = os.path.dirname(os.path.abspath(__file__))
users = {i: n for i, n in read_csv(os.path.join(here, "users.csv"), header=True)}
clicks = [(u or None, url, float(p) if p else None, int(ts))
          for u, url, p, ts in read_csv(os.path.join(here, "clicks.csv"), header=True)]

groups = {}
for user, _, price, ts in clicks:
    name = users.get(user) if user is not None else None
    s = tumble_start(ts, 10000)
    groups.setdefault((s, name is None, name or ""), []).append((user, price))
q1 = ["window_start,window_end,name,n,known,total,window_time"]
for (s, _, _), rows in sorted(groups.items()):
    name = next(iter({users.get(u) if u is not None else None for u, _ in rows}))
    prices = [p for _, p in rows if p is not None]
    q1.append(csv_line((s, s + 10000, name, len(rows), sum(1 for u, _ in rows if u is not None),
                        math.fsum(prices) if prices else None, s + 9999)))

hop = {}
for _, url, price, ts in clicks:
    for s in hop_starts(ts, 10000, 5000):
        hop.setdefault((url, s), []).append(price)
q3 = []
for (url, s), prices in hop.items():
    known = [p for p in prices if p is not None]
    if len(prices) >= 12 and s >= 10000:
        q3.append(csv_line((url, s, s + 10000, len(prices), max(known) if known else None)))
assert len(q1) > 20 and any(",," in line for line in q1[1:]) and len(q3) > 20

check_tagged_sets(sys.argv[1], {"q1": q1, "q3": ["url,window_start,wend,n,top"] + q3}, unordered=("q3",))
