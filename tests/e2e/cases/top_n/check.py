"""Checks top_n's four queries against the generated rows grouped here:
each window's groups sorted by the ORDER BY items, ties by the group keys
ascending (the usual order), cut to LIMIT."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import check_tagged, choice, col_value, csv_line, row_hash, sequence, tumble_start, uniform

SIZE = 10000
rows = []
for i in range(5000):
    h = row_hash(17, i)
    rows.append((uniform(col_value(h, 0), 0, 29), choice(col_value(h, 1), ["a", "bb", "c"]),
                 uniform(col_value(h, 2), 1, 20), tumble_start(sequence(i, 0, 7), SIZE) + SIZE))


def groups(key):
    out = {}
    for k, g, v, w in rows:
        out.setdefault((w, key(k, g)), []).append(v)
    return out


def per_window(items, sort_key, limit=None):
    wins = {}
    for (w, key), vs in items.items():
        wins.setdefault(w, []).append((key, vs))
    out = []
    for w in sorted(wins):
        ws = sorted(wins[w], key=sort_key)
        out += [(w, key, vs) for key, vs in ws[:limit]]
    return out


by_k = groups(lambda k, g: k)
q1 = per_window(by_k, lambda t: (-sum(t[1]), t[0]), 3)
want1 = ["k,total,n,WINDOW_END"] + [csv_line((k, sum(vs), len(vs), w)) for w, k, vs in q1]
by_gk = groups(lambda k, g: (g.encode(), k))
# ORDER BY 3 (n), g DESC; ties by g, k ascending (g's are then equal)
q2 = per_window(by_gk, lambda t: (len(t[1]), [-b for b in t[0][0]] + [1000], t[0][1]))
want2 = ["g,k,n,WINDOW_END"] + [csv_line((gk[0].decode(), gk[1], len(vs), w)) for w, gk, vs in q2]
q3 = per_window(by_k, lambda t: (max(t[1]) - min(t[1]), -t[0]), 2)
want3 = ["k,spread,WINDOW_END"] + [csv_line((k, max(vs) - min(vs), w)) for w, k, vs in q3]
q4 = per_window(by_k, lambda t: t[0], 4)
want4 = ["k,n,WINDOW_END"] + [csv_line((k, len(vs), w)) for w, k, vs in q4]
assert len(q1) == 3 * 4 and len(q4) == 4 * 4, (len(q1), len(q4))
check_tagged(sys.argv[1], {"q1": want1, "q2": want2, "q3": want3, "q4": want4})
