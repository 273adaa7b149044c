"""Reference for split_two_queries. `python3 expected.py` prints the
expected standard output (rows with v < 50, 5 s windows);
`python3 expected.py big.csv` the expected sink file (rows with v >= 50,
10 s windows).

By hand: ts = 5*i, so a 5 s window holds 1000 rows and a 10 s window 2000;
rows 0..7999 give 8 windows on stdout (ends 5000 .. 40000) and 4 in the
sink (starts 0 .. 30000); every row is in exactly one of the two outputs,
so their counts add up to 8000.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import choice, col_value, print_result, row_hash, sequence, tumble_start, uniform

SEED, LIMIT = 77, 8000
low, high = {}, {}
for i in range(LIMIT):
    h = row_hash(SEED, i)
    k = choice(col_value(h, 0), ("a", "b", "c", "d"))
    v = uniform(col_value(h, 1), 0, 99)
    ts = sequence(i, 0, 5)
    if v < 50:
        a = low.setdefault((tumble_start(ts, 5000) + 5000, k), [0, 0])
        a[0] += 1
        a[1] += v
    else:
        a = high.setdefault((tumble_start(ts, 10000), k), [0, v])
        a[0] += 1
        a[1] = max(a[1], v)

assert sum(n for n, _ in low.values()) + sum(n for n, _ in high.values()) == LIMIT
assert sorted({w for w, _ in low}) == list(range(5000, 40001, 5000))
assert sorted({w for w, _ in high}) == [0, 10000, 20000, 30000]
if sys.argv[1:] == ["big.csv"]:
    print_result(["k", "top", "n", "WINDOW_START"],
                 [(k, m, n, ws) for (ws, k), (n, m) in sorted(high.items())])
else:
    assert not sys.argv[1:], sys.argv
    print_result(["k", "n", "total", "WINDOW_END"],
                 [(k, n, t, we) for (we, k), (n, t) in sorted(low.items())])
