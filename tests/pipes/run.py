#!/usr/bin/env python3
"""Files that are not regular: a FIFO (named pipe) read by a csv stream or
table (make check-pipes, part of check).

Ranks that each opened one FIFO would each get part of its bytes, and rows
would be lost without a word. A FIFO is read by rank 0 alone (a stream
takes every record there, the plan's exchanges spread the keyed work; a
table is read whole and sent to every rank), so the result is that of the
same bytes in a regular file, on 1, 2 and 3 ranks, fused and not. A run
waiting on an idle writer (of a FIFO or of standard input) stops cleanly at
SIGINT, at the cut of the rows written so far. `source = 'stdin'` (and
`path = '/dev/stdin'`) reads standard input on rank 0 alone, also when it is
a regular file; `stdin` takes no path and fills no TABLE. A csv file with
`follow = true` is read as it grows (tail -f), window by window, until a stop. The references come from the e2e cases' expected.py
(tests/e2e/cases/csv_table_join) and from Python here.

    python3 tests/pipes/run.py      (from the repository root)
Environment: AIRC (build/airc), MPIRUN (mpirun), KEEP=1.
"""
import json
import os
import re
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


class Lines:
    """The stdout lines of a running process, read on a thread."""

    def __init__(self, p):
        self.p, self.got = p, []
        self.t = threading.Thread(target=lambda: self.got.extend(l.rstrip("\n") for l in p.stdout), daemon=True)
        self.t.start()

    def wait_for(self, n, secs):
        """The lines so far once there are n, or after secs."""
        deadline = time.time() + secs
        while time.time() < deadline and len(self.got) < n:
            time.sleep(0.05)
        return list(self.got)

    def end(self, what, label):
        """Wait for the process after `what` (20 s at most): its stderr, or
        None (reported) when it did not end."""
        try:
            self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            h.fail("%s: no end 20 s after %s" % (label, what))
            return None
        self.t.join(5)
        return self.p.stderr.read()


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
    """`source = 'stdin'` and `path = '/dev/stdin'`: `cat orders.csv |
    mpirun -np N ./q` (MPICH's launcher gives stdin to rank 0), and a single
    process reading a regular file as its standard input; fused and not."""
    d = os.path.join(work, "stdin")
    shutil.copytree(CASE, d)
    want = reference(d)
    if want is None:
        return
    base = open(os.path.join(d, "query.airq")).read()
    queries = {"path": base.replace("'orders.csv'", "'/dev/stdin'"),
               "kind": base.replace("source = 'csv', path = 'orders.csv'", "source = 'stdin'")}
    assert queries["kind"] != base
    for form, flags in (("path", []), ("kind", []), ("kind", ["--no-fuse"])):
        name = "q_%s%s" % (form, "_nofuse" if flags else "")
        with open(os.path.join(d, name + ".airq"), "w") as f:
            f.write(queries[form])
        exe = os.path.join(d, name)
        if h.compile(AIRC, d, name + ".airq", exe, flags, label="stdin " + name):
            stdin_runs(d, exe, name, want)


def stdin_runs(d, exe, name, want):
    for np in (1, 2, 3, 0):  # 0: the program alone, no launcher: stdin a regular file
        label = "%s np=%d orders on standard input" % (name, np) if np else "%s alone, < orders.csv" % name
        argv = [MPIRUN, "-np", str(np), exe] if np else [exe]
        try:
            with open(os.path.join(d, "orders.csv"), "rb") as inp:
                r = subprocess.run(argv, cwd=d, stdin=inp, capture_output=True, timeout=60)
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


def stdin_misuse(work):
    """source = 'stdin' takes no path and fills no TABLE: compile errors."""
    d = os.path.join(work, "stdin_bad")
    os.mkdir(d)
    cases = {
        "path": ("CREATE STREAM s (k BIGINT, ts TIMESTAMP) WITH (source = 'stdin', path = 'x.csv');\n"
                 "SELECT k FROM s;\n", "option 'path' applies only to source = 'csv'"),
        "table": ("CREATE STREAM s (k BIGINT, ts TIMESTAMP) WITH (source = 'csv', path = 'x.csv');\n"
                  "CREATE TABLE t (k BIGINT, PRIMARY KEY (k)) WITH (source = 'stdin');\n"
                  "SELECT s.k FROM s JOIN t ON s.k = t.k;\n", "source 'stdin' cannot fill a TABLE"),
    }
    for name, (text, msg) in cases.items():
        with open(os.path.join(d, name + ".airq"), "w") as f:
            f.write(text)
        r = subprocess.run([AIRC, "--check", name + ".airq"], cwd=d, capture_output=True, text=True)
        if r.returncode == 1 and re.search(r"^%s\.airq:\d+:\d+: error: %s" % (name, re.escape(msg)), r.stderr, re.M):
            h.ok("stdin %s: says '%s'" % (name, msg))
        else:
            h.fail("stdin %s: says '%s' (exit %d)" % (name, msg, r.returncode), r.stderr)


IDLE_QUERY = """CREATE STREAM events (key BIGINT, ts TIMESTAMP) WITH (source = 'csv', path = 'events.fifo');
CREATE SINK out WITH (sink = 'csv', path = 'out.csv');
INSERT INTO out SELECT key, COUNT(*) AS n, WINDOW_END
FROM events GROUP BY key WINDOW TUMBLING (SIZE 100 MILLISECONDS);
"""


def idle_writer(work, via):
    """A writer that wrote 1000 rows and stays open, on a FIFO or standard
    input (via): SIGINT ends the run at once, at the cut of those rows
    (windows ending by ts 999 complete, the last one left out by --on-stop
    drop)."""
    d = os.path.join(work, "idle_" + via)
    os.mkdir(d)
    query = IDLE_QUERY if via == "fifo" else IDLE_QUERY.replace("source = 'csv', path = 'events.fifo'",
                                                                "source = 'stdin'")
    with open(os.path.join(d, "q.airq"), "w") as f:
        f.write(query)
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
        label = "np=%d SIGINT while the writer of %s is idle" % (np, "a FIFO" if via == "fifo" else "stdin")
        for f in ("out.csv", "stats.json", "events.fifo"):
            if os.path.lexists(os.path.join(d, f)):
                os.remove(os.path.join(d, f))
        hold = threading.Event()
        t = None
        if via == "fifo":
            os.mkfifo(os.path.join(d, "events.fifo"))
            t = feeder(os.path.join(d, "events.fifo"), body, hold)
        p = subprocess.Popen([MPIRUN, "-np", str(np), exe, "--stats-json", "stats.json"], cwd=d,
                             stdin=subprocess.PIPE if via == "stdin" else subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if via == "stdin":
            p.stdin.write(body.decode())
            p.stdin.flush()  # and stays open: the writer is idle
        time.sleep(1.5)
        t0 = time.time()
        p.send_signal(signal.SIGINT)
        try:
            # standard input stays open until the run ended (its end of
            # file would end the stream before the stop could)
            p.wait(timeout=20)
            out, err = p.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            h.fail(label + ": no end 20 s after SIGINT (a read deaf to the stop)")
            hold.set()
            continue
        took = time.time() - t0
        hold.set()
        if t:
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


LIVE_QUERY = """CREATE STREAM events (key BIGINT, ts TIMESTAMP) WITH (source = 'stdin');
SELECT key, COUNT(*) AS n, WINDOW_END FROM events GROUP BY key WINDOW TUMBLING (SIZE 100 MILLISECONDS);
"""


def live_output(work):
    """Windows are written as they close, while the writer of standard
    input is idle (tail -f | ./q): after rows with ts 0..999, every window
    ending by 999 is on stdout within 5 s, before the writer closes; the
    last one follows at end of input."""
    d = os.path.join(work, "live")
    os.mkdir(d)
    with open(os.path.join(d, "q.airq"), "w") as f:
        f.write(LIVE_QUERY)
    exe = os.path.join(d, "live")
    if not h.compile(AIRC, d, "q.airq", exe, label="live"):
        return
    rows = [(i * 7 % 5, i) for i in range(1000)]
    acc = {}
    for k, ts in rows:
        acc[(ts // 100 * 100 + 100, k)] = acc.get((ts // 100 * 100 + 100, k), 0) + 1
    lines = ["%d,%d,%d" % (k, n, w) for (w, k), n in sorted(acc.items())]
    early = [l for l in lines if int(l.split(",")[2]) <= 999]
    body = "".join("%d,%d\n" % r for r in rows)
    for np in (1, 2):
        label = "np=%d windows written while the writer of stdin is idle" % np
        p = subprocess.Popen([MPIRUN, "-np", str(np), exe, "--quiet"], cwd=d, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out = Lines(p)
        p.stdin.write(body)
        p.stdin.flush()
        seen = out.wait_for(1 + len(early), 5)
        p.stdin.close()  # end of input: the last window closes
        err = out.end("end of input", label)
        if err is None:
            continue
        got = out.got
        if seen[1:] != early:
            h.fail(label + ": %d of %d early windows' rows before end of input" % (len(seen) - 1, len(early)),
                   "\n".join(seen[:10]) + "\n" + err)
        elif p.returncode != 0 or got != ["key,n,WINDOW_END"] + lines:
            h.fail("%s: exit %d, then all %d rows" % (label, p.returncode, len(lines)), "\n".join(got[-5:]) + err)
        else:
            h.ok("%s: %d rows before end of input, the last %d after it" % (label, len(early),
                                                                       len(lines) - len(early)))


PROC_QUERY = """CREATE STREAM e (k BIGINT, pt AS PROCTIME()) WITH (source = 'stdin');
SELECT k, COUNT(*) AS n, window_end
FROM TABLE(TUMBLE(TABLE e, DESCRIPTOR(pt), INTERVAL '200' MILLISECONDS)) GROUP BY k, window_start, window_end;
"""


def proctime_idle(work):
    """Processing time follows the clock while the writer is idle: 100 rows
    written at once (PROCTIME(), 200 ms windows) are all counted on stdout
    within 5 s, before the writer closes standard input."""
    d = os.path.join(work, "proctime")
    os.mkdir(d)
    with open(os.path.join(d, "q.airq"), "w") as f:
        f.write(PROC_QUERY)
    exe = os.path.join(d, "proc")
    if not h.compile(AIRC, d, "q.airq", exe, label="proctime"):
        return
    for np in (1, 2):
        label = "np=%d PROCTIME() windows close while the writer of stdin is idle" % np
        p = subprocess.Popen([MPIRUN, "-np", str(np), exe, "--quiet"], cwd=d, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out = Lines(p)
        p.stdin.write("".join("%d\n" % (i % 5) for i in range(100)))
        p.stdin.flush()
        deadline, counted = time.time() + 5, 0
        while time.time() < deadline and counted < 100:
            time.sleep(0.05)
            counted = sum(int(l.split(",")[1]) for l in list(out.got)[1:] if l)
        p.stdin.close()
        err = out.end("end of input", label)
        if err is None:
            continue
        if counted != 100 or p.returncode != 0:
            h.fail("%s: %d of 100 rows counted before end of input (exit %d)" % (label, counted, p.returncode),
                   "\n".join(out.got[:10]) + "\n" + err)
        else:
            h.ok(label + ": all 100 rows")


FOLLOW_QUERY = """CREATE STREAM events (key BIGINT, ts TIMESTAMP)
  WITH (source = 'csv', path = 'app.csv', follow = true);
SELECT key, COUNT(*) AS n, WINDOW_END FROM events GROUP BY key WINDOW TUMBLING (SIZE 100 MILLISECONDS);
"""


def follow_windows(rows, upto):
    acc = {}
    for k, ts in rows:
        w = ts // 100 * 100 + 100
        acc[(w, k)] = acc.get((w, k), 0) + 1
    return ["%d,%d,%d" % (k, n, w) for (w, k), n in sorted(acc.items()) if w <= upto]


def follow_file(work):
    """follow = true (tail -f): the file's end is no end. Rows already in
    the file, then rows appended while it runs, come out window by window
    as they close; a last line without its line end is not read (a warning
    says so at the stop); SIGINT ends the run at the cut of the rows
    written. Then a file cut shorter while followed fails the run."""
    d = os.path.join(work, "follow")
    os.mkdir(d)
    with open(os.path.join(d, "q.airq"), "w") as f:
        f.write(FOLLOW_QUERY)
    exes = {}
    for variant, flags in (("fuse", []), ("nofuse", ["--no-fuse"])):
        exes[variant] = os.path.join(d, "follow_" + variant)
        if not h.compile(AIRC, d, "q.airq", exes[variant], flags, label="follow " + variant):
            return
    first = [(i * 7 % 5, i) for i in range(1000)]
    more = [(i * 3 % 4, i) for i in range(1000, 2000)]
    app = os.path.join(d, "app.csv")
    for np, variant in ((1, "fuse"), (2, "fuse"), (3, "fuse"), (2, "nofuse")):
        label = "np=%d %s follow = true" % (np, variant)
        with open(app, "w") as f:
            f.write("".join("%d,%d\n" % r for r in first))
        if os.path.exists(os.path.join(d, "stats.json")):
            os.remove(os.path.join(d, "stats.json"))
        p = subprocess.Popen([MPIRUN, "-np", str(np), exes[variant], "--quiet", "--stats-json", "stats.json"],
                             cwd=d, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        out = Lines(p)
        want1 = follow_windows(first, 999)
        seen1 = out.wait_for(1 + len(want1), 8)
        with open(app, "a") as f:  # the writer goes on, and stops mid-line
            f.write("".join("%d,%d\n" % r for r in more) + "3,20")
        want2 = follow_windows(first + more, 1999)
        seen2 = out.wait_for(1 + len(want2), 8)
        p.send_signal(signal.SIGINT)
        err = out.end("SIGINT", label)
        if err is None:
            continue
        # MPICH's launcher says on stdout that it passed the SIGINT on
        got = [l for l in out.got if not l.startswith("[mpiexec@")]
        try:
            st = json.load(open(os.path.join(d, "stats.json")))
            cut = st["interrupted"]["cut"]["events"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            h.fail("%s: no cut in stats.json (%s)" % (label, e), err)
            continue
        if seen1[1:] != want1:
            h.fail(label + ": the windows of the rows first in the file were not written while it waited",
                   "\n".join(seen1[:8]) + "\n" + err)
        elif seen2[1:] != want2:
            h.fail(label + ": the windows of the appended rows were not written as they closed",
                   "\n".join(seen2[-5:]) + "\n" + err)
        elif p.returncode != 0 or got[1:] != want2:
            h.fail("%s: exit %d, %d rows (%d expected)" % (label, p.returncode, len(got) - 1, len(want2)),
                   unified_diff(want2, got[1:], "expected", label) + err)
        elif cut != 2000 or st["events_in"] != 2000:
            h.fail("%s: cut %s, %s events read; 2000 whole lines were written" % (label, cut, st["events_in"]), err)
        elif "app.csv:2001: warning: stream 'events' stopped before this last line ended" not in err:
            h.fail(label + ": no warning about the unfinished last line", err)
        else:
            h.ok("%s: %d result rows before the append, %d after, cut at the 2000 whole lines"
                 % (label, len(want1), len(want2) - len(want1)))
    # a followed file cut shorter: the run fails, it does not wait forever
    label = "follow = true on a file truncated while it runs"
    with open(app, "w") as f:
        f.write("".join("%d,%d\n" % r for r in first))
    p = subprocess.Popen([MPIRUN, "-np", "2", exes["fuse"], "--quiet"], cwd=d, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    open(app, "w").close()
    try:
        p.wait(timeout=20)
        err = p.stderr.read()
        if p.returncode != 0 and "shrank to 0 bytes while being read" in err:
            h.ok(label + ": exit %d, 'shrank to 0 bytes while being read'" % p.returncode)
        else:
            h.fail("%s: exit %d" % (label, p.returncode), err)
    except subprocess.TimeoutExpired:
        p.kill()
        h.fail(label + ": still running 20 s after the truncation")
    # misuse: a value that is no boolean, a TABLE
    for name, decl, msg in (
            ("follow = 'yes'", "CREATE STREAM s (k BIGINT, ts TIMESTAMP) WITH (source = 'csv', path = 'a.csv', "
             "follow = 'yes');\nSELECT k FROM s;\n", "option 'follow' must be true or false"),
            ("follow on a TABLE", "CREATE TABLE t (k BIGINT, PRIMARY KEY (k)) WITH (source = 'csv', path = 'a.csv', "
             "follow = true);\nCREATE STREAM s (k BIGINT, ts TIMESTAMP) WITH (source = 'csv', path = 'a.csv');\n"
             "SELECT s.k FROM s JOIN t ON s.k = t.k;\n", "option 'follow' does not apply to a table"),
            ("follow on datagen", "CREATE STREAM s (k BIGINT GENERATED BY sequence(0, 1), ts TIMESTAMP) "
             "WITH (source = 'datagen', follow = true);\nSELECT k FROM s;\n",
             "option 'follow' applies only to source = 'csv'")):
        with open(os.path.join(d, "bad.airq"), "w") as f:
            f.write(decl)
        r = subprocess.run([AIRC, "--check", "bad.airq"], cwd=d, capture_output=True, text=True)
        if r.returncode != 0 and msg in r.stderr and "bad.airq:" in r.stderr:
            h.ok("%s: says '%s'" % (name, msg))
        else:
            h.fail("%s: exit %d" % (name, r.returncode), r.stderr)


def main():
    with h.workdir() as work:
        follow_file(work)
        fifo_join(work)
        stdin_stream(work)
        stdin_misuse(work)
        idle_writer(work, "fifo")
        idle_writer(work, "stdin")
        live_output(work)
        proctime_idle(work)
    return h.summary()


if __name__ == "__main__":
    sys.exit(main())
