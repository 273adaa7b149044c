#!/usr/bin/env python3
"""kafka_bench.py - YSB the original way (issue 12's benchmark): ad events
pre-loaded into a multi-partition topic of librdkafka's mock cluster, the
campaigns kept in Redis as the original's setup keeps them (SET ad
campaign), airc reading the events on 1 and 2 ranks, joining them to the
campaigns and writing the views per campaign per 10 s window to Redis
(sink = 'redis'), beside, measured in the same run:

  (a) the same query on airc's in-process ysb generator (same N events),
  (b) a bare librdkafka consumer of the same topic (bench/kafka_tool.c
      consume): the ceiling for source = 'kafka'; target >= 70% of it,
  (c) JSON decoding: the same events as a JSON-lines file and as a CSV file
      read by the same query (source = 'csv'), rows/s of each, beside
      airc's JSON scanner alone over the same file (bench/json_parsers.c
      --ysb, when make bench built it: its ceiling).

Every airc run's counts are checked against a Python count of the same
events (kafka_tool's generator re-done here): the Redis run's hashes read
back with redis-cli, the others' CSV. A redis-server of its own on a free
loopback port, in a temporary directory, stopped at the end. Medians of
--runs runs.
Writes build/bench/kafka.csv and kafka.md; make bench-kafka runs it alone,
make bench runs it after bench.py.

  python3 bench/kafka_bench.py [--events N] [--partitions P] [--runs R]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.path.join(ROOT, "build")
OUT = os.path.join(B, "bench")
AIRC = os.path.join(B, "airc")
MOCK = os.path.join(B, "tests", "mock_cluster")
TOOL = os.path.join(OUT, "kafka_tool")
PARSER = os.path.join(OUT, "json_parsers")
MPIRUN = os.environ.get("MPIRUN", "mpirun")

M64 = (1 << 64) - 1

sys.path.insert(0, os.path.join(ROOT, "tests"))
from lib import RedisServer  # noqa: E402


def log(msg):
    print("bench-kafka: " + msg, file=sys.stderr, flush=True)


def ysb_events(n):
    """kafka_tool's load-ysb generator (message()): (ad index, type, ms)."""
    x = 7
    for i in range(n):
        x = (x * 6364136223846793005 + 1442695040888963407) & M64
        yield (x >> 33) % 1000, ("view", "click", "purchase")[(x >> 40) % 3], i


def ad_id(a):
    return "a0000000-0000-4000-8000-%012d" % a


def campaign_id(a):
    return "c0000000-0000-4000-8000-%012d" % (a // 10)


def reference(n):
    """The query's result rows, as airc writes them: campaign, views, WINDOW_END."""
    counts = {}
    for a, t, ms in ysb_events(n):
        if t == "view":
            k = (ms // 10000 * 10000 + 10000, campaign_id(a))
            counts[k] = counts.get(k, 0) + 1
    return ["%s,%d,%d" % (c, v, w) for (w, c), v in sorted(counts.items())]


COLUMNS = """user_id VARCHAR(36), page_id VARCHAR(36), ad_id VARCHAR(36), ad_type VARCHAR(10),
  event_type VARCHAR(9), event_time TIMESTAMP, ip_address VARCHAR(15),
  WATERMARK FOR event_time AS event_time - INTERVAL '1' SECOND"""
QUERY = """
CREATE TABLE campaigns (ad_id VARCHAR(36), campaign_id VARCHAR(36), PRIMARY KEY (ad_id))
  WITH ({table});
{insert}SELECT c.campaign_id, COUNT(*) AS views, WINDOW_END
FROM ad_events e JOIN campaigns c ON e.ad_id = c.ad_id
WHERE e.event_type = 'view'
GROUP BY c.campaign_id
WINDOW TUMBLING (SIZE 10 SECONDS);
"""
SOURCES = {  # case -> its CREATE STREAM
    "kafka, redis": "CREATE STREAM ad_events ({cols})\n  WITH (source = 'kafka', brokers = '{brokers}', "
                    "topic = 'ysb', format = 'json', end = 'latest');",
    "kafka": "CREATE STREAM ad_events ({cols})\n  WITH (source = 'kafka', brokers = '{brokers}', topic = 'ysb', "
             "format = 'json', end = 'latest');",
    "json file": "CREATE STREAM ad_events ({cols})\n  WITH (source = 'csv', path = '{json}', format = 'json');",
    "csv file": "CREATE STREAM ad_events ({cols})\n  WITH (source = 'csv', path = '{csv}');",
}
CASE_NAMES = {
    "kafka, redis": "airc, source = 'kafka', format = 'json'; campaigns from and counts to Redis (the original)",
    "kafka": "airc, source = 'kafka', format = 'json'",
    "json file": "airc, source = 'csv', format = 'json' (the same events in a file)",
    "csv file": "airc, source = 'csv' (the same events as CSV)",
}
GEN = """CREATE STREAM ad_events (ad_id VARCHAR(36), event_type VARCHAR(9), ts TIMESTAMP)
  WITH (source = 'ysb', limit = {n});
CREATE TABLE campaigns (ad_id VARCHAR(36), campaign_id VARCHAR(36), PRIMARY KEY (ad_id))
  WITH (source = 'ysb');
SELECT c.campaign_id, COUNT(*) AS views, WINDOW_END
FROM ad_events e JOIN campaigns c ON e.ad_id = c.ad_id
WHERE e.event_type = 'view'
GROUP BY c.campaign_id
WINDOW TUMBLING (SIZE 10 SECONDS);
"""


class Redis(RedisServer):
    """The bench's own redis-server (tests/lib.py), read back as the query's rows."""

    def rows(self):
        """The sink's hashes as the query's CSV rows, in its order."""
        keys = self.cli("--scan", "--pattern", "views:*").split()
        vals = self.cli(stdin="".join("HMGET %s campaign_id views WINDOW_END\n" % k for k in keys)).split("\n")
        rows = [tuple(vals[3 * i:3 * i + 3]) for i in range(len(keys))]
        return ["%s,%s,%s" % r for r in sorted(rows, key=lambda r: (int(r[2]), r[0]))]

    def close(self):
        self.stop()


class Mock:
    def __init__(self, topics):
        self.p = subprocess.Popen([MOCK, "1"] + topics, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True)
        self.brokers = self.p.stdout.readline().strip()
        if not self.brokers:
            sys.exit("bench-kafka: the mock cluster did not start")

    def close(self):
        try:
            self.p.stdin.close()
            self.p.wait(timeout=10)
        except (subprocess.TimeoutExpired, BrokenPipeError):
            self.p.kill()


def compile_query(src, exe):
    p = subprocess.run([AIRC, "--timestamp-format", "epoch_ms", src, "-o", exe], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("bench-kafka: airc %s:\n%s" % (src, p.stderr))


def run_airc(exe, ranks, d, want, rd=None):
    """events/s from the run's own --stats-json (air_run's clock, after
    setup: as the bare consumer's, after metadata), the rows checked (in
    Redis when rd: emptied first)."""
    if rd:
        rd.cli("EVAL", "for _, k in ipairs(redis.call('KEYS', 'views:*')) do redis.call('DEL', k) end", "0")
    sj = os.path.join(d, "stats.json")
    out = os.path.join(d, "out.csv")
    argv = [MPIRUN, "-np", str(ranks), exe, "--quiet", "--stats-json", sj]
    with open(out, "w") as fo:
        p = subprocess.run(argv, stdout=fo, stderr=subprocess.PIPE, text=True, timeout=300, cwd=d)
    if p.returncode != 0:
        sys.exit("bench-kafka: %s on %d ranks failed:\n%s" % (exe, ranks, p.stderr))
    rows = rd.rows() if rd else open(out).read().splitlines()[1:]
    st = json.load(open(sj))
    ok = want is None or rows == want
    return st["events_per_s"], st["events_in"], ok


def median_of(runs, f):
    vals = [f() for _ in range(runs)]
    return statistics.median(v[0] for v in vals), vals[0][1], all(v[2] for v in vals)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=1000000)
    ap.add_argument("--partitions", type=int, default=64,
                    help="the mock cluster keeps about 5 MB a partition: 64 hold 1M YSB events")
    ap.add_argument("--runs", type=int, default=3)
    cfg = ap.parse_args()
    for f in (AIRC, MOCK, TOOL):
        if not os.path.exists(f):
            sys.exit("bench-kafka: %s missing: run make bench-kafka" % f)
    n = cfg.events
    d = tempfile.mkdtemp(prefix="airc-kbench.")
    mock = rd = None
    rows = []
    try:
        log("reference counts of %d events" % n)
        want = reference(n)
        with open(os.path.join(d, "campaigns.csv"), "w") as f:
            f.write("ad_id,campaign_id\n")
            for a in range(1000):
                f.write("%s,%s\n" % (ad_id(a), campaign_id(a)))
        rd = Redis(d)
        rd.cli(stdin=subprocess.run([TOOL, "ads"], capture_output=True, text=True, check=True).stdout)
        mock = Mock(["ysb:%d" % cfg.partitions])
        t = time.time()
        subprocess.run([TOOL, "load-ysb", mock.brokers, "ysb", str(cfg.partitions), str(n)], check=True)
        log("%d events into %d partitions in %.1f s" % (n, cfg.partitions, time.time() - t))
        # the same events as files, for the JSON decoding rows
        kc = subprocess.run(["kcat", "-C", "-b", mock.brokers, "-t", "ysb", "-e", "-q", "-o", "beginning"],
                            capture_output=True, text=True, timeout=300)
        # in event-time order (the topic's is per partition), so that the
        # files' one watermark drops nothing
        lines = sorted(kc.stdout.splitlines(), key=lambda l: json.loads(l)["event_time"])
        if len(lines) != n:
            sys.exit("bench-kafka: the topic holds %d of %d events (the mock cluster dropped old segments: "
                     "more --partitions)" % (len(lines), n))
        with open(os.path.join(d, "events.json"), "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(os.path.join(d, "events.csv"), "w") as f:
            for l in lines:
                j = json.loads(l)
                f.write("%s,%s,%s,%s,%s,%d,%s\n" % (j["user_id"], j["page_id"], j["ad_id"], j["ad_type"],
                                                    j["event_type"], j["event_time"], j["ip_address"]))
        bare = []
        for _ in range(cfg.runs):
            p = subprocess.run([TOOL, "consume", mock.brokers, "ysb"], capture_output=True, text=True,
                               timeout=300, check=True)
            bare.append(json.loads(p.stdout.strip().splitlines()[-1])["messages_per_s"])
        ceil = statistics.median(bare)
        rows.append({"case": "bare librdkafka consumer", "ranks": 1, "events_per_s": ceil, "of_bare": 1.0,
                     "same_rows": ""})
        log("bare consumer: %.0f messages/s" % ceil)
        if os.path.exists(PARSER):
            alone = []
            for _ in range(cfg.runs):
                p = subprocess.run([PARSER, "--ysb", os.path.join(d, "events.json")], capture_output=True,
                                   text=True, timeout=300, check=True)
                j = json.loads(p.stdout.strip().splitlines()[-1])
                alone.append(j["rows_per_s"])
            rate = statistics.median(alone)
            rows.append({"case": "airc's JSON scanner alone over the file (json_parsers --ysb)", "ranks": 1,
                         "events_per_s": rate, "of_bare": rate / ceil, "same_rows": j["rows"] == n})
            log("JSON scanner alone: %.0f rows/s" % rate)
        for kind, tpl in SOURCES.items():
            src = os.path.join(d, kind.replace(" ", "_") + ".airq")
            with open(src, "w") as f:
                f.write(tpl.format(cols=COLUMNS, brokers=mock.brokers, json=os.path.join(d, "events.json"),
                                   csv=os.path.join(d, "events.csv")))
                redis = kind == "kafka, redis"
                table = ("source = 'redis', address = '127.0.0.1:%d'" % rd.port if redis else
                         "source = 'csv', path = '%s', header = true" % os.path.join(d, "campaigns.csv"))
                insert = ("CREATE SINK counts WITH (sink = 'redis', address = '127.0.0.1:%d', prefix = 'views:');\n"
                          "INSERT INTO counts\n" % rd.port if redis else "")
                f.write(QUERY.format(table=table, insert=insert))
            exe = os.path.join(d, kind.replace(" ", "_").replace(",", ""))
            compile_query(src, exe)
            for ranks in ((1, 2) if kind.startswith("kafka") else (1,)):
                rate, ev, ok = median_of(cfg.runs, lambda: run_airc(exe, ranks, d, want, rd if redis else None))
                rows.append({"case": CASE_NAMES[kind],
                             "ranks": ranks, "events_per_s": rate, "of_bare": rate / ceil,
                             "same_rows": ok and ev == n})
                log("%s, %d rank%s: %.0f events/s (%.0f%% of the bare consumer), rows %s" % (
                    kind, ranks, "s" if ranks > 1 else "", rate, 100 * rate / ceil, "ok" if ok else "WRONG"))
        src = os.path.join(d, "gen.airq")
        with open(src, "w") as f:
            f.write(GEN.format(n=n))
        exe = os.path.join(d, "gen")
        compile_query(src, exe)
        for ranks in (1, 2):
            rate, ev, _ = median_of(cfg.runs, lambda: run_airc(exe, ranks, d, None))
            rows.append({"case": "airc, source = 'ysb' (in-process generator)", "ranks": ranks,
                         "events_per_s": rate, "of_bare": rate / ceil, "same_rows": ""})
            log("generator, %d rank%s: %.0f events/s" % (ranks, "s" if ranks > 1 else "", rate))
    finally:
        if mock:
            mock.close()
        if rd:
            rd.close()
        shutil.rmtree(d, ignore_errors=True)
    write(rows, cfg)
    bad = [r for r in rows if r["same_rows"] is False]
    kafka1 = [r for r in rows if r["case"] == CASE_NAMES["kafka, redis"] and r["ranks"] == 1]
    if bad:
        sys.exit("bench-kafka: wrong rows in %s" % ", ".join(r["case"] for r in bad))
    if kafka1 and kafka1[0]["of_bare"] < 0.7:
        log("below target: 1 rank at %.0f%% of the bare consumer (target 70%%)" % (100 * kafka1[0]["of_bare"]))


def write(rows, cfg):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "kafka.csv"), "w") as f:
        f.write("case,ranks,events_per_s,of_bare,same_rows\n")
        for r in rows:
            f.write('"%s",%d,%.0f,%.3f,%s\n' % (r["case"], r["ranks"], r["events_per_s"], r["of_bare"],
                                               r["same_rows"]))
    L = ["# YSB from Kafka (bench/kafka_bench.py)", "",
         "%d YSB events as JSON messages in %d partitions of librdkafka's mock cluster (one broker, on this "
         "machine); medians of %d runs; rates from each run's own clock after setup." % (
             cfg.events, cfg.partitions, cfg.runs), "",
         "| case | ranks | events/s | of the bare consumer | rows right |", "|---|---|---|---|---|"]
    for r in rows:
        L.append("| %s | %d | %.0f | %.0f%% | %s |" % (r["case"], r["ranks"], r["events_per_s"],
                                                      100 * r["of_bare"], r["same_rows"]))
    open(os.path.join(OUT, "kafka.md"), "w").write("\n".join(L) + "\n")
    print("\n".join(L))


if __name__ == "__main__":
    main()
