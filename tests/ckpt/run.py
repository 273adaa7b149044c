#!/usr/bin/env python3
"""Checkpoints and resume (make check-ckpt, part of check; make
check-ckpt-stress runs more trials).

Each case is a query over csv files or a generator (one an updating query:
GROUP BY without WINDOW, EMIT EVERY; one a window with a GRACE PERIOD), paced so that a run
takes a few seconds (two of them also compiled --no-fuse). Its reference is an uninterrupted run without
checkpoints on 2 ranks, which must equal the 1- and 3-rank runs (and the
Python references of the tumbling and updating cases, computed here). Then, per trial: a
run with --checkpoint-dir is killed (SIGKILL) on a random rank at a random
moment after its first complete checkpoint, and rerun with --resume auto,
killed again, and rerun until it completes: the sink file must be
byte-identical to the reference, no out.csv.tmp left, and the checkpoints
gone (a job that completed leaves none). Also: a kill of rank 0, a kill
while a checkpoint is being written (before its manifest, AIR_CKPT_KILL),
resumes on 1, 2 and 3 ranks from checkpoints taken on 2 and 3 (keyed state
spread by the exchange's hash; a HOPPING query's shared slices refused), a
torn, a corrupt and a missing state file (the checkpoint before is used,
with a warning that names the file), a checkpoint of another query
(refused), a fresh run into a directory with checkpoints (refused), and a
run stopped by SIGTERM resumed to the same bytes; a redis sink, killed and
resumed, holds the hashes of an uninterrupted run (idempotent by key).

    python3 tests/ckpt/run.py [trials]      (from the repository root)
Environment: AIRC (build/airc), MPIRUN (mpirun), KEEP=1, SEED.
"""
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.getcwd()
sys.path.insert(0, os.path.join(ROOT, "tests"))
from lib import Harness, RedisServer, unified_diff  # noqa: E402

AIRC = os.path.abspath(os.environ.get("AIRC", "build/airc"))
MPIRUN = os.environ.get("MPIRUN", "mpirun")
TRIALS = int(sys.argv[1]) if len(sys.argv) > 1 else 1
# tests/sanitize/e2e.sh: some cases only, without the refusals and bad files
ONLY = [c for c in os.environ.get("CKPT_CASES", "").split(",") if c]
rng = random.Random(int(os.environ.get("SEED", "2026")))
REF_COUNTS = {}  # case name: (events in, windows, late) of its uninterrupted run
h = Harness("ckpt")

N = 40000   # rows per csv stream
RATE = 30000  # rows/s of a paced run (csv: per stream, over all ranks)

TUMBLE = """CREATE STREAM events (key BIGINT, v BIGINT, ts TIMESTAMP,
  WATERMARK FOR ts AS ts - INTERVAL '40' MILLISECONDS) WITH (source = 'csv', path = 'events.csv');
CREATE SINK out WITH (sink = 'csv', path = 'out.csv');
INSERT INTO out SELECT key, COUNT(*) AS n, SUM(v) AS total, MIN(v) AS lo, WINDOW_END
FROM events GROUP BY key WINDOW TUMBLING (SIZE 200 MILLISECONDS);
"""
HOP = """CREATE STREAM events (key BIGINT, v BIGINT, ts TIMESTAMP,
  WATERMARK FOR ts AS ts - INTERVAL '40' MILLISECONDS) WITH (source = 'csv', path = 'events.csv');
CREATE SINK out WITH (sink = 'csv', path = 'out.csv');
INSERT INTO out SELECT key, COUNT(*) AS n, MAX(v) AS hi, AVG(v) AS mean, WINDOW_END
FROM events GROUP BY key WINDOW HOPPING (SIZE 400 MILLISECONDS, ADVANCE BY 100 MILLISECONDS);
"""
# (no late rows: with late rows, sessions differ between rank counts even
# without checkpoints, a defect of its own)
SESSION = """CREATE STREAM events (key BIGINT, v BIGINT, ts TIMESTAMP,
  WATERMARK FOR ts AS ts - INTERVAL '100' MILLISECONDS) WITH (source = 'csv', path = 'calm.csv');
CREATE SINK out WITH (sink = 'csv', path = 'out.csv');
INSERT INTO out SELECT key, COUNT(*) AS n, SUM(v) AS total, WINDOW_START, WINDOW_END
FROM events GROUP BY key WINDOW SESSION (GAP 200 MILLISECONDS);
"""
JOIN = """CREATE STREAM events (key BIGINT, v BIGINT, ts TIMESTAMP,
  WATERMARK FOR ts AS ts - INTERVAL '40' MILLISECONDS) WITH (source = 'csv', path = 'events.csv');
CREATE STREAM other (key BIGINT, w BIGINT, ts TIMESTAMP,
  WATERMARK FOR ts AS ts - INTERVAL '40' MILLISECONDS) WITH (source = 'csv', path = 'other.csv');
CREATE SINK out WITH (sink = 'csv', path = 'out.csv');
INSERT INTO out SELECT e.key, e.v, o.w, WINDOW_END
FROM events e JOIN other o ON e.key = o.key WINDOW TUMBLING (SIZE 100 MILLISECONDS);
"""
# an interval join's rows (kept per key in time buckets) into a derived
# stream whose pairs are counted per window: the output is in window order
IJOIN = """CREATE STREAM events (key BIGINT, v BIGINT, ts TIMESTAMP,
  WATERMARK FOR ts AS ts - INTERVAL '40' MILLISECONDS) WITH (source = 'csv', path = 'events.csv');
CREATE STREAM other (key BIGINT, w BIGINT, ts TIMESTAMP,
  WATERMARK FOR ts AS ts - INTERVAL '40' MILLISECONDS) WITH (source = 'csv', path = 'other.csv');
CREATE STREAM pairs AS SELECT e.key %% 16 AS k, o.w, e.ts FROM events e JOIN other o
  ON e.key %% 16 = o.key %% 16 AND o.ts BETWEEN e.ts - INTERVAL '20' MILLISECONDS AND e.ts + INTERVAL '30' MILLISECONDS;
CREATE SINK out WITH (sink = 'csv', path = 'out.csv');
INSERT INTO out SELECT k, COUNT(*) AS n, SUM(w) AS sw, WINDOW_END
FROM pairs GROUP BY k WINDOW TUMBLING (SIZE 100 MILLISECONDS);
""".replace("%%", "%")
# a FULL outer interval join: its rows that met none (a matched byte each,
# in the state) are padded when their bucket is dropped, counted per window
IJOIN_OUTER = """CREATE STREAM events (key BIGINT, v BIGINT, ts TIMESTAMP,
  WATERMARK FOR ts AS ts - INTERVAL '40' MILLISECONDS) WITH (source = 'csv', path = 'events.csv');
CREATE STREAM other (key BIGINT, w BIGINT, ts TIMESTAMP,
  WATERMARK FOR ts AS ts - INTERVAL '40' MILLISECONDS) WITH (source = 'csv', path = 'other.csv');
CREATE STREAM pairs AS SELECT COALESCE(e.key, o.key) %% 16 AS k, o.w, e.v FROM events e FULL JOIN other o
  ON e.key %% 16 = o.key %% 16 AND e.v %% 2 = o.w %% 2
  AND o.ts BETWEEN e.ts - INTERVAL '5' MILLISECONDS AND e.ts + INTERVAL '5' MILLISECONDS;
CREATE SINK out WITH (sink = 'csv', path = 'out.csv');
INSERT INTO out SELECT k, COUNT(*) AS n, COUNT(w) AS ws, COUNT(v) AS vs, WINDOW_END
FROM pairs GROUP BY k WINDOW TUMBLING (SIZE 100 MILLISECONDS);
""".replace("%%", "%")
# an updating query (GROUP BY without WINDOW): each key's running
# aggregates, their changes every 500 ms (late rows counted at W + 1); its
# state is the running table as well as the open intervals
UPDATING = """CREATE STREAM events (key BIGINT, v BIGINT, ts TIMESTAMP,
  WATERMARK FOR ts AS ts - INTERVAL '40' MILLISECONDS) WITH (source = 'csv', path = 'events.csv');
CREATE SINK out WITH (sink = 'csv', path = 'out.csv');
INSERT INTO out SELECT key %% 40 AS k, COUNT(*) AS n, SUM(v) AS total, MIN(v) AS lo
FROM events GROUP BY key %% 40 HAVING SUM(v) %% 7 <> 0 EMIT EVERY 500 MILLISECONDS;
""".replace("%%", "%")
# a regular join (every row kept for ever, one bucket per key, none late)
# into a derived stream whose pairs, at times raised past the rows'
# watermarks, are counted per window
RJOIN = """CREATE STREAM events (key BIGINT, v BIGINT, ts TIMESTAMP,
  WATERMARK FOR ts AS ts - INTERVAL '40' MILLISECONDS) WITH (source = 'csv', path = 'events.csv');
CREATE STREAM other (key BIGINT, w BIGINT, ts TIMESTAMP,
  WATERMARK FOR ts AS ts - INTERVAL '40' MILLISECONDS) WITH (source = 'csv', path = 'other.csv');
CREATE STREAM pairs AS SELECT e.key %% 16 AS k, o.w FROM events e JOIN other o
  ON e.key = o.key AND e.v %% 50 = o.w %% 50;
CREATE SINK out WITH (sink = 'csv', path = 'out.csv');
INSERT INTO out SELECT k, COUNT(*) AS n, SUM(w) AS sw, WINDOW_END
FROM pairs GROUP BY k WINDOW TUMBLING (SIZE 100 MILLISECONDS);
""".replace("%%", "%")
# a window with a GRACE PERIOD: rows up to 400 ms late update its result
# (a changelog); its state is also the late buckets and the accumulators
# of the rows written at each window's end, kept until end + grace
GRACE = """CREATE STREAM events (key BIGINT, v BIGINT, ts TIMESTAMP,
  WATERMARK FOR ts AS ts - INTERVAL '40' MILLISECONDS) WITH (source = 'csv', path = 'events.csv');
CREATE SINK out WITH (sink = 'csv', path = 'out.csv');
INSERT INTO out SELECT key %% 50 AS k, COUNT(*) AS n, SUM(v) AS total, MIN(v) AS lo, WINDOW_END
FROM events GROUP BY key %% 50 WINDOW TUMBLING (SIZE 200 MILLISECONDS, GRACE PERIOD 400 MILLISECONDS)
HAVING SUM(v) %% 3 <> 0;
""".replace("%%", "%")
GEN = """CREATE STREAM events (key BIGINT GENERATED BY uniform(0, 499),
                      v BIGINT GENERATED BY uniform(1, 1000),
                      ts TIMESTAMP GENERATED BY sequence(0, 1))
  WITH (source = 'datagen', seed = 5, rate = %d, limit = %d);
CREATE SINK out WITH (sink = 'csv', path = 'out.csv');
INSERT INTO out SELECT key, COUNT(*) AS n, SUM(v) AS total, WINDOW_END
FROM events GROUP BY key WINDOW TUMBLING (SIZE 300 MILLISECONDS);
""" % (RATE, 2 * N)

# name, query, csv streams paced (--set), extra run flags
CASES = [
    ("tumbling csv", TUMBLE, ["events"], []),
    ("hopping csv", HOP, ["events"], []),
    ("session csv", SESSION, ["events"], []),
    ("join csv", JOIN, ["events", "other"], []),
    ("interval join csv", IJOIN, ["events", "other"], []),
    ("outer interval join csv", IJOIN_OUTER, ["events", "other"], []),
    ("updating csv", UPDATING, ["events"], []),
    ("regular join csv", RJOIN, ["events", "other"], []),
    ("grace csv", GRACE, ["events"], []),
    ("tumbling datagen", GEN, [], ["--threads", "2"]),
]


def write_data(d):
    """Two streams of N rows: 400 keys, times about 1 ms apart with up to
    30 ms of disorder (within the 40 ms bound) and a few late rows."""
    r = random.Random(7)
    for name in ("events.csv", "other.csv", "calm.csv"):
        with open(os.path.join(d, name), "w") as f:
            f.write("key,%s,ts\n" % ("w" if name == "other.csv" else "v"))
            for i in range(N):
                ts = i + r.randint(0, 30)
                if r.random() < 0.002 and name != "calm.csv":
                    ts = max(0, ts - 500)  # late
                f.write("%d,%d,%d\n" % (r.randint(0, 399), r.randint(1, 1000), ts))


def py_tumble(d):
    """The tumbling case computed here: a row is late when its window ended
    by W = (the largest time before it) - 40."""
    rows = [tuple(map(int, l.split(","))) for l in open(os.path.join(d, "events.csv")).read().split("\n")[1:] if l]
    acc, mx = {}, None
    for key, v, ts in rows:
        wend = ts // 200 * 200 + 200
        if mx is None or wend > mx - 40:
            a = acc.setdefault((wend, key), [0, 0, None])
            a[0] += 1
            a[1] += v
            a[2] = v if a[2] is None else min(a[2], v)
        mx = ts if mx is None else max(mx, ts)
    lines = ["key,n,total,lo,WINDOW_END"]
    for (wend, key), (n, t, lo) in sorted(acc.items()):
        lines.append("%d,%d,%d,%d,%d" % (key, n, t, lo, wend))
    return "\n".join(lines) + "\n"


def py_updating(d):
    """The updating case computed here (tests/e2e/lib/airref.py): a row
    counts at max(ts, W + 1), W = (the largest time before it) - 40; every
    500 ms, each key with rows in the interval: +I, -U/+U or -D."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "e2e", "lib"))
    from airref import changelog, csv_line, updating_times
    rows = [tuple(map(int, l.split(","))) for l in open(os.path.join(d, "events.csv")).read().split("\n")[1:] if l]
    uts = updating_times([r[2] for r in rows], 40)
    assert sum(u != r[2] for r, u in zip(rows, uts)) > 10  # rows behind the watermark, retimed
    batches = {}
    for (key, v, _), u in zip(rows, uts):
        batches.setdefault(u // 500, []).append(((key % 40,), v))
    out = changelog([batches[b] for b in sorted(batches)],
                    lambda s, v: (s[0] + 1, s[1] + v, min(s[2], v)) if s else (1, v, v),
                    lambda k, s: k + s if s[1] % 7 else None)
    return "".join(line + "\n" for line in ["op,k,n,total,lo"] + [csv_line((op,) + r) for _, op, r in out])


def env():
    # small blocks: each rank reads several blocks of each file, so cuts fall
    # inside other ranks' blocks
    return dict(os.environ, AIR_CSV_BLOCK="40000")


def start(d, exe, np, args, paced, extra_env=None):
    sets = []
    for stream in paced:
        sets += ["--set", "%s.rate=%d" % (stream, RATE)]
    e = env()
    if extra_env:
        e.update(extra_env)
    return subprocess.Popen([MPIRUN, "-np", str(np), exe] + sets + args, cwd=d, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)


def run(d, exe, np, args, paced=(), timeout=60, extra_env=None):
    p = start(d, exe, np, args, paced, extra_env)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        return None, out, err + "\n(timed out)"
    return p.returncode, out, err


def rank_pids(pid, exe):
    """The ranks of launcher pid: {rank: pid} (PMI_RANK of each child running exe)."""
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid=,comm="], capture_output=True, text=True).stdout
    table = [line.split(None, 2) for line in out.splitlines() if line.strip()]
    kids, todo = {}, [str(pid)]
    while todo:
        p = todo.pop()
        for c, pp, comm in table:
            if pp != p:
                continue
            todo.append(c)
            if comm == os.path.basename(exe):
                try:
                    envs = open("/proc/%s/environ" % c, "rb").read().split(b"\0")
                except OSError:
                    continue
                for e in envs:
                    if e.startswith(b"PMI_RANK="):
                        kids[int(e[9:])] = int(c)
    return kids


def manifests(ck):
    if not os.path.isdir(ck):
        return []
    return sorted(x for x in os.listdir(ck) if x.startswith("ckpt-") and
                  os.path.exists(os.path.join(ck, x, "MANIFEST")))


def killed_run(d, exe, np, args, paced, rank=None, resume=False, wait_for=1):
    """A run that is SIGKILLed on one rank after it has wait_for more
    complete checkpoints (or completes first: returns its exit status then)."""
    ck = os.path.join(d, "ckd")
    before = set(manifests(ck))
    flags = ["--checkpoint-dir", "ckd", "--checkpoint-interval", "100ms"] + (["--resume", "auto"] if resume else [])
    p = start(d, exe, np, flags + args, paced)
    t0 = time.time()
    while p.poll() is None and time.time() - t0 < 30 and len(set(manifests(ck)) - before) < wait_for:
        time.sleep(0.02)
    if wait_for == 1:
        time.sleep(rng.random() * 0.4)
    ranks = rank_pids(p.pid, exe)
    victim = None
    if p.poll() is None and ranks:
        victim = rank if rank is not None else rng.choice(sorted(ranks))
        if victim in ranks:
            os.kill(ranks[victim], signal.SIGKILL)
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        return "hang", victim, err
    return p.returncode, victim, err


def check_final(label, d, ref, err, extra=""):
    out = os.path.join(d, "out.csv")
    if not os.path.exists(out):
        h.fail(label + ": no out.csv", err)
        return False
    got = open(out).read()
    if got != ref:
        h.fail(label + ": the sink differs from the uninterrupted run's", unified_diff(ref, got, "reference", label))
        return False
    if os.path.exists(out + ".tmp"):
        h.fail(label + ": out.csv.tmp left")
        return False
    left = [x for x in os.listdir(os.path.join(d, "ckd")) if not x.endswith(".bad")] \
        if os.path.exists(os.path.join(d, "ckd")) else []
    if left:  # (a checkpoint found bad is kept, as ckpt-N.bad)
        h.fail(label + ": a completed job left its checkpoints", "\n".join(left))
        return False
    h.ok(label + extra)
    return True


def clean(d):
    for f in ("out.csv", "out.csv.tmp"):
        if os.path.exists(os.path.join(d, f)):
            os.remove(os.path.join(d, f))
    shutil.rmtree(os.path.join(d, "ckd"), ignore_errors=True)


def trial(label, d, exe, args, paced, ref, kills, rank=None):
    """Killed `kills` times (resumed after each), then resumed to the end."""
    clean(d)
    what = []
    for k in range(kills):
        rc, victim, err = killed_run(d, exe, 2, args, paced, rank=rank, resume=k > 0)
        if rc == "hang":
            h.fail(label + ": no end 30 s after the kill", err)
            return
        if rc == 0:  # it completed before the kill
            break
        if not manifests(os.path.join(d, "ckd")):
            h.fail(label + ": killed with no complete checkpoint left", err)
            return
        what.append("rank %s" % victim)
    rc, out, err = run(d, exe, 2, ["--checkpoint-dir", "ckd", "--checkpoint-interval", "100ms",
                                   "--resume", "auto"] + args, paced)
    if rc != 0:
        h.fail("%s: the resumed run failed (exit %s)" % (label, rc), err)
        return
    if what and "resuming from checkpoint" not in err:
        h.fail(label + ": the resumed run did not say which checkpoint it resumed", err)
        return
    if not check_final(label, d, ref, err, ": killed (%s), resumed, same bytes" % ", ".join(what or ["none"])):
        return
    # the counts are the job's, as an uninterrupted run's (events in, late, windows)
    want = [REF_COUNTS.get(label.split(":")[0])]
    got = re.search(r"(\d+) events in .*\n.*windows (\d+), late (\d+)", err)
    if want[0] and (not got or got.groups() != want[0]):
        h.fail(label + ": the summary's counts are not the uninterrupted run's %s" % (want[0],), err)
    elif want[0]:
        h.ok(label + ": the summary counts the job from its start: %s events in, %s windows, %s late" % want[0])


def rescaled(label, d, exe, args, paced, ref, np_from, np_to, want_err=None):
    """Killed on np_from ranks after a checkpoint, resumed on np_to: the
    keyed state spread by the exchange's hash, sources from the cut."""
    clean(d)
    rc, victim, err = killed_run(d, exe, np_from, args, paced)
    if rc == "hang" or (rc != 0 and not manifests(os.path.join(d, "ckd"))):
        h.fail("%s: no checkpoint on %d ranks (exit %s)" % (label, np_from, rc), err)
        return
    if rc == 0:
        h.fail("%s: the run on %d ranks completed before the kill" % (label, np_from), err)
        return
    rc, out, err = run(d, exe, np_to, ["--checkpoint-dir", "ckd", "--resume", "auto"] + args, paced)
    if want_err:
        if rc == 0 or want_err not in err:
            h.fail("%s: resumed on %d ranks, expected the message '%s' (exit %s)" % (label, np_to, want_err, rc), err)
        else:
            h.ok("%s: refused on %d ranks: %s" % (label, np_to, want_err))
        return
    if rc != 0:
        h.fail("%s: resumed on %d ranks: exit %s" % (label, np_to, rc), err)
        return
    check_final(label, d, ref, err, ": taken on %d ranks, resumed on %d, same bytes" % (np_from, np_to))


def corrupt_cases(d, exe, ref):
    """What a bad checkpoint does on resume."""
    ck = os.path.join(d, "ckd")

    def two_checkpoints():
        clean(d)
        killed_run(d, exe, 2, [], ["events"], rank=1, wait_for=2)
        return manifests(ck)

    for how in ("corrupt", "torn", "missing"):
        ms = two_checkpoints()
        if len(ms) < 2:
            h.fail("%s state file: fewer than two checkpoints to choose from (%s)" % (how, ms))
            continue
        newest = os.path.join(ck, ms[-1])
        files = sorted(f for f in os.listdir(newest) if f.startswith("r1-"))
        victim = os.path.join(newest, files[-1])
        if how == "corrupt":
            data = bytearray(open(victim, "rb").read())
            data[len(data) // 2] ^= 0x40
            open(victim, "wb").write(bytes(data))
        elif how == "torn":
            size = os.path.getsize(victim)
            os.truncate(victim, size // 2)
        else:
            os.remove(victim)
        rc, out, err = run(d, exe, 2, ["--checkpoint-dir", "ckd", "--resume", "auto"], ["events"])
        want = {"corrupt": "is corrupt (CRC32C", "torn": "is truncated or torn", "missing": "is missing"}[how]
        if rc != 0:
            h.fail("%s state file: the resumed run failed (exit %s)" % (how, rc), err)
        elif "warning: checkpoint" not in err or want not in err or victim.split("/")[-1] not in err or \
                ("resuming from checkpoint 'ckd/%s'" % ms[-2]) not in err:
            h.fail("%s state file: no warning naming it, or not the checkpoint before" % how, err)
        else:
            check_final("%s state file: named, the checkpoint before used" % how, d, ref, err)


def refusals(d, exe, other_exe):
    ck = os.path.join(d, "ckd")
    clean(d)
    rc, victim, err = killed_run(d, exe, 2, [], ["events"])
    if not manifests(ck):
        h.fail("refusals: no checkpoint to refuse", err)
        return
    checks = [
        ("another query", other_exe, 2, ["--checkpoint-dir", "ckd", "--resume", "auto"],
         "was written by another query"),
        ("a fresh run", exe, 2, ["--checkpoint-dir", "ckd"], "holds checkpoints of an earlier run"),
        ("--resume of an empty directory", exe, 2, ["--resume", "nowhere"], "--resume: no complete checkpoint in"),
        ("a bad interval", exe, 2, ["--checkpoint-dir", "x", "--checkpoint-interval", "soon"],
         "bad --checkpoint-interval 'soon'"),
    ]
    for label, e, np, args, want in checks:
        rc, out, err = run(d, e, np, args, ["events"])
        if rc not in (1, 2) or want not in err:
            h.fail("refused: %s (exit %s)" % (label, rc), err)
        else:
            h.ok("refused: %s: %s" % (label, want))
    if not manifests(ck):
        h.fail("refusals: the checkpoints did not survive the refused runs")


def stopped_then_resumed(d, exe, ref):
    """SIGTERM stops the job at a cut (its sink written as the stop says);
    --resume auto continues from the last checkpoint to the same bytes."""
    clean(d)
    p = start(d, exe, 2, ["--checkpoint-dir", "ckd", "--checkpoint-interval", "100ms"], ["events"])
    ck = os.path.join(d, "ckd")
    t0 = time.time()
    while p.poll() is None and time.time() - t0 < 30 and not manifests(ck):
        time.sleep(0.02)
    time.sleep(0.3)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=30)
    if p.returncode != 0 or not manifests(ck) or not os.path.exists(os.path.join(d, "out.csv")):
        h.fail("stop: SIGTERM did not end the run cleanly with its checkpoints kept (exit %s)" % p.returncode, err)
        return
    rc, out, err = run(d, exe, 2, ["--checkpoint-dir", "ckd", "--resume", "auto"], ["events"])
    if rc != 0:
        h.fail("stop: the resumed run failed", err)
        return
    check_final("stopped by SIGTERM, resumed", d, ref, err, ": same bytes as an uninterrupted run")


def redis_case(work):
    """sink = 'redis' is idempotent by key: a run killed and resumed leaves
    the hashes an uninterrupted run leaves (rows after the checkpoint are
    written again, with the same values under the same keys)."""
    try:
        srv = RedisServer(work)
    except (OSError, RuntimeError) as e:
        h.fail("redis sink: no redis-server (%s)" % e)
        return
    try:
        d = os.path.join(work, "redis")
        os.mkdir(d)
        for f in ("events.csv",):
            shutil.copy(os.path.join(work, f), d)
        q = TUMBLE.replace("CREATE SINK out WITH (sink = 'csv', path = 'out.csv');",
                           "CREATE SINK out WITH (sink = 'redis', address = '127.0.0.1:%d');" % srv.port)
        open(os.path.join(d, "r.airq"), "w").write(q)
        exe = os.path.join(d, "r")
        if not h.compile(AIRC, d, "r.airq", exe, ["--cflags", "-Werror"], "redis sink"):
            return

        def dump():
            keys = sorted(srv.cli("--scan", "--pattern", "out:*", raw=True).splitlines())
            cmds = "".join("HGETALL %s\n" % k for k in keys)
            return keys, srv.cli(stdin=cmds, raw=True)

        srv.cli("FLUSHALL")
        rc, out, err = run(d, exe, 2, [])
        want = dump()
        if rc != 0 or not want[0]:
            h.fail("redis sink: the uninterrupted run (exit %s, %d hashes)" % (rc, len(want[0])), err)
            return
        srv.cli("FLUSHALL")
        rc, victim, err = killed_run(d, exe, 2, [], ["events"])
        if rc == 0 or not manifests(os.path.join(d, "ckd")):
            h.fail("redis sink: not killed after a checkpoint (exit %s)" % rc, err)
            return
        rc, out, err = run(d, exe, 2, ["--checkpoint-dir", "ckd", "--resume", "auto"], ["events"])
        got = dump()
        if rc != 0:
            h.fail("redis sink: the resumed run failed", err)
        elif got != want:
            h.fail("redis sink: the hashes differ from an uninterrupted run's",
                   unified_diff(want[1], got[1], "uninterrupted", "resumed"))
        else:
            h.ok("redis sink: killed (rank %s), resumed: the %d hashes of an uninterrupted run" % (victim, len(got[0])))
    finally:
        srv.stop()


def main():
    with h.workdir() as work:
        write_data(work)
        exes = {}
        for i, (name, query, paced, args) in enumerate(CASES):
            if ONLY and name not in ONLY:
                continue
            src = os.path.join(work, "q%d.airq" % i)
            open(src, "w").write(query)
            exe = os.path.join(work, "q%d" % i)
            if not h.compile(AIRC, work, src, exe, ["--cflags", "-Werror"], name):
                continue
            exes[name] = exe
            clean(work)
            refs = {}
            for np in (2, 1, 3):
                rc, out, err = run(work, exe, np, args)
                if rc != 0:
                    h.fail("%s: reference run on %d ranks failed" % (name, np), err)
                    break
                refs[np] = open(os.path.join(work, "out.csv")).read()
                m = re.search(r"(\d+) events in .*\n.*windows (\d+), late (\d+)", err)
                if np == 2 and m:
                    REF_COUNTS[name] = m.groups()
            if len(refs) < 3:
                continue
            ref = refs[2]
            if refs[1] != ref or refs[3] != ref:
                h.fail(name + ": 1, 2 and 3 ranks disagree", unified_diff(refs[1], ref, "1 rank", "2 ranks"))
                continue
            if name == "tumbling csv" and ref != py_tumble(work):
                h.fail(name + ": differs from the Python reference", unified_diff(py_tumble(work), ref, "python", name))
                continue
            if name == "updating csv" and ref != py_updating(work):
                h.fail(name + ": differs from the Python reference",
                       unified_diff(py_updating(work), ref, "python", name))
                continue
            h.ok("%s: reference (%d lines, same on 1, 2 and 3 ranks)" % (name, ref.count("\n")))
            # an uninterrupted run taking checkpoints writes the same bytes
            rc, out, err = run(work, exe, 2, ["--checkpoint-dir", "ckd", "--checkpoint-interval", "50ms"] + args,
                               paced)
            if rc != 0:
                h.fail(name + ": run with checkpoints failed", err)
                continue
            if "checkpoints 0 " in err:
                h.fail(name + ": the paced run took no checkpoint", err)
            check_final(name + ": checkpoints every 50 ms", work, ref, err, ", same bytes")
            for t in range(TRIALS):
                trial("%s: trial %d" % (name, t + 1), work, exe, args, paced, ref, kills=2)
            if name in ("tumbling csv", "join csv") and not ONLY:  # every operator its own pipeline
                nexe = exe + "_nofuse"
                if h.compile(AIRC, work, src, nexe, ["--no-fuse", "--cflags", "-Werror"], name + " --no-fuse"):
                    clean(work)
                    rc, out, err = run(work, nexe, 2, args)
                    if rc != 0 or open(os.path.join(work, "out.csv")).read() != ref:
                        h.fail(name + " --no-fuse: its uninterrupted run is not the fused one's bytes", err)
                    else:
                        trial("%s --no-fuse" % name, work, nexe, args, paced, ref, kills=2)
                        rescaled(name + " --no-fuse", work, nexe, args, paced, ref, 2, 3)
            if name == "hopping csv":  # the stacks of shared slices are per rank
                rescaled(name, work, exe, args, paced, ref, 2, 3, "cannot be spread over another number of ranks")
            else:
                for np_from, np_to in ((2, 1), (2, 3), (3, 2)):
                    rescaled(name, work, exe, args, paced, ref, np_from, np_to)
            if name == "tumbling csv" and not ONLY:
                trial(name + ": rank 0 killed", work, exe, args, paced, ref, kills=1, rank=0)
                # killed while writing checkpoint 3: rank 1 wrote its files, no manifest
                clean(work)
                rc, out, err = run(work, exe, 2, ["--checkpoint-dir", "ckd", "--checkpoint-interval", "100ms"],
                                   paced, extra_env={"AIR_CKPT_KILL": "3:1"})
                ms = manifests(os.path.join(work, "ckd"))
                if rc == 0 or "ckpt-000002" not in ms or "ckpt-000003" in ms or \
                        not os.path.isdir(os.path.join(work, "ckd", "ckpt-000003")):
                    h.fail(name + ": a kill inside checkpoint 3 should leave 2 complete, 3 cut short (exit %s)" % rc,
                           err + "\n" + " ".join(ms))
                else:
                    rc, out, err = run(work, exe, 2, ["--checkpoint-dir", "ckd", "--resume", "auto"], ["events"])
                    if rc != 0 or "resuming from checkpoint 'ckd/ckpt-000002'" not in err:
                        h.fail(name + ": the resume after a kill inside a checkpoint", err)
                    else:
                        check_final(name + ": killed inside checkpoint 3, resumed from 2", work, ref, err)
                corrupt_cases(work, exe, ref)
                stopped_then_resumed(work, exe, ref)
        if "tumbling csv" in exes and "hopping csv" in exes:
            refusals(work, exes["tumbling csv"], exes["hopping csv"])
        if not ONLY:
            redis_case(work)
    sys.exit(h.summary())


if __name__ == "__main__":
    main()
