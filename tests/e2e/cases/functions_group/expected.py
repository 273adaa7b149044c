"""Reference for functions_group: the generated rows grouped by |k| and
UPPER(page) || '-' || v mod 3 per 10 s window, kept when the tag is longer
than 5 bytes or |k| is 0; rows ordered by WINDOW_END, then the keys."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import choice, col_value, print_result, row_hash, sequence, tumble_start, uniform

SEED, LIMIT, SIZE = 9, 3000, 10000
pages = ["home", "Cart", "pay", "search"]
groups = {}
for i in range(LIMIT):
    h = row_hash(SEED, i)
    k = uniform(col_value(h, 0), -5, 5)
    page = choice(col_value(h, 1), pages)
    v = uniform(col_value(h, 2), 1, 100)
    ts = sequence(i, 0, 10)
    tag = page.upper() + "-" + str(v % 3)
    g = groups.setdefault((tumble_start(ts, SIZE) + SIZE, abs(k), tag.encode()), [0, 0])
    g[0] += 1
    g[1] += v


def cround1(x):
    a = abs(x * 10)
    r = math.floor(a)
    if a - r >= 0.5:
        r += 1
    return math.copysign(r, x) / 10


rows = [(a, tag.decode(), n, cround1(s / n), s % 7, w) for (w, a, tag), (n, s) in sorted(groups.items())
        if len(tag) > 5 or a == 0]
assert len(rows) > 100 and any(r[0] == 0 for r in rows) and any(r[0] == 5 for r in rows)
print_result(["a", "tag", "n", "avg_v", "m", "WINDOW_END"], rows)
