#!/usr/bin/env python3
"""Big-state paths against a reference computed here.

Windowed aggregates over many distinct keys take paths a few keys never
do (docs/design.md "Big state"): a per-rank partial that stops
pre-aggregating and sends rows on unaggregated (window.c's
air_windows_partial_acc), and back again when the windows open at the
switch have closed; the final stage sorting a closed window's table by
group key (air_hash_sort, air_hash_sort_i64's radix sort for one BIGINT
key, 8-byte keys stored without their hash with key 0 beside the table)
so that rank 0 merges per-rank runs instead of sorting. The switch is
made to happen on small files with AIR_PARTIAL_RAW_KEYS and
AIR_PARTIAL_SAMPLE_ROWS, mid-window, in several windows, on every rank.

Each case is compiled fused and --no-fuse and run on 1, 2 and 3 ranks;
the output must be the reference's, computed window by window in Python
(with the lateness rule of docs/guarantees.md), and a fused run must say
in --stats-json that rows went on unaggregated (partial_raw_rows > 0), or
the case could not tell the new path from the old.

    python3 tests/state/run.py [case ...]      (from the repository root)

Environment: AIRC (build/airc), MPIRUN (mpirun), RANKS ("1 2 3"),
STATE_TIMEOUT (seconds per run, 60), KEEP=1 keeps the work directory.
"""
import os
import random
import sys

ROOT = os.getcwd()
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e", "lib"))
from airref import file_watermarks, hop_starts  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "tests"))
from lib import Harness, run_stats, unified_diff  # noqa: E402

AIRC = os.path.abspath(os.environ.get("AIRC", "build/airc"))
MPIRUN = os.environ.get("MPIRUN", "mpirun")
RANKS = [int(r) for r in os.environ.get("RANKS", "1 2 3").split()]
TIMEOUT = float(os.environ.get("STATE_TIMEOUT", "60"))
BOUND = 200  # the WATERMARK bound, ms
SIZE = 5000  # the TUMBLING size, ms
# the partial checks every 1024 rows and goes raw once it holds 500 keys;
# it stages rows (merged a batch at a time) from 200
os.environ.update(AIR_PARTIAL_RAW_KEYS="500", AIR_PARTIAL_SAMPLE_ROWS="1024", AIR_PARTIAL_STAGE_KEYS="200")

rng = random.Random(20261205)


def make_rows(n, nkeys, key):
    """(key, g, x, ts) over about n * 3 / SIZE ms: mostly in order, some
    out of order within the bound, a few behind it (late for their window
    or not). Keys are drawn from nkeys values (key(i) makes the value)."""
    rows, top = [], 100000
    for _ in range(n):
        top += rng.choice((0, 1, 2, 5))
        r = rng.random()
        ts = top if r < 0.9 else top - rng.randrange(BOUND) if r < 0.98 else top - BOUND - rng.randrange(2 * SIZE)
        rows.append((key(rng.randrange(nkeys)), rng.randrange(3), rng.randrange(-1000, 1000), ts))
    return rows


def reference(rows, two_keys):
    wms = file_watermarks([r[3] for r in rows], BOUND)
    groups = {}
    for (k, g, x, ts), wm in zip(rows, wms):
        s = hop_starts(ts, SIZE, SIZE)[0]
        if wm is not None and s + SIZE <= wm:
            continue  # late
        a = groups.setdefault((s, k, g if two_keys else None), [0, 0])
        a[0] += x
        a[1] += 1
    out = []
    for (s, k, g), (sx, n) in groups.items():
        out.append(((s + SIZE, k, g), (k,) + ((g,) if two_keys else ()) + (sx, n, s + SIZE)))
    out.sort(key=lambda t: t[0])
    return [v for _, v in out]


def cases():
    """(name, key column type, rows, two keys)."""
    n = 12000
    big = lambda i: (i - 2000) * 1000003  # noqa: E731  both signs, 0 among them, far apart
    return [
        ("bigint", "BIGINT", make_rows(n, 6000, big), False),
        ("bigint_small", "BIGINT", make_rows(n, 4000, lambda i: i - 2000), False),  # 0 often
        ("int", "INT", make_rows(n, 6000, lambda i: i - 3000), False),
        ("varchar", "VARCHAR(12)", make_rows(n, 6000, lambda i: "k%d" % (i * 7919 % 100003)), False),
        ("two_keys", "BIGINT", make_rows(n, 3000, lambda i: i - 1500), True),
    ]


def main():
    wanted = sys.argv[1:]
    h = Harness("state", detail_lines=25)
    with h.workdir() as work:
        all_cases = cases()
        for w in wanted:
            if w not in [c[0] for c in all_cases]:
                h.fail(w + ": no such case")
        for name, ktype, rows, two_keys in all_cases:
            if wanted and name not in wanted:
                continue
            d = os.path.join(work, name)
            os.mkdir(d)
            with open(os.path.join(d, "s.csv"), "w") as f:
                f.write("k,g,x,ts\n" + "".join("%s,%d,%d,%d\n" % r for r in rows))
            keys = "k, g" if two_keys else "k"
            with open(os.path.join(d, "query.airq"), "w") as f:
                f.write("-- big-state case %s (tests/state/run.py)\n"
                        "CREATE STREAM s (k %s, g BIGINT, x BIGINT, ts TIMESTAMP,\n"
                        "                 WATERMARK FOR ts AS ts - INTERVAL '%d' MILLISECOND)\n"
                        "  WITH (source = 'csv', path = 's.csv', header = true);\n"
                        "SELECT %s, SUM(x) AS sx, COUNT(*) AS n, WINDOW_END FROM s GROUP BY %s\n"
                        "  WINDOW TUMBLING (SIZE %d MILLISECONDS);\n" % (name, ktype, BOUND, keys, keys, SIZE))
            ref = reference(rows, two_keys)
            expected = [",".join(["k"] + (["g"] if two_keys else []) + ["sx", "n", "WINDOW_END"])]
            expected += [",".join(str(x) for x in v) for v in ref]
            for variant, flags in (("fuse", []), ("nofuse", ["--no-fuse"])):
                exe = os.path.join(d, "q_" + variant)
                if not h.compile(AIRC, d, "query.airq", exe, flags + ["--cflags", "-Werror"],
                                 "%s %s" % (name, variant)):
                    continue
                for np in RANKS:
                    label = "%s np=%d %s" % (name, np, variant)
                    rc, out, err, st = run_stats(MPIRUN, d, exe, np, TIMEOUT)
                    raw = st.get("partial_raw_rows")
                    if rc != 0:
                        h.fail("%s: exit status %s" % (label, rc), err)
                    elif out.splitlines() != expected:
                        h.fail(label + ": output differs from the reference",
                               unified_diff(expected, out.splitlines(), "expected", label))
                    elif variant == "fuse" and not raw:
                        h.fail(label + ": no row went on unaggregated (partial_raw_rows %s): "
                               "the test cannot tell the adaptive partial from the old one" % raw)
                    else:
                        h.ok("%s (%d rows, %s sent unaggregated)" % (label, len(ref), raw))
    return h.summary()


if __name__ == "__main__":
    sys.exit(main())
