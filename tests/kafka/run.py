#!/usr/bin/env python3
"""source = 'kafka' against a real Kafka protocol server: librdkafka's mock
cluster (tests/kafka/mock_cluster.c), started here on loopback, fed with
kcat as a user would (make check-kafka, part of check).

Bounded topics (end = 'latest'): one partition gives the bytes the csv
source gives on the same rows; four partitions, JSON messages and bad
messages give what the reference below computes, lateness per partition:
a row is late when its window ended by (the largest event time before it in
its own partition) - bound. 1, 2 and 3 ranks, fused and --no-fuse.
Then: a group's committed offsets, start offsets, an idle partition
(idle_timeout), a live topic fed while the query runs, checkpoints of one
killed half-way and resumed (same and other rank counts), brokers that cannot
be reached at the start and a broker that goes down, and compile errors.

    python3 tests/kafka/run.py      (from the repository root)
Environment: AIRC (build/airc), MOCK (build/tests/mock_cluster), MPIRUN
(mpirun), KEEP=1.
"""
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time

ROOT = os.getcwd()
sys.path.insert(0, os.path.join(ROOT, "tests"))
from lib import Harness, run_stats, unified_diff  # noqa: E402

AIRC = os.path.abspath(os.environ.get("AIRC", "build/airc"))
MOCK = os.path.abspath(os.environ.get("MOCK", "build/tests/mock_cluster"))
MPIRUN = os.environ.get("MPIRUN", "mpirun")

h = Harness("kafka")
rng = random.Random(20261205)

BOUND_MS = 1000
WINDOW_MS = 1000
QUERY = """CREATE STREAM ev (key BIGINT, v BIGINT, ts TIMESTAMP,
                 WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ({with_});
SELECT key, COUNT(*) AS n, SUM(v) AS s, WINDOW_END FROM ev GROUP BY key
WINDOW TUMBLING (SIZE 1 SECOND);
"""


class Cluster:
    """The mock cluster: brokers on 127.0.0.1, topics made at the start."""

    def __init__(self, brokers, topics):
        self.p = subprocess.Popen([MOCK, str(brokers)] + ["%s:%d" % t for t in topics], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.bootstrap = self.p.stdout.readline().strip()
        if not self.bootstrap.startswith("127.0.0.1:"):
            raise RuntimeError("mock cluster did not start: " + self.p.stderr.read())

    def command(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        return self.p.stdout.readline().strip()

    def close(self):
        try:
            self.p.stdin.close()
            self.p.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            self.p.kill()
            self.p.wait()


def produce(c, topic, partition, lines, d):
    """kcat -P: one message per line, into one partition."""
    path = os.path.join(d, "in_%s_%d.txt" % (topic, partition))
    with open(path, "w") as f:
        f.write("".join(l + "\n" for l in lines))
    r = subprocess.run(["kcat", "-P", "-b", c.bootstrap, "-t", topic, "-p", str(partition), "-l", path],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError("kcat failed: " + r.stderr)


def make_rows(n, key_range=6, span_ms=8000, disorder_ms=2500):
    """Rows in rough time order with disorder, some of them late."""
    rows = []
    for i in range(n):
        t = i * span_ms // n + rng.randrange(-disorder_ms, 200)
        rows.append((rng.randrange(key_range), rng.randrange(-20, 100), max(0, t)))
    return rows


def reference(parts):
    """parts: per partition, its messages in order, each a tuple (key, v,
    ts) or None for a bad row. Lateness per partition. Returns the lines
    and the late count."""
    acc, late = {}, 0
    for msgs in parts:
        maxts = None
        for m in msgs:
            if m is None:
                continue
            k, v, ts = m
            wend = ts // WINDOW_MS * WINDOW_MS + WINDOW_MS
            if maxts is not None and wend <= maxts - BOUND_MS:
                late += 1
            else:
                a = acc.setdefault((wend, k), [0, 0])
                a[0] += 1
                a[1] += v
            maxts = ts if maxts is None else max(maxts, ts)
    lines = ["key,n,s,WINDOW_END"] + ["%d,%d,%d,%d" % (k, n, s, w) for (w, k), (n, s) in sorted(acc.items())]
    return lines, late


def csv_line(r):
    return "%d,%d,%d" % r


def json_line(r):
    k, v, ts = r
    return '{"ts": %d, "v": %d, "extra": {"a": [1, 2]}, "key": %d}' % (ts, v, k)


def compile_query(d, name, with_, flags=(), query=QUERY):
    src = os.path.join(d, name + ".airq")
    with open(src, "w") as f:
        f.write(query.format(with_=with_))
    exe = os.path.join(d, name)
    return exe if h.compile(AIRC, d, src, exe, flags, label=name) else None


def run(d, exe, np, timeout=60, extra=()):
    return run_stats(MPIRUN, d, exe, np, timeout, extra)


def check_bounded(work, c, label, topic, parts, fmt="csv", extra_with="", bad=0, query=QUERY):
    want, late = reference(parts)
    good = sum(1 for p in parts for m in p if m is not None)
    w = "source = 'kafka', brokers = '%s', topic = '%s', end = 'latest', timeout = '10 s'%s%s" % (
        c.bootstrap, topic, ", format = 'json'" if fmt == "json" else "", extra_with)
    d = os.path.join(work, label.replace(" ", "_"))
    os.mkdir(d)
    exes = {v: compile_query(d, "q_" + v, w, ["--no-fuse"] if v == "nofuse" else [], query)
            for v in ("fuse", "nofuse")}
    for np, v in ((1, "fuse"), (2, "fuse"), (3, "fuse"), (2, "nofuse"), (3, "nofuse")):
        if not exes[v]:
            continue
        tag = "%s: np=%d %s" % (label, np, v)
        rc, out, err, st = run(d, exes[v], np)
        got = out.splitlines()
        if rc != 0:
            h.fail("%s: exit %s" % (tag, rc), err)
        elif got != want:
            h.fail(tag + ": output differs from the reference", unified_diff(want, got, "expected", tag) + err)
        elif st.get("events_in") != good or st.get("late") != late or st.get("bad_rows") != bad or \
                st.get("kafka_lag") != 0:
            h.fail("%s: events %s late %s bad %s kafka_lag %s; expected %d, %d, %d, 0" % (
                tag, st.get("events_in"), st.get("late"), st.get("bad_rows"), st.get("kafka_lag"), good, late,
                bad), err)
        else:
            h.ok("%s: %d messages, %d late, %d bad, %d result rows as the reference" % (
                tag, good + bad, late, bad, len(want) - 1))
    return d


def bounded_cases(work, c):
    # one partition: the same rows as a csv file, and the csv source's bytes
    rows = make_rows(3000)
    produce(c, "one", 0, [csv_line(r) for r in rows], work)
    d = check_bounded(work, c, "one partition", "one", [rows])
    with open(os.path.join(d, "ev.csv"), "w") as f:
        f.write("".join(csv_line(r) + "\n" for r in rows))
    exe = compile_query(d, "q_csv", "source = 'csv', path = 'ev.csv'")
    kexe = os.path.join(d, "q_fuse")
    if exe and os.path.exists(kexe):
        a, b = run(d, exe, 2), run(d, kexe, 2)
        if a[0] == 0 and a[1] == b[1] and a[3].get("late") == b[3].get("late"):
            h.ok("one partition: the csv source on the same rows writes the same bytes")
        else:
            h.fail("one partition: the csv source differs", unified_diff(a[1].splitlines(), b[1].splitlines(),
                                                                          "csv", "kafka"))

    # four partitions, rows spread by key: lateness per partition
    parts = [[] for _ in range(4)]
    for r in make_rows(6000, key_range=20):
        parts[rng.randrange(4)].append(r)
    for p in range(4):
        produce(c, "four", p, [csv_line(r) for r in parts[p]], work)
    check_bounded(work, c, "four partitions", "four", parts)

    # the program compiled for topic 'one' run on 'four': --set (run-time options)
    if os.path.exists(kexe):
        want4 = reference(parts)[0]
        rc, out, err, st = run(d, kexe, 2, extra=["--set", "ev.topic=four"])
        if rc == 0 and out.splitlines() == want4:
            h.ok("--set ev.topic=four: the program compiled for 'one' reads 'four', as the reference")
        else:
            h.fail("--set ev.topic=four: exit %s" % rc, unified_diff(want4, out.splitlines(), "expected", "got") + err)
        # kafka.* properties set at run time reach librdkafka by their names
        os.environ["AIRC_SET_ev__kafka__fetch__wait__max__ms"] = "10"
        try:
            rc, out, err, st = run(d, kexe, 3, extra=["--set", "ev.topic=four",
                                                      "--set", "ev.kafka.queued.min.messages=1000"])
            rc2, _, err2, _ = run(d, kexe, 2, extra=["--set", "ev.kafka.nonsense.prop=1"])
        finally:
            del os.environ["AIRC_SET_ev__kafka__fetch__wait__max__ms"]
        if rc == 0 and out.splitlines() == want4:
            h.ok("kafka.* set at run time (--set and AIRC_SET_): taken, the same rows")
        else:
            h.fail("kafka.* set at run time: exit %s" % rc, err)
        if rc2 == 1 and "option 'kafka.nonsense.prop'" in err2 and '"nonsense.prop"' in err2:
            h.ok("--set ev.kafka.nonsense.prop=1: refused by librdkafka, named as given")
        else:
            h.fail("--set ev.kafka.nonsense.prop=1: exit %s, not named" % rc2, err2)

    # two topics in one stream (partitions numbered over both: j mod N)
    check_bounded(work, c, "two topics", "one,four", [rows] + parts)

    # JSON messages
    jparts = [make_rows(1500), make_rows(1500)]
    for p in range(2):
        produce(c, "js", p, [json_line(r) for r in jparts[p]], work)
    check_bounded(work, c, "json", "js", jparts, fmt="json")

    # bad messages: located by topic, partition and offset, skipped, counted
    bparts, nbad = [[], []], 0
    for p in range(2):
        for r in make_rows(800):
            if rng.random() < 0.02:
                bparts[p].append(None)
                nbad += 1
            bparts[p].append(r)
    lines = {0: [], 1: []}
    kinds = ["1,2", "x,1,2", "1,2,3,4", '"a,1,2']
    for p in range(2):
        for i, m in enumerate(bparts[p]):
            lines[p].append(csv_line(m) if m else kinds[i % len(kinds)])
        produce(c, "bad", p, lines[p], work)
    d = check_bounded(work, c, "bad messages", "bad", bparts, bad=nbad, extra_with=", max_bad_rows = 100")
    rc, out, err, st = run(d, os.path.join(d, "q_fuse"), 1)
    # which messages are shown first depends on the order the partitions are
    # consumed in: every location shown must be a bad message, and some shown
    badat = {(p, i) for p in range(2) for i, m in enumerate(bparts[p]) if m is None}
    shown = [(int(a), int(b)) for a, b in
             re.findall(r"kafka topic 'bad' partition (\d+) offset (\d+): ", err)]
    wrong = [x for x in shown if x not in badat]
    if shown and not wrong:
        h.ok("bad messages: %d shown, each with its topic, partition and offset" % len(shown))
    else:
        h.fail("bad messages: %d located, %d not at a bad message (%s)"
               % (len(shown), len(wrong), wrong[:3]), err)


# the event time is the message's timestamp, not a field of the value
META_QUERY = """CREATE STREAM ev (key BIGINT, v BIGINT, ts TIMESTAMP METADATA FROM 'timestamp',
                 WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ({with_});
SELECT key, COUNT(*) AS n, SUM(v) AS s, WINDOW_END FROM ev GROUP BY key
WINDOW TUMBLING (SIZE 1 SECOND);
"""


def produce_ts(c, topic, partition, msgs, d):
    """Messages (timestamp, value) with their timestamps set (mock_cluster's
    produce: kcat cannot set one)."""
    path = os.path.join(d, "ts_%s_%d.txt" % (topic, partition))
    with open(path, "w") as f:
        f.write("".join("%d\t%s\n" % m for m in msgs))
    r = c.command("produce %s %d %s" % (topic, partition, path))
    if r != "ok":
        raise RuntimeError("mock_cluster produce: " + r)


def message_timestamp(work, c):
    """ts TIMESTAMP METADATA FROM 'timestamp': csv values of two fields,
    JSON values whose own "ts" is ignored; per-partition lateness from the
    message timestamps, as the reference computes it."""
    c.command("topic mts:3")
    c.command("topic mtsj:2")

    def epoch(rows):  # realistic times (a timestamp of 0 is "now" to a producer)
        return [(k, v, ts + 1764806400000) for k, v, ts in rows]

    parts = [epoch(make_rows(1500, key_range=8)) for _ in range(3)]
    for p in range(3):
        produce_ts(c, "mts", p, [(ts, "%d,%d" % (k, v)) for k, v, ts in parts[p]], work)
    check_bounded(work, c, "message timestamp", "mts", parts, query=META_QUERY)
    jparts = [epoch(make_rows(1200)), epoch(make_rows(1200))]
    for p in range(2):
        produce_ts(c, "mtsj", p, [(ts, '{"v": %d, "ts": 99999999, "key": %d}' % (v, k)) for k, v, ts in jparts[p]],
                   work)
    check_bounded(work, c, "message timestamp, json", "mtsj", jparts, fmt="json", query=META_QUERY)
    # a value with the time field as well is one field too many: a bad row
    c.command("topic mtsbad:1")
    rows = epoch(make_rows(300))
    bad = {7, 100, 230}
    produce_ts(c, "mtsbad", 0, [(ts, "%d,%d,%d" % (k, v, ts) if i in bad else "%d,%d" % (k, v))
                                for i, (k, v, ts) in enumerate(rows)], work)
    check_bounded(work, c, "message timestamp, bad rows", "mtsbad",
                  [[None if i in bad else r for i, r in enumerate(rows)]], bad=len(bad), query=META_QUERY)


def group_and_start(work, c):
    d = os.path.join(work, "group")
    os.mkdir(d)
    first = make_rows(500, disorder_ms=0)
    produce(c, "grp", 0, [csv_line(r) for r in first], d)
    base = "source = 'kafka', brokers = '%s', topic = 'grp', end = 'latest'" % c.bootstrap
    g = compile_query(d, "q_group", base + ", group = 'airc-test'")
    s = compile_query(d, "q_start", base + ", start = '0:123'")
    if not g or not s:
        return
    rc1, _, err1, st1 = run(d, g, 2)
    second = [(k, v, ts + 9000) for k, v, ts in make_rows(200, disorder_ms=0)]
    produce(c, "grp", 0, [csv_line(r) for r in second], d)
    rc2, out2, err2, st2 = run(d, g, 2)
    want2, _ = reference([second])
    if rc1 == 0 and rc2 == 0 and st1.get("events_in") == 500 and st2.get("events_in") == 200 and \
            out2.splitlines() == want2:
        h.ok("group: the second run starts at the offsets the first committed (500, then 200 messages)")
    else:
        h.fail("group: events %s then %s (expected 500, 200)" % (st1.get("events_in"), st2.get("events_in")),
               err1 + err2)
    rc, out, err, st = run(d, s, 3)
    want, _ = reference([(first + second)[123:]])
    if rc == 0 and st.get("events_in") == 700 - 123 and out.splitlines() == want:
        h.ok("start = '0:123': partition 0 read from offset 123")
    else:
        h.fail("start = '0:123': %s events (expected %d)" % (st.get("events_in"), 700 - 123), err)


def lag_case(work, c):
    """The consumer lag (--stats, --stats-json kafka_lag, the progress
    line): a run stopped by --duration long before it read a big topic;
    what it read and what it says it lags behind add up to the topic."""
    d = os.path.join(work, "lag")
    os.mkdir(d)
    c.command("topic lag:2")
    n = 60000
    for q in range(2):
        produce(c, "lag", q, ["%d,%d,%d" % (i % 7, i % 100, i) for i in range(n)], d)
    exe = compile_query(d, "q", "source = 'kafka', brokers = '%s', topic = 'lag', timeout = '10 s'" % c.bootstrap)
    if not exe:
        return
    for np, secs in ((2, "0.05"), (1, "0.1"), (3, "5")):
        rc, _, err, st = run(d, exe, np, extra=["--duration", secs])
        ev, lag = st.get("events_in"), st.get("kafka_lag")
        tag = "lag np=%d --duration %s" % (np, secs)
        if rc != 0 or ev is None or lag is None:
            h.fail("%s: exit %s, events %s, kafka_lag %s" % (tag, rc, ev, lag), err)
        elif ev + lag != 2 * n or "kafka lag at the end: %d message" % lag not in err:
            h.fail("%s: %d events read + %d behind != %d messages" % (tag, ev, lag, 2 * n), err)
        else:
            h.ok("%s: %d messages read, %d behind the newest offsets (stats and summary agree)" % (tag, ev, lag))


def read_until(p, want_lines, secs):
    """Lines of p's stdout until want_lines came or secs passed."""
    got, deadline = [], time.time() + secs
    os.set_blocking(p.stdout.fileno(), False)
    buf = ""
    while time.time() < deadline and len(got) < want_lines:
        try:
            chunk = p.stdout.read()
        except (OSError, TypeError):
            chunk = None
        if chunk:
            buf += chunk
            *done, buf = buf.split("\n")
            got += [l for l in done if not l.startswith("[mpiexec@")]
        else:
            time.sleep(0.05)
    return got


def stop(p, secs=30):
    p.send_signal(signal.SIGINT)
    try:
        p.wait(secs)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return None
    os.set_blocking(p.stdout.fileno(), True)
    return p.returncode, p.stdout.read(), p.stderr.read()


def live_cases(work, c):
    """Unbounded: windows are written as they close, while the query runs."""
    # fed: the partitions that get messages (the others idle). 1-2 ranks:
    # partition 2 idle on a rank with busy ones; 3 ranks: the idle ones are
    # whole ranks, which must go as far as the busy ranks (air_peer_wm);
    # with 2 partitions on 3 ranks, rank 2 has none (it ends at once)
    for np, idle, fed, nparts in ((3, False, 3, 3), (1, True, 2, 3), (2, True, 2, 3), (3, True, 2, 3),
                                  (3, True, 1, 3), (3, True, 1, 2)):
        d = os.path.join(work, "live_%d_%s_%d_%d" % (np, idle, fed, nparts))
        os.mkdir(d)
        topic = "live%d%d%d%d" % (np, idle, fed, nparts)
        c.command("topic %s:%d" % (topic, nparts))
        # an idle_timeout longer than the feeder's pauses between steps (a
        # kcat each): a fed partition turns idle only after its last step,
        # so no step is left unread at the stop by windows closed over it
        w = "source = 'kafka', brokers = '%s', topic = '%s', timeout = '10 s'%s" % (
            c.bootstrap, topic, ", idle_timeout = '1500 ms'" if idle else "")
        exe = compile_query(d, "q", w)
        if not exe:
            continue
        label = "live np=%d, %d partitions%s" % (np, nparts, ", %d idle" % (nparts - fed) if idle else "")
        p = subprocess.Popen([MPIRUN, "-np", str(np), exe, "--on-stop", "emit"], cwd=d, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        parts = [[] for _ in range(nparts)]
        for step in range(4):  # four seconds of event time, one after another
            for q in range(fed):
                rows = [(rng.randrange(5), rng.randrange(100), step * 1000 + rng.randrange(1000))
                        for _ in range(100)]
                rows.sort(key=lambda r: r[2])
                parts[q] += rows
                produce(c, topic, q, [csv_line(r) for r in rows], d)
        # windows up to 3000 end by the watermark 4000 - 1000 - ... : at least 2 written before a stop
        early = read_until(p, 1 + 2 * 5, 15)
        res = stop(p)
        if res is None:
            h.fail(label + ": no end 30 s after SIGINT")
            continue
        rc, rest, err = res
        got = early + [l for l in rest.splitlines() if not l.startswith("[mpiexec@")]
        want, late = reference(parts)
        windows_early = len({l.split(",")[-1] for l in early[1:]})
        if rc != 0:
            h.fail("%s: exit %s" % (label, rc), err)
        elif windows_early < 2:
            h.fail("%s: %d windows written before the stop (expected 2 or more)" % (label, windows_early), err)
        elif got != want:
            h.fail(label + ": output differs", unified_diff(want, got, "expected", label) + err)
        else:
            h.ok("%s: %d windows written as they closed, all %d rows after SIGINT" % (
                label, windows_early, len(want) - 1))


CKPT_QUERY = """CREATE STREAM ev (key BIGINT, v BIGINT, ts TIMESTAMP,
                 WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ({with_});
CREATE SINK out WITH (sink = 'csv', path = 'out.csv');
INSERT INTO out SELECT key, COUNT(*) AS n, SUM(v) AS s, WINDOW_END FROM ev GROUP BY key
WINDOW TUMBLING (SIZE 1 SECOND);
"""


def ckpt_cases(work, c):
    """Checkpoints of a topic fed while the query runs: killed (SIGKILL of
    a rank) after a checkpoint, the rest fed meanwhile, resumed to the end
    (end = 'latest') on as many ranks and on another number: the sink is
    the reference's, each message counted once (offsets per partition)."""
    for np_from, np_to in ((2, 2), (2, 3), (3, 1)):
        d = os.path.join(work, "ckpt_%d_%d" % (np_from, np_to))
        os.mkdir(d)
        topic = "ck%d%d" % (np_from, np_to)
        c.command("topic %s:4" % topic)
        w = "source = 'kafka', brokers = '%s', topic = '%s', end = 'latest', timeout = '10 s'" % (c.bootstrap, topic)
        exe = compile_query(d, "q", w, query=CKPT_QUERY)
        if not exe:
            continue
        label = "checkpoint on %d ranks, resumed on %d" % (np_from, np_to)
        # the killed run reads the topic as it grows (end = 'none')
        p = subprocess.Popen([MPIRUN, "-np", str(np_from), exe, "--set", "ev.end=none", "--checkpoint-dir", "ckd",
                              "--checkpoint-interval", "100ms"], cwd=d, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        parts = [[] for _ in range(4)]
        for step in range(8):  # eight seconds of event time, fed over about two seconds
            for q in range(4):
                rows = [(rng.randrange(6), rng.randrange(100), step * 1000 + rng.randrange(1000)) for _ in range(150)]
                rows.sort(key=lambda r: r[2])
                parts[q] += rows
                produce(c, topic, q, [csv_line(r) for r in rows], d)
            if step == 4:  # half fed: a rank dies after a checkpoint
                t0 = time.time()
                while time.time() - t0 < 10 and not any(
                        os.path.exists(os.path.join(d, "ckd", x, "MANIFEST"))
                        for x in (os.listdir(os.path.join(d, "ckd")) if os.path.isdir(os.path.join(d, "ckd")) else [])):
                    time.sleep(0.05)
                time.sleep(0.2)
                ranks = subprocess.run(["pgrep", "-f", "^" + exe + " "], capture_output=True, text=True).stdout.split()
                if ranks:
                    os.kill(int(rng.choice(ranks)), signal.SIGKILL)
        try:
            p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
        if p.returncode == 0:
            h.fail(label + ": the run was not killed")
            continue
        rc, out, err, st = run(d, exe, np_to, extra=("--checkpoint-dir", "ckd", "--resume", "auto"))
        want, late = reference(parts)
        got = open(os.path.join(d, "out.csv")).read().splitlines() if os.path.exists(os.path.join(d, "out.csv")) else []
        if rc != 0:
            h.fail("%s: the resumed run: exit %s" % (label, rc), err)
        elif "resuming from checkpoint" not in err:
            h.fail(label + ": it did not resume from a checkpoint", err)
        elif got != want:
            h.fail(label + ": the sink differs from the reference", unified_diff(want, got, "expected", label))
        elif st.get("late") != late:
            h.fail("%s: %s late rows, the reference %d" % (label, st.get("late"), late), err)
        else:
            h.ok("%s: killed half-way, resumed at each partition's offset: %d rows as the reference" % (
                label, len(want) - 1))


def down_mid_run(c, exe, d, after, label, says):
    """Broker 1 goes down `after` s into a 2-rank run: it must end, exit
    non-zero, saying each of `says`."""
    p = subprocess.Popen([MPIRUN, "-np", "2", exe], cwd=d, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(after)
    c.command("down 1")
    t0 = time.time()
    try:
        out, err = p.communicate(timeout=40)
    except subprocess.TimeoutExpired:
        p.kill()
        h.fail(label + ": still running 40 s later", p.communicate()[1])
        return
    if p.returncode != 0 and all(x in err for x in says):
        h.ok("%s: a clear error %.1f s later, exit %d" % (label, time.time() - t0, p.returncode))
    else:
        h.fail("%s: exit %d" % (label, p.returncode), err)


def fault_cases(work):
    d = os.path.join(work, "faults")
    os.mkdir(d)
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there
    exe = compile_query(d, "q_none", "source = 'kafka', brokers = '127.0.0.1:%d', topic = 'x', timeout = '1 s'" % port)
    if exe:
        t0 = time.time()
        rc, out, err, _ = run(d, exe, 2, timeout=30)
        if rc not in (0, None) and "cannot reach the kafka brokers '127.0.0.1:%d' within 1000 ms" % port in err \
                and time.time() - t0 < 15:
            h.ok("no broker: a clear error after timeout = '1 s', exit %d" % rc)
        else:
            h.fail("no broker: exit %s after %.1f s" % (rc, time.time() - t0), err)
    c = Cluster(1, [("down", 2)])
    try:
        exe = compile_query(d, "q_down", "source = 'kafka', brokers = '%s', topic = 'down', timeout = '2 s'" %
                            c.bootstrap)
        if exe:
            down_mid_run(c, exe, d, 1.5, "broker down mid-run", ["were unreachable for more than 2000 ms"])
        # (an unknown topic cannot be tried here: the mock cluster creates every topic asked for)
    finally:
        c.close()


SINK_QUERY = """CREATE STREAM ev (key BIGINT, v BIGINT, ts TIMESTAMP,
                 WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH (source = 'csv', path = 'ev.csv');
CREATE SINK out WITH (sink = 'kafka', brokers = '{b}', topic = '{t}', timeout = '10 s'{fmt});
INSERT INTO out SELECT key, COUNT(*) AS n, SUM(v) AS s, WINDOW_END FROM ev GROUP BY key
WINDOW TUMBLING (SIZE 1 SECOND);
"""


def consume(c, topic):
    r = subprocess.run(["kcat", "-C", "-b", c.bootstrap, "-t", topic, "-e", "-q", "-f", "%k|%s\\n"],
                       capture_output=True, text=True, timeout=60)
    return r.stdout.splitlines()


def sink_run(work, c, name, query, rows, np, fmt):
    """Query (SINK_QUERY's form) over ev.csv of rows into a fresh topic of
    the mock cluster, on np ranks: (rc, stderr, topic), rc None when it did
    not compile."""
    d = os.path.join(work, "%s_%d_%s" % (name, np, fmt))
    os.mkdir(d)
    with open(os.path.join(d, "ev.csv"), "w") as f:
        f.write("".join(csv_line(r) + "\n" for r in rows))
    topic = "%s%d%s" % (name, np, fmt)
    c.command("topic %s:1" % topic)
    with open(os.path.join(d, "q.airq"), "w") as f:
        f.write(query.format(b=c.bootstrap, t=topic, fmt=", format = 'json'" if fmt == "json" else ""))
    exe = os.path.join(d, "q")
    if not h.compile(AIRC, d, "q.airq", exe, label="%s %s" % (name, fmt)):
        return None, "", topic
    rc, _, err, _ = run(d, exe, np)
    return rc, err, topic


UPSERT_QUERY = """CREATE STREAM ev (key BIGINT, v BIGINT, ts TIMESTAMP,
                 WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH (source = 'csv', path = 'ev.csv');
CREATE SINK out WITH (sink = 'kafka', brokers = '{b}', topic = '{t}', timeout = '10 s'{fmt});
INSERT INTO out SELECT key, COUNT(*) AS n, SUM(v) AS s FROM ev GROUP BY key
HAVING SUM(v) % 3 <> 0 EMIT EVERY 1 SECOND;
"""


def upsert_case(work, c):
    """An updating query into kafka: upserts keyed by the group key, as a
    compacted topic keeps a table: per emission (1 s of event time; a row
    behind its file's watermark counts in the next one) and key in order,
    +I and +U the row without its change, -D a tombstone (no value), -U no
    message."""
    rows = make_rows(3000)
    top, emissions = None, {}
    for k, v, ts in rows:  # the interval of max(ts, W + 1), W the watermark when the row is read
        uts = ts if top is None or ts > top - BOUND_MS else top - BOUND_MS + 1
        emissions.setdefault(uts // 1000, []).append((k, v))
        top = ts if top is None else max(top, ts)
    acc, shown, want_rows, tombstones = {}, {}, [], 0
    for e in sorted(emissions):
        for k, v in emissions[e]:
            a = acc.setdefault(k, [0, 0])
            a[0] += 1
            a[1] += v
        for k in sorted({k for k, _ in emissions[e]}):
            now = (k, acc[k][0], acc[k][1]) if acc[k][1] % 3 else None
            if now != shown.get(k):
                want_rows.append((k, now))
                tombstones += now is None
            shown[k] = now
    assert tombstones, "no key deleted by HAVING"
    for np, fmt in ((2, "csv"), (3, "json")):
        rc, err, topic = sink_run(work, c, "upsert", UPSERT_QUERY, rows, np, fmt)
        if rc is None:
            continue
        r = subprocess.run(["kcat", "-C", "-b", c.bootstrap, "-t", topic, "-e", "-q", "-f", "%k|%S|%s\n"],
                           capture_output=True, text=True, timeout=60)
        got = r.stdout.splitlines()
        expect = []
        for k, now in want_rows:
            key = '{"key":%d}' % k if fmt == "json" else "%d" % k
            if now is None:
                expect.append("%s|-1|" % key)
            else:
                val = '{"key":%d,"n":%d,"s":%d}' % now if fmt == "json" else "%d,%d,%d" % now
                expect.append("%s|%d|%s" % (key, len(val), val))
        label = "upsert np=%d %s" % (np, fmt)
        if rc != 0:
            h.fail("%s: exit %s" % (label, rc), err)
        elif got != expect:
            h.fail(label + ": the topic differs from the reference", unified_diff(expect, got, "expected", label))
        else:
            h.ok("%s: %d upserts read back by kcat (%d tombstones), as the reference" % (label, len(got), tombstones))


def sink_cases(work, c):
    """sink = 'kafka': one message per result row, keyed by the group key."""
    rows = make_rows(4000)
    want, _ = reference([rows])
    for np, fmt in ((1, "csv"), (2, "csv"), (3, "json")):
        rc, err, topic = sink_run(work, c, "sink", SINK_QUERY, rows, np, fmt)
        if rc is None:
            continue
        got = consume(c, topic)
        expect = []
        for line in want[1:]:
            k, n, sm, w = line.split(",")
            if fmt == "json":
                expect.append('{"key":%s}|{"key":%s,"n":%s,"s":%s,"WINDOW_END":%s}' % (k, k, n, sm, w))
            else:
                expect.append("%s|%s" % (k, line))
        label = "sink np=%d %s" % (np, fmt)
        if rc != 0:
            h.fail("%s: exit %s" % (label, rc), err)
        elif got != expect:
            h.fail(label + ": the topic differs from the reference", unified_diff(expect, got, "expected", label))
        else:
            h.ok("%s: %d messages read back by kcat, keyed by the group key, as the reference" % (label, len(got)))
    upsert_case(work, c)
    # checkpoints: a run killed after a checkpoint and resumed produces the
    # messages after the checkpoint again (at least once, the same keys and
    # values), none that the reference has not
    rows = make_rows(16000, span_ms=16000)
    want, _ = reference([rows])
    d = os.path.join(work, "sink_ckpt")
    os.mkdir(d)
    with open(os.path.join(d, "ev.csv"), "w") as f:
        f.write("".join(csv_line(r) + "\n" for r in rows))
    c.command("topic outck:1")
    with open(os.path.join(d, "q.airq"), "w") as f:
        f.write(SINK_QUERY.format(b=c.bootstrap, t="outck", fmt=""))
    exe = os.path.join(d, "q")
    if h.compile(AIRC, d, "q.airq", exe, label="sink ckpt"):
        label = "sink: killed after a checkpoint, resumed"
        flags = ["--set", "ev.rate=8000", "--checkpoint-dir", "ckd", "--checkpoint-interval", "100ms"]
        p = subprocess.Popen([MPIRUN, "-np", "2", exe] + flags, cwd=d, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        t0 = time.time()
        while p.poll() is None and time.time() - t0 < 20 and not any(
                os.path.exists(os.path.join(d, "ckd", x, "MANIFEST"))
                for x in (os.listdir(os.path.join(d, "ckd")) if os.path.isdir(os.path.join(d, "ckd")) else [])):
            time.sleep(0.05)
        time.sleep(0.8)
        ranks = subprocess.run(["pgrep", "-f", "^" + exe + " "], capture_output=True, text=True).stdout.split()
        if ranks:
            os.kill(int(rng.choice(ranks)), signal.SIGKILL)
        p.communicate(timeout=30)
        rc, out, err, st = run(d, exe, 2, extra=flags + ["--resume", "auto"])
        got = consume(c, "outck")
        expect = ["%s|%s" % (line.split(",")[0], line) for line in want[1:]]
        if p.returncode == 0:
            h.fail(label + ": the first run was not killed")
        elif rc != 0 or "resuming from checkpoint" not in err:
            h.fail("%s: the resumed run (exit %s)" % (label, rc), err)
        elif set(got) != set(expect) or len(got) < len(expect):
            h.fail(label + ": the topic is not the reference's messages, each at least once",
                   unified_diff(sorted(set(expect)), sorted(set(got)), "expected", label))
        else:
            h.ok("%s: every one of the %d messages, %d produced again (at least once, same keys and values)" % (
                label, len(expect), len(got) - len(expect)))
    # a broker that goes down: deliveries time out, and the run fails with the reason
    d = os.path.join(work, "sink_down")
    os.mkdir(d)
    c2 = Cluster(1, [("o", 1)])
    try:
        with open(os.path.join(d, "q.airq"), "w") as f:
            f.write("""CREATE STREAM ev (key BIGINT GENERATED BY uniform(0, 9), ts TIMESTAMP GENERATED BY sequence(0, 10))
  WITH (source = 'datagen', seed = 1, rate = 2000, limit = 40000);
CREATE SINK out WITH (sink = 'kafka', brokers = '%s', topic = 'o', timeout = '1 s');
INSERT INTO out SELECT key, COUNT(*) AS n, WINDOW_END FROM ev GROUP BY key WINDOW TUMBLING (SIZE 1 SECOND);
""" % c2.bootstrap)
        exe = os.path.join(d, "q")
        if h.compile(AIRC, d, "q.airq", exe, label="sink down"):
            down_mid_run(c2, exe, d, 2, "sink: a broker down mid-run", ["kafka sink 'o'", "not delivered"])
    finally:
        c2.close()


ERRORS = [
    ("topc = 'x'", "unknown option 'topc'"),
    ("topic = 'a b'", "option 'topic' must be a topic name or several"),
    ("topic = 'x', brokers = 'h:1'", "option 'brokers' is given twice"),
    ("start = 'middle'", "option 'start' must be 'earliest', 'latest' or offsets per partition"),
    ("start = 'other:0:5'", "option 'start' names topic 'other', which is not in topic = 'x'"),
    ("idle_timeout = 5", "option 'idle_timeout' must be a duration with its unit"),
    ("end = 'never'", "option 'end' must be 'latest'"),
    ("'kafka.group.id' = 'g'", "is set by airc: write group = '...'"),
]


def compile_errors(work):
    d = os.path.join(work, "errors")
    os.mkdir(d)
    for opt, msg in ERRORS:
        with open(os.path.join(d, "e.airq"), "w") as f:
            f.write(QUERY.format(with_="source = 'kafka', brokers = '127.0.0.1:9', " + opt +
                                 ("" if "topic" in opt else ", topic = 'x'")))
        r = subprocess.run([AIRC, "--check", "e.airq"], cwd=d, capture_output=True, text=True, timeout=30)
        if r.returncode != 0 and msg in r.stderr and "e.airq:3:" in r.stderr and "^" in r.stderr:
            h.ok("compile error for %s" % opt)
        else:
            h.fail("compile error for %s: expected '%s'" % (opt, msg), r.stderr)
    with open(os.path.join(d, "e.airq"), "w") as f:
        f.write(QUERY.format(with_="source = 'kafka', topic = 'x'"))
    r = subprocess.run([AIRC, "--check", "e.airq"], cwd=d, capture_output=True, text=True, timeout=30)
    if r.returncode != 0 and "needs a 'brokers' option" in r.stderr:
        h.ok("compile error without brokers")
    else:
        h.fail("compile error without brokers", r.stderr)


def main():
    with h.workdir() as work:
        c = Cluster(1, [("one", 1), ("four", 4), ("js", 2), ("bad", 2), ("grp", 1)])
        try:
            bounded_cases(work, c)
            message_timestamp(work, c)
            group_and_start(work, c)
            lag_case(work, c)
            live_cases(work, c)
            ckpt_cases(work, c)
            sink_cases(work, c)
        finally:
            c.close()
        fault_cases(work)
        compile_errors(work)
    return h.summary()


if __name__ == "__main__":
    sys.exit(main())
