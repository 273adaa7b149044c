"""Reference for functions_sql: every function computed here by the rule
docs/language.md gives it, over data.csv. Rows leave in any order (a Map),
so the harness sorts the lines (the file `unordered`)."""
import math
import re
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import read_csv


def upper(s):
    return "".join(chr(ord(c) - 32) if "a" <= c <= "z" else c for c in s)


def lower(s):
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s)


def substr(s, start, length=None):
    end = len(s) + 1 if length is None else (start if length < 0 else start + length)
    lo, hi = max(start, 1), min(end, len(s) + 1)
    return s[lo - 1:hi - 1] if hi > lo else ""


def replace(s, a, b):
    return s.replace(a, b) if a else s


def split_index(s, d, i):
    parts = s.split(d)
    return parts[i] if 0 <= i < len(parts) else None  # NULL past the end, as Flink's


def like(s, p):
    # by dynamic programming, independent of the runtime's greedy matcher
    m = [[False] * (len(p) + 1) for _ in range(len(s) + 1)]
    m[0][0] = True
    for j in range(1, len(p) + 1):
        m[0][j] = m[0][j - 1] and p[j - 1] == "%"
    for i in range(1, len(s) + 1):
        for j in range(1, len(p) + 1):
            if p[j - 1] == "%":
                m[i][j] = m[i][j - 1] or m[i - 1][j]
            else:
                m[i][j] = m[i - 1][j - 1] and (p[j - 1] == "_" or p[j - 1] == s[i - 1])
    return m[len(s)][len(p)]


def imod(a, b):
    if b == 0:
        return 0
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def cround(v):
    """C's round: half away from zero"""
    a = abs(v)
    r = math.floor(a)
    if a - r >= 0.5:
        r += 1
    return math.copysign(r, v)


def round_places(x, d):
    if d == 0:
        return cround(x)
    p = 10.0 ** abs(d)
    return cround(x * p) / p if d > 0 else cround(x / p) * p


def round_int(x, d):
    p = 10 ** (-d)
    q = (abs(x) // p) * p
    if abs(x) - q >= p // 2:  # p is a power of ten: half of it is exact
        q += p
    return q if x >= 0 else -q


def locate(sub, s, start):
    start = max(start, 1)
    return 0 if start > len(s) + 1 else s.find(sub, start - 1) + 1


def group(m, g):
    return m.group(g) if m else None  # NULL without a match (or a group that took no part)


def fmt(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        for p in (15, 16, 17):
            text = "%.*g" % (p, v)
            if float(text) == v:
                break
        return text
    if v is None:
        return ""  # NULL
    if isinstance(v, str):
        if not v or v[0] == " " or v[-1] == " " or any(c in v for c in ',"\r\n'):  # "": the empty string
            return '"' + v.replace('"', '""') + '"'
        return v
    return str(v)


cols = ["id", "up", "lo", "tr", "len", "sub", "sub2", "rep", "cat", "cat2", "part", "lk", "nlk", "md", "mdx", "rx",
        "r0", "rid", "fl", "ce", "cn", "pw", "sq", "ln", "ex", "cs", "rl", "rx", "ru", "pos", "loc"]
print(",".join(cols))
for i, name, x, n, ts in read_csv("data.csv", header=True):
    i, x, n = int(i), float(x), int(n)
    if not (like(upper(name), "%A%") or imod(i, 3) == 0):
        continue
    row = (i, upper(name), lower(name), name.strip(" "), len(name.strip(" ")), substr(name, n, 3), substr(name, 2),
           replace(name, "-", "+="), name + "|" + str(i), name.strip(" ") + "#" + lower(name), split_index(name, "-", n),
           like(name, "%a_%"), not like(name, "A%"), imod(i, n) if n else None, math.fmod(x, 2.5), round_places(x, 1),
           round_places(x, 0), round_int(i * 37, -2), float(math.floor(x)), -float(math.floor(-x)), n, math.pow(x, 2),
           math.sqrt(abs(x)), math.log(abs(x) + 1), math.exp(x / 10),
           {0: "zero", 1: "one"}.get(imod(i, 3), "other"),
           re.search(r"^[A-Za-z]+-", name) is not None, group(re.search(r"([a-z]+)-([a-z]+)", name), 2),
           group(re.search(r"[A-Z][a-z]*", name), 0), name.find("-") + 1, locate("a", name, n))
    print(",".join(fmt(v) for v in row))
