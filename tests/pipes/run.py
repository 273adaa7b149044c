#!/usr/bin/env python3
"""Files that are not regular: a FIFO (named pipe) read by a csv stream or
table (make check-pipes, part of check).

Ranks that each opened one FIFO would each get part of its bytes, and rows
would be lost without a word. A FIFO is read by rank 0 alone (a stream
takes every record there, the plan's exchanges spread the keyed work; a
table is read whole and sent to every rank), so the result is that of the
same bytes in a regular file, on 1, 2 and 3 ranks, fused and not. A run
waiting on an idle writer stops cleanly at SIGINT, at the cut of the rows
written so far. The references come from the e2e cases' expected.py
(tests/e2e/cases/csv_table_join) and from Python here.

    python3 tests/pipes/run.py      (from the repository root)
Environment: AIRC (build/airc), MPIRUN (mpirun), KEEP=1.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

ROOT = os.getcwd()
sys.path.insert(0, os.path.join(ROOT, "tests"))
from lib import Harness, unified_diff  # noqa: E402

LIB = os.path.join(ROOT, "tests", "e2e", "lib")
CASE = os.path.join(ROOT, "tests", "e2e", "cases", "csv_table_join")
AIRC = os.path.abspath(os.environ.get("AIRC", "build/airc"))
MPIRUN = os.environ.get("MPIRUN", "mpirun")

h = Harness("pipes")


def feeder(path, data, hold=None):
    """Write data into the FIFO at path from a thread (the open waits for
    the reader), then close it, or first wait for the event hold."""
    def run():
        try:
            with open(path, "wb") as f:
                f.write(data)
                f.flush()
                if hold is not None:
                    hold.wait(60)
        except OSError:
            pass  # the reader went away: the test reports that
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def run_exe(d, exe, np, args=(), timeout=60):
    return subprocess.run([MPIRUN, "-np", str(np), exe] + list(args), cwd=d, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=timeout)


def reference(d):
    r = subprocess.run([sys.executable, os.path.join(d, "expected.py")], cwd=d, capture_output=True,
                       text=True, env=dict(os.environ, PYTHONPATH=LIB))
    if r.returncode != 0:
        h.fail("expected.py", r.stderr)
        return None
    return r.stdout


def fifo_join(work):
    """csv_table_join with its stream, its table or both behind FIFOs."""
    d = os.path.join(work, "join")
    shutil.copytree(CASE, d)
    want = reference(d)
    if want is None:
        return
    data = {f: open(os.path.join(d, f), "rb").read() for f in ("orders.csv", "products.csv")}
    query = open(os.path.join(d, "query.airq")).read()
    for variant, flags in (("fuse", []), ("nofuse", ["--no-fuse"])):
        exe = os.path.join(d, "q_" + variant)
        with open(os.path.join(d, "q.airq"), "w") as f:
            f.write(query.replace("'orders.csv'", "'orders.fifo'").replace("'products.csv'", "'products.fifo'"))
        if not h.compile(AIRC, d, "q.airq", exe, flags, variant):
            continue
        for np in (1, 2, 3):
            # which inputs are FIFOs; the others are regular files under the FIFO's name
            for piped in (("orders",), ("products",), ("orders", "products")):
                label = "%s np=%d %s from a FIFO" % (variant, np, " and ".join(piped))
                threads = []
                for name in ("orders", "products"):
                    p = os.path.join(d, name + ".fifo")
                    if os.path.lexists(p):
                        os.remove(p)
                    if name in piped:
                        os.mkfifo(p)
                        threads.append(feeder(p, data[name + ".csv"]))
                    else:
                        with open(p, "wb") as f:
                            f.write(data[name + ".csv"])
                try:
                    r = run_exe(d, exe, np)
                except subprocess.TimeoutExpired:
                    h.fail(label + ": no end in 60 s")
                    continue
                if r.returncode != 0:
                    h.fail("%s: exit %d" % (label, r.returncode), r.stderr)
                elif r.stdout != want:
                    h.fail(label + ": differs from expected.py",
                           unified_diff(want, r.stdout, "expected.py", label))
                else:
                    h.ok("%s: %d rows as expected.py" % (label, want.count("\n") - 1))
                for t in threads:
                    t.join(5)


def stdin_stream(work):
    """path = '/dev/stdin': `cat orders.csv | mpirun -np N ./q` (MPICH's
    launcher gives stdin to rank 0)."""
    d = os.path.join(work, "stdin")
    shutil.copytree(CASE, d)
    want = reference(d)
    if want is None:
        return
    query = open(os.path.join(d, "query.airq")).read().replace("'orders.csv'", "'/dev/stdin'")
    with open(os.path.join(d, "q.airq"), "w") as f:
        f.write(query)
    exe = os.path.join(d, "q")
    if not h.compile(AIRC, d, "q.airq", exe, label="stdin"):
        return
    for np in (1, 2, 3):
        label = "np=%d orders on standard input" % np
        try:
            with open(os.path.join(d, "orders.csv"), "rb") as inp:
                r = subprocess.run([MPIRUN, "-np", str(np), exe], cwd=d, stdin=inp, capture_output=True,
                                   timeout=60)
        except subprocess.TimeoutExpired:
            h.fail(label + ": no end in 60 s")
            continue
        out = r.stdout.decode()
        if r.returncode != 0:
            h.fail("%s: exit %d" % (label, r.returncode), r.stderr.decode())
        elif out != want:
            h.fail(label + ": differs from expected.py", out[:400])
        else:
            h.ok("%s: as expected.py" % label)


IDLE_QUERY = """CREATE STREAM events (key BIGINT, ts TIMESTAMP) WITH (source = 'csv', path = 'events.fifo');
CREATE SINK out WITH (sink = 'csv', path = 'out.csv');
INSERT INTO out SELECT key, COUNT(*) AS n, WINDOW_END
FROM events GROUP BY key WINDOW TUMBLING (SIZE 100 MILLISECONDS);
"""


def idle_writer(work):
    """A writer that wrote 1000 rows and stays open: SIGINT ends the run at
    once, at the cut of those rows (windows ending by ts 999 complete, the
    last one left out by --on-stop drop)."""
    d = os.path.join(work, "idle")
    os.mkdir(d)
    with open(os.path.join(d, "q.airq"), "w") as f:
        f.write(IDLE_QUERY)
    exe = os.path.join(d, "idle")
    if not h.compile(AIRC, d, "q.airq", exe, label="idle"):
        return
    rows = [(i * 7 % 5, i) for i in range(1000)]
    acc = {}
    for k, ts in rows:
        wend = ts // 100 * 100 + 100
        acc[(wend, k)] = acc.get((wend, k), 0) + 1
    want = "key,n,WINDOW_END\n" + "".join("%d,%d,%d\n" % (k, n, w) for (w, k), n in sorted(acc.items())
                                          if w <= 999)
    body = "".join("%d,%d\n" % r for r in rows).encode()
    for np in (1, 2, 3):
        label = "np=%d SIGINT while the writer is idle" % np
        for f in ("out.csv", "stats.json", "events.fifo"):
            if os.path.lexists(os.path.join(d, f)):
                os.remove(os.path.join(d, f))
        os.mkfifo(os.path.join(d, "events.fifo"))
        hold = threading.Event()
        t = feeder(os.path.join(d, "events.fifo"), body, hold)
        p = subprocess.Popen([MPIRUN, "-np", str(np), exe, "--stats-json", "stats.json"], cwd=d,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        t0 = time.time()
        p.send_signal(signal.SIGINT)
        try:
            out, err = p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            h.fail(label + ": no end 20 s after SIGINT (a read deaf to the stop)")
            hold.set()
            continue
        took = time.time() - t0
        hold.set()
        t.join(5)
        if p.returncode != 0:
            h.fail("%s: exit %d" % (label, p.returncode), err)
            continue
        try:
            st = json.load(open(os.path.join(d, "stats.json")))
            cut = st["interrupted"]["cut"]["events"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            h.fail("%s: no cut in stats.json (%s)" % (label, e), err)
            continue
        got = open(os.path.join(d, "out.csv")).read()
        if cut != 1000 or st["events_in"] != 1000:
            h.fail("%s: cut %s, %s events read; 1000 were written" % (label, cut, st["events_in"]), err)
        elif got != want:
            h.fail(label + ": out.csv differs from the reference", got[:400])
        elif took > 5:
            h.fail("%s: the stop took %.1f s" % (label, took))
        else:
            h.ok("%s: ended %.2f s after it, at the cut of the 1000 rows written" % (label, took))


def main():
    with h.workdir() as work:
        fifo_join(work)
        stdin_stream(work)
        idle_writer(work)
    return h.summary()


if __name__ == "__main__":
    sys.exit(main())
