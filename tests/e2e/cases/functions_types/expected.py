"""Reference for functions_types: LEAST, GREATEST, ABS and LENGTH computed
here from data.csv. DOUBLEs are ordered as MIN and MAX order them (NaN
above every number, -0 below +0; the first of equal arguments is kept),
VARCHARs by their UTF-8 bytes, BOOLEAN false < true, TIMESTAMP as ms."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import read_csv


def dkey(x):
    if math.isnan(x):
        return (1, 0.0, 0)
    return (0, x, 0 if math.copysign(1.0, x) < 0 else 1)


def fmt(v):
    """airref's formatter refuses NaN, -0, exponents and empty strings, which
    this case is about: written here as air_write_double and air_write_str
    write them (nan, -0, %.15g to %.17g, the first that reads back; an
    empty string quoted, as an unquoted empty field is NULL). No other value
    here needs quotes."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        for p in (15, 16, 17):
            text = "%.*g" % (p, v)
            if float(text) == v:
                return text
        return text
    if v == "":
        return '""'
    assert not isinstance(v, str) or not any(c in v for c in ',"\r\n'), v
    return str(v)


def skey(s):
    return s.encode()


out = []
for i, b, d, s, t, f, u, ts in read_csv("data.csv", header=True):
    i, b, d, f, u, ts = int(i), int(b), float(d), f == "true", int(u), int(ts)
    if not (min(s, t, key=skey).encode() < b"q" or max(i, 0) == 0):
        continue
    out.append((i, min(i, 3), max(i, b, 5), min(b, i),
                min(d, 0.5, key=dkey), max(d, float(i), key=dkey), max(d, -0.0, key=dkey),
                min(d, 0.0, key=dkey),
                min(s, t, key=skey), max(s, t, "m", key=skey), max(s, "b", key=skey),
                max(f, False), min(f, True), max(ts, u), min(u, ts, u),
                abs(i), abs(b), abs(d), len(max(s, t, key=skey).encode()), len(s.encode())))
print(",".join(["i", "li", "gib", "lbi", "ld", "gdi", "gdz", "ldz", "ls", "gs", "gsb", "gf", "lf",
                "gts", "lts", "ai", "ab", "ad", "lg", "len"]))
for row in out:
    print(",".join(fmt(v) for v in row))
