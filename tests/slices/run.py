#!/usr/bin/env python3
"""Sliced HOPPING windows against a per-window evaluation.

airc keeps overlapping HOPPING windows as shared slices (runtime/slide.c,
docs/design.md "Sliding windows share slices"). This test checks that the
slices give what the language defines per window, on data that exercises
what slicing could get wrong: random window shapes (advance dividing the
size or not, 2 to 60 windows per row), rows out of order within the
WATERMARK bound, and rows behind the watermark, which are late for some of
their windows and not for others (a row goes into the windows of its that
have not ended by W(i), docs/guarantees.md), or for all of them.

Every case is compiled fused and --no-fuse and run on 1, 2 and 3 ranks;
each output is compared with a reference computed here, window by window,
from the same file (Python's exact math.fsum for DOUBLE sums). A case whose
reference has no partly late row fails: it could not tell a slice from a
window.

    python3 tests/slices/run.py [case ...]      (from the repository root)

Environment: AIRC (build/airc), MPIRUN (mpirun), RANKS ("1 2 3"),
SLICES_TIMEOUT (seconds per run, 60), KEEP=1 keeps the work directory.
"""
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
TIMEOUT = float(os.environ.get("SLICES_TIMEOUT", "60"))
BOUND = 500  # the WATERMARK bound, ms

rng = random.Random(20261204)


def make_rows(n, size):
    """(k, x, d, ts): mostly in order, some within the bound, some far
    behind (late for some or all of their windows)."""
    rows, top = [], 1000000
    for _ in range(n):
        r = rng.random()
        if r < 0.80:
            top += rng.choice((0, 7, 40, 130, 260))
            ts = top
        elif r < 0.90:
            ts = top - rng.randrange(BOUND)            # out of order, not late
        elif r < 0.98:
            ts = top - BOUND - rng.randrange(size)     # behind W(i): late for its earliest windows
        else:
            ts = top - BOUND - size - rng.randrange(2 * size)  # late for every window, mostly
        rows.append((rng.randrange(6), rng.randrange(-50, 100), rng.randrange(1, 400) / 4, ts))
    return rows


def fmt(v):
    """A value as the csv output writes it: a DOUBLE with the fewest of 15,
    16 or 17 significant digits that read back (docs/language.md)."""
    if isinstance(v, float):
        for p in (15, 16, 17):
            t = "%.*g" % (p, v)
            if float(t) == v:
                return t
    return str(v)


def windows_of(ts, wm, size, adv):
    """Starts of the windows of a row at ts it goes into: those not ended by wm."""
    return [s for s in hop_starts(ts, size, adv) if wm is None or s + size > wm]


def reference(rows, size, adv, keyed, having=None):
    wms = file_watermarks([r[3] for r in rows], BOUND)
    groups, partly = {}, 0
    for (k, x, d, ts), wm in zip(rows, wms):
        starts = windows_of(ts, wm, size, adv)
        if starts and len(starts) < len(hop_starts(ts, size, adv)):
            partly += 1
        for s in starts:
            groups.setdefault((s, k if keyed else None), []).append((x, d, ts))
    out = []
    for (s, k), g in groups.items():
        n = len(g)
        sx = sum(x for x, _, _ in g)
        mn = min(x for x, _, _ in g)
        mx = max(d for _, d, _ in g)
        sd = math.fsum(d for _, d, _ in g)
        avg = sd / n
        if having and not having(n, sx):
            continue
        vals = ((k,) if keyed else ()) + (n, sx, mn, mx, sd, avg, s + size)
        out.append((s + size, k if keyed else 0, vals))
    out.sort(key=lambda t: (t[0], t[1]))
    return [v for _, _, v in out], partly


DECL = """CREATE STREAM s (k BIGINT, x BIGINT, d DOUBLE, ts TIMESTAMP,
                 WATERMARK FOR ts AS ts - INTERVAL '{bound}' MILLISECOND)
  WITH (source = 'csv', path = 's.csv', header = true);
"""
AGGS = "COUNT(*) AS n, SUM(x) AS sx, MIN(x) AS mn, MAX(d) AS mx, SUM(d) AS sd, AVG(d) AS ad, WINDOW_END"
HDR = ["n", "sx", "mn", "mx", "sd", "ad", "WINDOW_END"]


def window(size, adv):
    return "WINDOW HOPPING (SIZE %d MILLISECONDS, ADVANCE BY %d MILLISECONDS)" % (size, adv)


def cases():
    """(name, query, rows, size, adv, keyed, having)."""
    out = []
    shapes = [(1000, 100), (1000, 300), (600, 400), (3000, 50), (700, 350), (990, 45)]
    for i in range(4):  # random ones
        adv = rng.randrange(20, 400)
        shapes.append((adv * rng.randrange(2, 12) + rng.randrange(adv), adv))
    for size, adv in shapes:
        rows = make_rows(1500, size)
        q = "SELECT k, %s FROM s GROUP BY k %s;" % (AGGS, window(size, adv))
        out.append(("keyed_%d_%d" % (size, adv), q, rows, size, adv, True, None))
    size, adv = 1200, 200
    rows = make_rows(1500, size)
    out.append(("global_%d_%d" % (size, adv), "SELECT %s FROM s %s;" % (AGGS, window(size, adv)),
                rows, size, adv, False, None))
    out.append(("having_%d_%d" % (size, adv),
                "SELECT k, %s FROM s GROUP BY k %s HAVING COUNT(*) > 3 AND SUM(x) > 0;" % (AGGS, window(size, adv)),
                rows, size, adv, True, lambda n, sx: n > 3 and sx > 0))
    # through a derived stream: the sliced partial runs in a consumer, on
    # each row's carried watermark
    out.append(("derived_%d_%d" % (size, adv),
                "CREATE STREAM m AS SELECT k, x, d, ts FROM s;\nSELECT k, %s FROM m GROUP BY k %s;"
                % (AGGS, window(size, adv)), rows, size, adv, True, None))
    return out


def main():
    wanted = sys.argv[1:]
    h = Harness("slices", detail_lines=25)
    with h.workdir() as work:
        all_cases = cases()
        for w in wanted:
            if w not in [c[0] for c in all_cases]:
                h.fail(w + ": no such case")
        for name, query, rows, size, adv, keyed, having in all_cases:
            if wanted and name not in wanted:
                continue
            d = os.path.join(work, name)
            os.mkdir(d)
            with open(os.path.join(d, "s.csv"), "w") as f:
                f.write("k,x,d,ts\n" + "".join("%d,%d,%s,%d\n" % (k, x, repr(dd), ts) for k, x, dd, ts in rows))
            with open(os.path.join(d, "query.airq"), "w") as f:
                f.write("-- sliced windows case %s (tests/slices/run.py)\n%s%s\n"
                        % (name, DECL.format(bound=BOUND), query))
            ref, partly = reference(rows, size, adv, keyed, having)
            if partly == 0 or len(ref) < 5:
                h.fail("%s: the data has no row late for only some of its windows: a test that cannot fail" % name)
                continue
            expected = [",".join((["k"] if keyed else []) + HDR)] + [",".join(fmt(x) for x in v) for v in ref]
            h.check_variants(AIRC, MPIRUN, d, name, expected, RANKS, TIMEOUT,
                             " (%d rows, %d partly late)" % (len(ref), partly))
    return h.summary()


if __name__ == "__main__":
    sys.exit(main())
