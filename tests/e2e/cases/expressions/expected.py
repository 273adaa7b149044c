"""Reference for expressions: each row of r.csv is its own group (ids are
distinct), so each output row is the expressions of one input row, in id
order within each 10 s window. C semantics from airref: wrap() for INT
(32-bit) and BIGINT (64-bit) results, c_div / c_mod truncating toward zero
with x / 0 NULL; CAST DOUBLE -> INT truncates toward zero and CAST BIGINT ->
INT keeps the low 32 bits; DOUBLE / 0 is +-inf ("inf", "-inf"). A result
that wraps onto the smallest INT (-2^31) or BIGINT (-2^63) is NULL: those
values are the NULL of their type (docs/language.md, NULL).

By hand, row 102 (i 50000, b 4000000000, d 2.75, z 0):
  sign pos, di 2, bi -294967296 (4e9 - 2^32), iq 6250.125, ii_long 2500000000,
  small false, named false, mid false, zout false, m7 50000 % 7 = 6,
  m1000 0, ii 2500000000 - 2^32 = -1794967296,
  bb 16e18 - 2^64 = -2446744073709551616, b2 8000000001, q 0, dq inf,
  b3 1333333333, ai 50000, ad 2.75, lo 0, hi 4000000000, dhi 2.75, len 3,
  zz 0, n 1, WINDOW_END 10000.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import c_div, c_mod, print_result, read_csv, tumble_start, wrap

SIZE = 10000
INF = float("inf")


def nwrap(x, bits):
    v = wrap(x, bits)
    return None if v == -(2 ** (bits - 1)) else v


def ddiv(a, b):
    if b == 0:
        assert a != 0
        return INF if a > 0 else -INF
    return a / b


out = []
for id_, name, i, b, d, z, ts in read_csv("r.csv", header=True):
    id_, i, b, d, z, ts = int(id_), int(i), int(b), float(d), int(z), int(ts)
    out.append((
        tumble_start(ts, SIZE) + SIZE, id_,
        "pos" if i > 0 else "zero" if i == 0 else "neg",
        int(d), nwrap(b, 32), i / 8 + 0.125, nwrap(i * i, 64),
        i in (1, 2, 3), name in ("ab", "cd"),
        -1.5 <= d <= 2.5, not (0 <= z <= 2),
        c_mod(i, 7), c_mod(b, 1000),
        nwrap(i * i, 32), nwrap(b * b, 64), nwrap(b * 2 + 1, 64),
        c_div(i, z) if z else None, ddiv(d, z), c_div(b, 3),
        abs(i), abs(d), min(i, z), max(b, 0), max(d, 0.5), len(name.encode()),
        z * 10 if name == "long one" else z,
        1,
    ))
out.sort()
# stderr_grep expects "division by zero 7" under --stats: 7 rows have z = 0,
# each divides i by z once (14 if DOUBLE divisions by zero count too).
assert sum(1 for r in read_csv("r.csv", header=True) if int(r[5]) == 0) == 7
rows = [r[1:] + (r[0],) for r in out]
r102 = next(r for r in rows if r[0] == 102)
assert r102 == (102, "pos", 2, -294967296, 6250.125, 2500000000, False, False, False, False,
                6, 0, -1794967296, -2446744073709551616, 8000000001, None, INF, 1333333333,
                50000, 2.75, 0, 4000000000, 2.75, 3, 0, 1, 10000), r102
print_result(["id", "sign", "di", "bi", "iq", "ii_long", "small", "named", "mid", "zout",
              "m7", "m1000", "ii", "bb", "b2", "q", "dq", "b3", "ai", "ad", "lo", "hi",
              "dhi", "len", "zz", "n", "WINDOW_END"], rows)
