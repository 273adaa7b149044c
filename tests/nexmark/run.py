#!/usr/bin/env python3
"""The Nexmark queries of queries/nexmark against Python references: data
made by gen.py (seed NEXMARK_SEED, default 1), each query file compiled as
it is (fused and --no-fuse, -Werror) and run on 1, 2 and 3 ranks in a
directory holding that data, its standard output (or, for q10, its csv
sink) compared with reference.py's rows (both sorted for the queries
without a window, whose rows come as they arrive on each rank).

As tests/e2e/run.sh does, runs on 2 and 3 ranks split the csv files in
small odd blocks (AIR_CSV_BLOCK), the collector's chunks hold 1 to 5
rows, so blocks start mid-record and held rows cross chunks, and per-rank
partial aggregates stage their rows from the start on 1 and 3 ranks.

    python3 tests/nexmark/run.py [q5 q9 ...]     (from the repository root)

Environment: AIRC (build/airc), MPIRUN (mpirun), RANKS ("1 2 3"),
NEXMARK_SEED (1), NEXMARK_EVENTS (3250: 2990 bids), NEXMARK_TIMEOUT (seconds per run, 60), KEEP=1 keeps the
work directory.
"""
import os
import shutil
import subprocess
import sys
import time

ROOT = os.getcwd()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e", "lib"))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import gen  # noqa: E402
import reference  # noqa: E402
from airref import csv_line  # noqa: E402
from lib import Harness, unified_diff  # noqa: E402

AIRC = os.path.abspath(os.environ.get("AIRC", "build/airc"))
MPIRUN = os.environ.get("MPIRUN", "mpirun")
RANKS = [int(r) for r in os.environ.get("RANKS", "1 2 3").split()]
SEED = int(os.environ.get("NEXMARK_SEED", "1"))
EVENTS = int(os.environ.get("NEXMARK_EVENTS", "3250"))
TIMEOUT = float(os.environ.get("NEXMARK_TIMEOUT", "60"))
QUERIES = os.path.join(ROOT, "queries", "nexmark")

# per rank count, as tests/e2e/run.sh: the csv block size, the collector's
# chunk rows, and when a per-rank partial stages its rows (from the first
# chunk on 1 and 3 ranks; "" leaves the default)
SPLITS = {1: ("0", "2", "0"), 2: ("97", "1", ""), 3: ("331", "5", "0")}


def expected_lines(query, data):
    if query in reference.CHECKS:  # checked by reference.CHECKS[query]
        return None, True
    header, rows, ordered = reference.QUERIES[query](data)
    lines = [csv_line(r) for r in rows]
    return [",".join(header)] + (lines if ordered else sorted(lines)), ordered


def comparable(text, ordered):
    lines = text.splitlines()
    return lines if ordered or not lines else lines[:1] + sorted(lines[1:])


def run(h, work, query, want, ordered, data):
    sink = reference.SINKS.get(query)
    for variant, flags in (("fuse", []), ("nofuse", ["--no-fuse"])):
        exe = os.path.join(work, "%s_%s" % (query, variant))
        if not h.compile(AIRC, work, query + ".airq", exe, flags + ["--cflags", "-Werror"],
                         "%s %s" % (query, variant)):
            continue
        for np in RANKS:
            label = "%s np=%d %s" % (query, np, variant)
            blk, chunk, stage = SPLITS.get(np, ("0", "2", ""))
            env = dict(os.environ, AIR_CSV_BLOCK=blk, AIR_COLLECTOR_CHUNK_ROWS=chunk,
                       AIR_PARTIAL_STAGE_KEYS=stage)
            if sink and os.path.exists(os.path.join(work, sink)):
                os.unlink(os.path.join(work, sink))
            try:
                r = subprocess.run([MPIRUN, "-np", str(np), exe], cwd=work, env=env, text=True,
                                   capture_output=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
            except subprocess.TimeoutExpired:
                h.fail(label + ": timed out")
                continue
            if r.returncode != 0:
                h.fail("%s: exit status %d" % (label, r.returncode), r.stderr)
                continue
            out = r.stdout
            if sink:
                if out:
                    h.fail(label + ": standard output is not empty with a sink", out)
                    continue
                try:
                    with open(os.path.join(work, sink)) as f:
                        out = f.read()
                except OSError as e:
                    h.fail("%s: no sink file %s (%s)" % (label, sink, e), r.stderr)
                    continue
            got = comparable(out, ordered)
            why = reference.CHECKS[query](data, got) if query in reference.CHECKS else None
            if why is not None:
                h.fail("%s: %s" % (label, why), out[:2000])
            elif want is not None and got != want:
                h.fail(label + ": output differs from the reference",
                       unified_diff(want, got, "expected", label))
            else:
                h.ok("%s (%d rows)" % (label, len(got) - 1))


def main():
    names = sys.argv[1:] or sorted(reference.QUERIES, key=lambda q: int(q[1:]))
    h = Harness("nexmark")
    with h.workdir() as work:
        gen.write(os.path.join(work, "data"), seed=SEED, events=EVENTS)
        data = reference.Data(os.path.join(work, "data"))
        for q in names:
            if q not in reference.QUERIES:
                h.fail("%s: no such query in tests/nexmark/reference.py" % q)
                continue
            shutil.copy(os.path.join(QUERIES, q + ".airq"), work)
            want, ordered = expected_lines(q, data)
            t0 = time.monotonic()
            run(h, work, q, want, ordered, data)
            print("   %s: %.1f s" % (q, time.monotonic() - t0))
    return h.summary()


if __name__ == "__main__":
    sys.exit(main())
