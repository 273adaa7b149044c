"""Reference for double_exact, from the rules in docs/guarantees.md
("DOUBLE results"): SUM is the exact sum of the values rounded once to the
nearest double (fractions.Fraction, whose float() rounds correctly); NaN if
a NaN or both infinities were added, else the infinity; an exact zero is
+0. AVG is that SUM divided by the count. MIN and MAX order NaN above every
number and -0 below +0. As a group key, -0 is 0 and every NaN one key.
The WHERE v <> 123.456 keeps NaN rows (NaN <> x is true).

Doubles are written in the shortest of %.15g, %.16g, %.17g that reads
back, nan, inf, -inf; -0 as "-0".

By hand: k0's values in one window include 1e15 and -1e15 with 0.1 between
them; added left to right they leave 0.125 where the exact sum has 0.1.
"""
import math
import os
import sys
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import fmt_str, read_csv, tumble_start

SIZE = 2000


def fmt(v):
    if v != v:
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == 0:
        return "-0" if math.copysign(1, v) < 0 else "0"
    for p in (15, 16, 17):
        s = "%.*g" % (p, v)
        if float(s) == v:
            return s
    return s


def exact_sum(vs):
    if any(v != v for v in vs) or (math.inf in vs and -math.inf in vs):
        return math.nan
    if math.inf in vs:
        return math.inf
    if -math.inf in vs:
        return -math.inf
    return float(sum(Fraction(v) for v in vs))


def order_key(v):
    """NaN above every number, -0 below +0."""
    return (1, 0, 0) if v != v else (0, v, math.copysign(1, v))


def group_key(v):
    return "nan" if v != v else (0.0 if v == 0 else v)


rows = [(k, float(v), float(g), int(t)) for k, v, g, t in read_csv("data.csv", header=True)]

if len(sys.argv) > 1 and sys.argv[1] == "by_g.csv":
    acc = {}
    for k, v, g, t in rows:
        if not (v != v or v != 123.456):
            continue
        acc.setdefault((tumble_start(t, SIZE) + SIZE, group_key(g)), []).append(v)
    # Rows of a window ordered by the key: numbers first, NaN last (as MIN/MAX order it).
    out = sorted(acc.items(), key=lambda kv: (kv[0][0], order_key(math.nan if kv[0][1] == "nan" else kv[0][1])))
    print("g,n,s,WINDOW_END")
    for (wend, g), vs in out:
        print("%s,%d,%s,%d" % (fmt(math.nan if g == "nan" else g), len(vs), fmt(exact_sum(vs)), wend))
    sys.exit(0)

acc = {}
for k, v, g, t in rows:
    acc.setdefault((tumble_start(t, SIZE) + SIZE, k), []).append(v)
print("k,n,s,a,lo,hi,WINDOW_END")
seen_order_dependent = False
for (wend, k), vs in sorted(acc.items(), key=lambda kv: (kv[0][0], kv[0][1].encode())):
    s = exact_sum(vs)
    naive = 0.0
    for v in vs:
        naive += v
    seen_order_dependent |= s == s and naive != s
    lo = min(vs, key=order_key)
    hi = max(vs, key=order_key)
    print("%s,%d,%s,%s,%s,%s,%d" % (fmt_str(k), len(vs), fmt(s), fmt(s / len(vs)), fmt(lo), fmt(hi), wend))
assert seen_order_dependent, "the data must make left-to-right sums differ from exact ones"
