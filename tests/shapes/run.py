#!/usr/bin/env python3
"""Query shapes: many ways of putting the operators together, each compiled
fused and --no-fuse and run on 1, 2 and 3 ranks, every output compared with
a reference computed here, in Python, from the same generated data.

The shapes are what a user writes once one query is not enough: filters
before, after and across a stream-stream join, a map before an aggregate,
derived streams (windowed or not) into joins and aggregates, a table join
with a filter on the table's columns, HAVING, hopping and session windows
over derived streams. A shape that compiles to C that does not compile, or
whose fused and unfused plans disagree, fails here.

The references follow the language as documented (README "The language in
one page", "Decisions"): tumbling window [s, s + size) with s a multiple of
size, hopping windows every advance, sessions [first, last + gap); a joined
row's event time is the later of the two, a windowed result row's the latest
of the rows behind it; rows of a window ordered by WINDOW_END, then the
group key (joins: the output columns). The data is in event-time order per
stream, so no row is late.

    python3 tests/shapes/run.py [shape ...]     (from the repository root)

Environment: AIRC (build/airc), MPIRUN (mpirun), RANKS ("1 2 3"),
SHAPES_TIMEOUT (seconds per run, 60), KEEP=1 keeps the work directory.
"""
import os
import random
import shutil
import subprocess
import sys

ROOT = os.getcwd()
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e", "lib"))
from airref import csv_line, hop_starts, sessions  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "tests"))
from lib import Harness, unified_diff  # noqa: E402

AIRC = os.path.abspath(os.environ.get("AIRC", "build/airc"))
MPIRUN = os.environ.get("MPIRUN", "mpirun")
RANKS = [int(r) for r in os.environ.get("RANKS", "1 2 3").split()]
TIMEOUT = float(os.environ.get("SHAPES_TIMEOUT", "60"))
SIZE = 10000

# --------------------------------------------------------------------------
# Data: two streams a(k, x, ts) and b(k, y, ts) in event-time order, and a
# table t(k, name) that lacks key 4 (rows of a with k = 4 are unmatched).
# --------------------------------------------------------------------------

rng = random.Random(20261203)


def make_stream(n, start):
    rows, ts = [], start
    for _ in range(n):
        ts += rng.choice((0, 150, 400, 900, 1700))
        rows.append((rng.randrange(5), rng.randrange(10), ts))
    return rows


A = make_stream(400, 1000)
B = make_stream(300, 1500)
T = [(k, "k%d" % k) for k in range(4)]

DECLS = """CREATE STREAM a (k BIGINT, x BIGINT, ts TIMESTAMP)
  WITH (source = 'csv', path = 'a.csv', header = true);
CREATE STREAM b (k BIGINT, y BIGINT, ts TIMESTAMP)
  WITH (source = 'csv', path = 'b.csv', header = true);
CREATE TABLE t (k BIGINT, name VARCHAR(8), PRIMARY KEY (k))
  WITH (source = 'csv', path = 't.csv', header = true);
"""


def write_data(d):
    with open(os.path.join(d, "a.csv"), "w") as f:
        f.write("k,x,ts\n" + "".join("%d,%d,%d\n" % r for r in A))
    with open(os.path.join(d, "b.csv"), "w") as f:
        f.write("k,y,ts\n" + "".join("%d,%d,%d\n" % r for r in B))
    with open(os.path.join(d, "t.csv"), "w") as f:
        f.write("k,name\n" + "".join("%d,%s\n" % r for r in T))


# --------------------------------------------------------------------------
# Reference pieces
# --------------------------------------------------------------------------


def wstart(ts):
    return ts // SIZE * SIZE


def join(left, right):
    """Pairs (l, r, window start, event time) of rows with the same key
    (field 0) in the same tumbling window."""
    out = []
    for lrow in left:
        for rrow in right:
            if lrow[0] == rrow[0] and wstart(lrow[-1]) == wstart(rrow[-1]):
                out.append((lrow, rrow, wstart(lrow[-1]), max(lrow[-1], rrow[-1])))
    return out


def group(rows, key, size=SIZE, adv=SIZE):
    """{(window start, key): [rows]} over hopping (or tumbling) windows."""
    g = {}
    for r in rows:
        for s in hop_starts(r[-1], size, adv):
            g.setdefault((s, key(r)), []).append(r)
    return g


def lines(header, rows):
    return [",".join(header)] + [csv_line(r) for r in rows]


# Each shape: (name, query text after the declarations, reference() ->
# expected lines, rows_unordered). A reference builds result tuples and
# sorts them the way the output is ordered.


def ref_join_filter_post():
    rows = [(l[0], l[1], r[1], s + SIZE) for l, r, s, _ in join(A, B) if l[1] < r[1]]
    rows.sort(key=lambda r: (r[3], r[0], r[1], r[2]))
    return lines(["k", "x", "y", "WINDOW_END"], rows)


def ref_join_filter_legs():
    rows = [(l[0], l[1], r[1], s + SIZE) for l, r, s, _ in join(A, B) if l[1] > 2 and r[1] < 8]
    rows.sort(key=lambda r: (r[3], r[0], r[1], r[2]))
    return lines(["k", "x", "y", "WINDOW_END"], rows)


def ref_join_filter_mixed():
    rows = [(l[0], r[1], l[1] + r[1], s + SIZE) for l, r, s, _ in join(A, B)
            if l[1] > 1 and l[1] + r[1] > 7 and r[1] != 5]
    rows.sort(key=lambda r: (r[3], r[0], r[1], r[2]))
    return lines(["k", "y", "s", "WINDOW_END"], rows)


def ref_join_expr_out():
    rows = [(l[0], l[1] + r[1], l[1] * r[1], s) for l, r, s, _ in join(A, B) if l[1] <= r[1]]
    rows.sort(key=lambda r: (r[3] + SIZE, r[0], r[1], r[2], r[3]))
    return lines(["k", "s", "p", "WINDOW_START"], rows)


def ref_map_then_agg():
    m = [(k, x * 2 + 1, ts) for k, x, ts in A if x != 3]
    rows = []
    for (s, k), rs in sorted(group(m, lambda r: r[0]).items()):
        v = [r[1] for r in rs]
        rows.append((s + SIZE, (k, sum(v), len(v), max(v), s + SIZE)))
    rows.sort(key=lambda r: (r[0], r[1][0]))
    return lines(["k", "total", "n", "top", "WINDOW_END"], [r for _, r in rows])


def derived_agg(rows, fold):
    """A windowed GROUP BY k as a derived stream: (k, value, ts = latest)."""
    out = []
    for (s, k), rs in group(rows, lambda r: r[0]).items():
        out.append((k, fold(rs), max(r[-1] for r in rs)))
    return out


def ref_agg_join():
    sa = derived_agg(A, lambda rs: sum(r[1] for r in rs))
    sb = derived_agg(B, len)
    rows = [(l[0], l[1], r[1], s + SIZE) for l, r, s, _ in join(sa, sb) if l[1] > r[1]]
    rows.sort(key=lambda r: (r[3], r[0], r[1], r[2]))
    return lines(["k", "sx", "nb", "WINDOW_END"], rows)


def ref_join_then_agg():
    j = [(l[0], l[1], r[1], ts) for l, r, s, ts in join(A, B) if l[1] != r[1]]
    rows = []
    for (s, k), rs in group(j, lambda r: r[0]).items():
        rows.append((s + SIZE, k, (k, len(rs), sum(r[1] for r in rs), min(r[2] for r in rs), s + SIZE)))
    rows.sort()
    return lines(["k", "n", "sx", "my", "WINDOW_END"], [r for _, _, r in rows])


def ref_table_join_filter():
    names = dict(T)
    e = [(names[k], x, ts) for k, x, ts in A if k in names and x > 1 and names[k] != "k3"]
    rows = []
    for (s, name), rs in group(e, lambda r: r[0]).items():
        rows.append((s + SIZE, name, (name, len(rs), sum(r[1] for r in rs), s + SIZE)))
    rows.sort()
    return lines(["name", "n", "sx", "WINDOW_END"], [r for _, _, r in rows])


def ref_filter_having():
    rows = []
    for (s, k), rs in group([r for r in A if r[1] >= 2], lambda r: r[0]).items():
        if len(rs) > 2:
            rows.append((s + SIZE, k, (k, len(rs), s + SIZE)))
    rows.sort()
    return lines(["k", "n", "WINDOW_END"], [r for _, _, r in rows])


def ref_hop_over_map():
    m = [(k, x + 1, ts) for k, x, ts in A]
    rows = []
    for (s, k), rs in group(m, lambda r: r[0], 20000, 10000).items():
        rows.append((s + 20000, k, (k, sum(r[1] for r in rs), s)))
    rows.sort()
    return lines(["k", "s", "WINDOW_START"], [r for _, _, r in rows])


def ref_session_filtered():
    by_k = {}
    for k, x, ts in A:
        if x > 0:
            by_k.setdefault(k, []).append(ts)
    rows = []
    for k, times in by_k.items():
        for start, end, idx in sessions(times, 3000):
            rows.append((end, k, (k, len(idx), start, end)))
    rows.sort()
    return lines(["k", "n", "WINDOW_START", "WINDOW_END"], [r for _, _, r in rows])


def ref_reduce_over_join():
    j = [(l[0], r[1], ts) for l, r, s, ts in join(A, B)]
    rows = []
    for (s, _), rs in group(j, lambda r: 0).items():
        rows.append((s + SIZE, (len(rs), sum(r[1] for r in rs), max(r[0] for r in rs), s + SIZE)))
    rows.sort()
    return lines(["n", "sy", "mk", "WINDOW_END"], [r for _, r in rows])


def ref_derived_map_into_join():
    fa = [r for r in A if r[1] > 4]
    rows = [(l[0], l[1], r[1], s + SIZE) for l, r, s, _ in join(fa, B)]
    rows.sort(key=lambda r: (r[3], r[0], r[1], r[2]))
    return lines(["k", "x", "y", "WINDOW_END"], rows)


def ref_map_chain():
    rows = [(k, x * 10) for k, x, ts in A if x > 2 and k != 1]
    return lines(["k", "x10"], rows)


def ref_join_table_then_stream():
    names = dict(T)
    e = [(k, names[k], x, ts) for k, x, ts in A if k in names]
    rows = [(l[1], l[2], r[1], s + SIZE) for l, r, s, _ in join(e, B) if l[2] + r[1] >= 9]
    rows.sort(key=lambda r: (r[3], r[0], r[1], r[2]))
    return lines(["name", "x", "y", "WINDOW_END"], rows)


SHAPES = [
    ("join_filter_post", """SELECT a.k, a.x, b.y, WINDOW_END FROM a JOIN b ON a.k = b.k
WHERE a.x < b.y WINDOW TUMBLING (SIZE 10 SECONDS);""", ref_join_filter_post, False),
    ("join_filter_legs", """SELECT a.k, a.x, b.y, WINDOW_END FROM a JOIN b ON a.k = b.k
WHERE a.x > 2 AND b.y < 8 WINDOW TUMBLING (SIZE 10 SECONDS);""", ref_join_filter_legs, False),
    ("join_filter_mixed", """SELECT a.k, b.y, a.x + b.y AS s, WINDOW_END FROM a JOIN b ON a.k = b.k
WHERE a.x > 1 AND a.x + b.y > 7 AND b.y <> 5 WINDOW TUMBLING (SIZE 10 SECONDS);""",
     ref_join_filter_mixed, False),
    ("join_expr_out", """SELECT a.k, a.x + b.y AS s, a.x * b.y AS p, WINDOW_START
FROM a JOIN b ON a.k = b.k WHERE a.x <= b.y WINDOW TUMBLING (SIZE 10 SECONDS);""",
     ref_join_expr_out, False),
    ("map_then_agg", """CREATE STREAM m AS SELECT k, x * 2 + 1 AS v, ts FROM a WHERE x <> 3;
SELECT k, SUM(v) AS total, COUNT(*) AS n, MAX(v) AS top, WINDOW_END
FROM m GROUP BY k WINDOW TUMBLING (SIZE 10 SECONDS);""", ref_map_then_agg, False),
    ("agg_join", """CREATE STREAM sa AS SELECT k, SUM(x) AS sx FROM a GROUP BY k WINDOW TUMBLING (SIZE 10 SECONDS);
CREATE STREAM sb AS SELECT k, COUNT(*) AS nb FROM b GROUP BY k WINDOW TUMBLING (SIZE 10 SECONDS);
SELECT sa.k, sa.sx, sb.nb, WINDOW_END FROM sa JOIN sb ON sa.k = sb.k
WHERE sa.sx > sb.nb WINDOW TUMBLING (SIZE 10 SECONDS);""", ref_agg_join, False),
    ("join_then_agg", """CREATE STREAM j AS SELECT a.k AS k, a.x AS x, b.y AS y FROM a JOIN b ON a.k = b.k
WHERE a.x <> b.y WINDOW TUMBLING (SIZE 10 SECONDS);
SELECT k, COUNT(*) AS n, SUM(x) AS sx, MIN(y) AS my, WINDOW_END
FROM j GROUP BY k WINDOW TUMBLING (SIZE 10 SECONDS);""", ref_join_then_agg, False),
    ("table_join_filter", """SELECT t.name, COUNT(*) AS n, SUM(a.x) AS sx, WINDOW_END
FROM a JOIN t ON a.k = t.k WHERE a.x > 1 AND t.name <> 'k3'
GROUP BY t.name WINDOW TUMBLING (SIZE 10 SECONDS);""", ref_table_join_filter, False),
    ("filter_having", """SELECT k, COUNT(*) AS n, WINDOW_END FROM a WHERE x >= 2
GROUP BY k WINDOW TUMBLING (SIZE 10 SECONDS) HAVING COUNT(*) > 2;""", ref_filter_having, False),
    ("hop_over_map", """CREATE STREAM m AS SELECT k, x + 1 AS v, ts FROM a;
SELECT k, SUM(v) AS s, WINDOW_START FROM m GROUP BY k
WINDOW HOPPING (SIZE 20 SECONDS, ADVANCE BY 10 SECONDS);""", ref_hop_over_map, False),
    ("session_filtered", """SELECT k, COUNT(*) AS n, WINDOW_START, WINDOW_END FROM a WHERE x > 0
GROUP BY k WINDOW SESSION (GAP 3 SECONDS);""", ref_session_filtered, False),
    ("reduce_over_join", """CREATE STREAM j AS SELECT a.k AS k, b.y AS y FROM a JOIN b ON a.k = b.k
WINDOW TUMBLING (SIZE 10 SECONDS);
SELECT COUNT(*) AS n, SUM(y) AS sy, MAX(k) AS mk, WINDOW_END FROM j
WINDOW TUMBLING (SIZE 10 SECONDS);""", ref_reduce_over_join, False),
    ("derived_map_into_join", """CREATE STREAM fa AS SELECT k, x, ts FROM a WHERE x > 4;
SELECT fa.k, fa.x, b.y, WINDOW_END FROM fa JOIN b ON fa.k = b.k
WINDOW TUMBLING (SIZE 10 SECONDS);""", ref_derived_map_into_join, False),
    ("map_chain", """CREATE STREAM m1 AS SELECT k, x, ts FROM a WHERE x > 2;
SELECT k, x * 10 AS x10 FROM m1 WHERE k <> 1;""", ref_map_chain, True),
    ("join_table_then_stream", """CREATE STREAM e AS SELECT a.k AS k, t.name AS name, a.x AS x, a.ts AS ts
FROM a JOIN t ON a.k = t.k;
SELECT e.name, e.x, b.y, WINDOW_END FROM e JOIN b ON e.k = b.k
WHERE e.x + b.y >= 9 WINDOW TUMBLING (SIZE 10 SECONDS);""", ref_join_table_then_stream, False),
]


def comparable(text_lines, unordered):
    if not unordered:
        return text_lines
    return text_lines[:1] + sorted(text_lines[1:])


def main():
    wanted = sys.argv[1:]
    h = Harness("shapes", detail_lines=25)
    with h.workdir() as work:
        write_data(work)
        names = [s[0] for s in SHAPES]
        for w in wanted:
            if w not in names:
                h.fail(w + ": no such shape")
        for name, query, ref, unordered in SHAPES:
            if wanted and name not in wanted:
                continue
            d = os.path.join(work, name)
            os.mkdir(d)
            for f in ("a.csv", "b.csv", "t.csv"):
                shutil.copy(os.path.join(work, f), d)
            with open(os.path.join(d, "query.airq"), "w") as f:
                f.write("-- query shape %s (tests/shapes/run.py)\n%s%s\n" % (name, DECLS, query))
            expected = comparable(ref(), unordered)
            if len(expected) < 3:
                h.fail(name + ": the reference gives fewer than two rows: a test that cannot fail")
                continue
            for variant, flags in (("fuse", []), ("nofuse", ["--no-fuse"])):
                exe = os.path.join(d, "q_" + variant)
                if not h.compile(AIRC, d, "query.airq", exe, flags + ["--cflags", "-Werror"],
                                 "%s %s" % (name, variant)):
                    continue
                for np in RANKS:
                    label = "%s np=%d %s" % (name, np, variant)
                    try:
                        r = subprocess.run([MPIRUN, "-np", str(np), exe], cwd=d, capture_output=True,
                                           text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
                    except subprocess.TimeoutExpired:
                        h.fail(label + ": timed out")
                        continue
                    got = comparable(r.stdout.splitlines(), unordered)
                    if r.returncode != 0:
                        h.fail("%s: exit status %d" % (label, r.returncode), r.stderr)
                    elif got != expected:
                        h.fail(label + ": output differs from the reference",
                               unified_diff(expected, got, "expected", label))
                    elif " late 0," not in r.stderr:
                        h.fail(label + ": rows were late", r.stderr)
                    else:
                        h.ok(label)
    return h.summary()


if __name__ == "__main__":
    sys.exit(main())
