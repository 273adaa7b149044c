#!/usr/bin/env python3
"""Stream-stream joins against a pair-by-pair evaluation.

A windowed join keeps each window's rows of both sides and, when the
window closes, hashes the right side on the join key and probes it with
every left row (docs/design.md, "Joins"). This test checks that this gives
what the language defines: every pair of rows with equal keys that fall in
the same window, on data that exercises what a hash join could get wrong:
many rows per key (up to hundreds of pairs), keys in one hash chain, a key
of one side missing from the other, VARCHAR keys of different lengths (and
one a prefix of another), DOUBLE keys with -0 and 0 (equal) and HOPPING
windows in which a row is in several windows, and rows behind the
watermark, late for some of their windows (a row goes into its windows
not ended by W(i) of its own file, docs/guarantees.md).

Every case is compiled fused and --no-fuse and run on 1, 2 and 3 ranks;
each output is compared with a reference computed here from the same
files.

    python3 tests/joins/run.py [case ...]      (from the repository root)

Environment: AIRC (build/airc), MPIRUN (mpirun), RANKS ("1 2 3"),
JOINS_TIMEOUT (seconds per run, 60), KEEP=1 keeps the work directory.
"""
import functools
import math
import os
import random
import sys

ROOT = os.getcwd()
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e", "lib"))
from airref import file_watermarks, hop_starts  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "tests"))
from lib import Harness  # noqa: E402

AIRC = os.path.abspath(os.environ.get("AIRC", "build/airc"))
MPIRUN = os.environ.get("MPIRUN", "mpirun")
RANKS = [int(r) for r in os.environ.get("RANKS", "1 2 3").split()]
TIMEOUT = float(os.environ.get("JOINS_TIMEOUT", "60"))
BOUND = 300  # the WATERMARK bound of both streams, ms

rng = random.Random(20261205)


def make_rows(n, keys, late):
    """(key, value, ts): mostly in time order, some out of order within the
    bound, a share `late` far behind."""
    rows, top = [], 100000
    for _ in range(n):
        r = rng.random()
        if r < 1 - late - 0.1:
            top += rng.choice((0, 1, 5, 20, 60))
            ts = top
        elif r < 1 - late:
            ts = top - rng.randrange(BOUND)
        else:
            ts = top - BOUND - rng.randrange(2000)
        rows.append((rng.choice(keys), rng.randrange(-1000, 1000), ts))
    return rows


def fmt(v):
    if v == "":
        return '""'  # an empty string; an unquoted empty field is NULL
    if isinstance(v, float):
        for p in (15, 16, 17):
            t = "%.*g" % (p, v)
            if float(t) == v:
                return t
    return str(v)


def csv_field(v):
    """None is NULL, an empty field; the empty string is quoted."""
    if v is None:
        return ""
    if v == "":
        return '""'
    return repr(v) if isinstance(v, float) else str(v)


def windows(rows, size, adv):
    """Per row, the starts of the windows it goes into: those its file's
    watermark W(i) had not ended when it was read."""
    wms = file_watermarks([r[2] for r in rows], BOUND)
    return [[s for s in hop_starts(ts, size, adv) if wm is None or s + size > wm]
            for (_, _, ts), wm in zip(rows, wms)]


def cmp_out(a, b):
    """The collector's order: WINDOW_END, then the output columns (numbers
    as numbers, -0 before 0; strings by their bytes)."""
    for x, y in zip(a, b):
        if x != y:
            return -1 if x < y else 1
        if isinstance(x, float) and math.copysign(1, x) != math.copysign(1, y):
            return -1 if math.copysign(1, x) < 0 else 1
    return 0


def reference(left, right, size, adv):
    lw, rw = windows(left, size, adv), windows(right, size, adv)
    index = {}
    for (k, y, ts), starts in zip(right, rw):
        for s in starts:
            index.setdefault((s, k), []).append(y)
    out = []
    for (k, x, ts), starts in zip(left, lw):
        if k is None:  # a NULL key equals nothing
            continue
        for s in starts:
            for y in index.get((s, k), ()):
                out.append((s + size, k, x, y))
    out.sort(key=functools.cmp_to_key(cmp_out))
    return [(k, x, y, we) for we, k, x, y in out]


def cases():
    """(name, key type, left rows, right rows, size, adv)."""
    out = []
    ints = list(range(40)) + [1 << 40, -(1 << 40)]
    out.append(("bigint_tumbling", "BIGINT", make_rows(1500, ints, 0.05), make_rows(1500, ints[5:] + [999], 0.05),
                1000, 1000))
    hot = [0, 1, 2]  # few keys: long runs of equal keys, hundreds of pairs each
    out.append(("bigint_hot_hopping", "BIGINT", make_rows(600, hot, 0.05), make_rows(600, hot + [3], 0.05),
                600, 200))
    strs = ["a", "ab", "abc", "b", "", "zz", "x" * 12, "y" * 11, None]
    out.append(("varchar_hopping", "VARCHAR(12)", make_rows(1200, strs, 0.05), make_rows(1200, strs[1:], 0.05),
                900, 300))
    dbls = [0.0, -0.0, 1.5, -2.25, 1e300, 3.0]
    out.append(("double_tumbling", "DOUBLE", make_rows(1000, dbls, 0.05), make_rows(1000, dbls[1:], 0.05),
                700, 700))
    return out


QUERY = """-- stream-stream join case {name} (tests/joins/run.py)
CREATE STREAM a (k {kt}, x BIGINT, ts TIMESTAMP,
                 WATERMARK FOR ts AS ts - INTERVAL '{bound}' MILLISECOND)
  WITH (source = 'csv', path = 'a.csv', header = true);
CREATE STREAM b (k {kt}, y BIGINT, ts TIMESTAMP,
                 WATERMARK FOR ts AS ts - INTERVAL '{bound}' MILLISECOND)
  WITH (source = 'csv', path = 'b.csv', header = true);
SELECT a.k, a.x, b.y, WINDOW_END
FROM a JOIN b ON a.k = b.k
WINDOW {window};
"""


def main():
    wanted = sys.argv[1:]
    h = Harness("joins", detail_lines=25)
    with h.workdir() as work:
        all_cases = cases()
        for w in wanted:
            if w not in [c[0] for c in all_cases]:
                h.fail(w + ": no such case")
        for name, kt, left, right, size, adv in all_cases:
            if wanted and name not in wanted:
                continue
            d = os.path.join(work, name)
            os.mkdir(d)
            for fn, col, rows in (("a.csv", "x", left), ("b.csv", "y", right)):
                with open(os.path.join(d, fn), "w") as f:
                    f.write("k,%s,ts\n" % col + "".join("%s,%d,%d\n" % (csv_field(k), v, ts) for k, v, ts in rows))
            window = ("TUMBLING (SIZE %d MILLISECONDS)" % size if size == adv else
                      "HOPPING (SIZE %d MILLISECONDS, ADVANCE BY %d MILLISECONDS)" % (size, adv))
            with open(os.path.join(d, "query.airq"), "w") as f:
                f.write(QUERY.format(name=name, kt=kt, bound=BOUND, window=window))
            ref = reference(left, right, size, adv)
            nlate = sum(1 for s in windows(left, size, adv) + windows(right, size, adv) if not s)
            if len(ref) < 100 or nlate == 0:
                h.fail("%s: too few pairs (%d) or no late row (%d): a weak test" % (name, len(ref), nlate))
                continue
            expected = ["k,x,y,WINDOW_END"] + [",".join(fmt(v) for v in r) for r in ref]
            h.check_variants(AIRC, MPIRUN, d, name, expected, RANKS, TIMEOUT,
                             " (%d pairs, %d rows late for every window)" % (len(ref), nlate))
    return h.summary()


if __name__ == "__main__":
    sys.exit(main())
