#!/usr/bin/env python3
"""source = 'redis' tables against a real redis-server, started here on a
free loopback port in a temporary directory (no persistence), filled with
redis-cli, always stopped (make check-redis, part of check).

- YSB as the original benchmark keeps its campaigns: `SET <ad_id>
  <campaign_id>` per ad and `SADD campaigns <campaign>`; events from a csv
  file; counts per campaign and window against a Python reference, on 1, 2
  and 3 ranks, fused and --no-fuse. With pattern = '*' the 'campaigns' set
  is a bad row (counted, located by its key); with a UUID pattern it is not
  read at all.
- YSB the original way, end to end: campaigns in Redis as above, the ad
  events as JSON messages (the original generator's seven fields) in a
  3-partition topic of librdkafka's mock cluster, fed with kcat, and the
  views per campaign and window written back to Redis by sink = 'redis',
  read with redis-cli against a Python reference, on 1, 2 and 3 ranks,
  fused and --no-fuse.
- The same YSB query with the ysb generator's own campaign table and with
  that mapping stored in Redis: the same counts per campaign.
- layout = 'hash' with key_prefix: typed columns (a BIGINT key from the
  key's rest, INT and DOUBLE fields), bad rows (a missing field, a value
  that is not a number, a key of another type), max_bad_rows.
- 100,000 keys (many SCAN steps): every one loaded, and how fast.
- Redis not there, Redis not answering: a clear error within 'timeout',
  exit 1.

    python3 tests/redis/run.py      (from the repository root)
Environment: AIRC (build/airc), MPIRUN (mpirun), REDIS_SERVER
(redis-server), REDIS_CLI (redis-cli), MOCK (build/tests/mock_cluster),
KEEP=1.
"""
import os
import random
import socket
import subprocess
import sys
import time
import uuid

ROOT = os.getcwd()
sys.path.insert(0, os.path.join(ROOT, "tests"))
from lib import Harness, RedisServer, free_port, run_stats, unified_diff  # noqa: E402

AIRC = os.path.abspath(os.environ.get("AIRC", "build/airc"))
MPIRUN = os.environ.get("MPIRUN", "mpirun")
REDIS_SERVER = os.environ.get("REDIS_SERVER", "redis-server")
REDIS_CLI = os.environ.get("REDIS_CLI", "redis-cli")
MOCK = os.path.abspath(os.environ.get("MOCK", "build/tests/mock_cluster"))

h = Harness("redis")
rng = random.Random(20261206)
UUID_GLOB = "????????-????-????-????-????????????"


class Redis(RedisServer):
    """The test's own redis-server (tests/lib.py), filled through redis-cli --pipe."""

    def __init__(self, work):
        super().__init__(work, REDIS_SERVER, REDIS_CLI)

    def fill(self, commands):
        """Commands (lists of strings) through redis-cli --pipe (RESP)."""
        out = []
        for c in commands:
            out.append("*%d\r\n" % len(c))
            for a in c:
                b = a.encode()
                out.append("$%d\r\n" % len(b))
                out.append(a + "\r\n")
        r = subprocess.run([self.client, "-p", str(self.port), "--pipe"], input="".join(out), capture_output=True,
                           text=True, timeout=120)
        if r.returncode != 0 or "errors: 0" not in r.stdout:
            raise RuntimeError("redis-cli --pipe: " + r.stdout + r.stderr)

    def close(self):
        self.stop()


def run(d, exe, np, timeout=60, extra=()):
    return run_stats(MPIRUN, d, exe, np, timeout, extra)


def compile_src(d, name, src, flags=()):
    path = os.path.join(d, name + ".airq")
    with open(path, "w") as f:
        f.write(src)
    exe = os.path.join(d, name)
    return exe if h.compile(AIRC, d, path, exe, flags, label=name) else None


def variants(d, name, src):
    """The program fused and --no-fuse; the runs to make of each."""
    exes = {v: compile_src(d, name + "_" + v, src, ["--no-fuse"] if v == "nofuse" else [])
            for v in ("fuse", "nofuse")}
    return [(np, v, exes[v]) for np, v in ((1, "fuse"), (2, "fuse"), (3, "fuse"), (2, "nofuse"), (3, "nofuse"))
            if exes[v]]


# ---- YSB, the original layout ----------------------------------------------

YSB_QUERY = """CREATE STREAM ad_events (ad_id VARCHAR(36), event_type VARCHAR(9), ts TIMESTAMP)
  WITH (source = 'csv', path = 'events.csv');
CREATE TABLE campaigns (ad_id VARCHAR(36), campaign_id VARCHAR(36), PRIMARY KEY (ad_id))
  WITH (source = 'redis', address = '127.0.0.1:{port}'{opts});
SELECT c.campaign_id, COUNT(*) AS views, WINDOW_END
FROM ad_events e JOIN campaigns c ON e.ad_id = c.ad_id
WHERE e.event_type = 'view'
GROUP BY c.campaign_id WINDOW TUMBLING (SIZE 10 SECONDS);
"""


def ysb_original(work, rd):
    d = os.path.join(work, "ysb")
    os.mkdir(d)
    campaigns = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(20)]
    ads = {}
    for c in campaigns:
        for _ in range(10):
            ads[str(uuid.UUID(int=rng.getrandbits(128)))] = c
    # the original benchmark's setup: SET ad campaign, SADD campaigns c
    rd.fill([["SET", a, c] for a, c in ads.items()] + [["SADD", "campaigns"] + campaigns])
    ad_list = sorted(ads) + [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(5)]  # 5 not in redis
    events, acc = [], {}
    for i in range(20000):
        a, t = rng.choice(ad_list), i * 3
        et = rng.choice(["view", "click", "purchase"])
        events.append("%s,%s,%d" % (a, et, t))
        if et == "view" and a in ads:
            key = (t // 10000 * 10000 + 10000, ads[a])
            acc[key] = acc.get(key, 0) + 1
    with open(os.path.join(d, "events.csv"), "w") as f:
        f.write("\n".join(events) + "\n")
    want = ["campaign_id,views,WINDOW_END"] + ["%s,%d,%d" % (c, n, w) for (w, c), n in sorted(acc.items())]
    unmatched = sum(1 for e in events if e.split(",")[1] == "view" and e.split(",")[0] not in ads)
    for label, opts, bad in (("pattern '*'", "", 1), ("UUID pattern", ", pattern = '%s'" % UUID_GLOB, 0)):
        for np, v, exe in variants(d, "ysb%d" % bad, YSB_QUERY.format(port=rd.port, opts=opts)):
            tag = "ysb, campaigns in redis (%s): np=%d %s" % (label, np, v)
            rc, out, err, st = run(d, exe, np)
            if rc != 0:
                h.fail("%s: exit %s" % (tag, rc), err)
            elif out.splitlines() != want:
                h.fail(tag + ": output differs from the reference", unified_diff(want, out.splitlines(),
                                                                                 "expected", tag) + err)
            elif st.get("bad_rows") != bad or st.get("unmatched") != unmatched:
                h.fail("%s: bad rows %s, unmatched %s; expected %d, %d" % (tag, st.get("bad_rows"),
                                                                          st.get("unmatched"), bad, unmatched), err)
            elif bad and "redis '127.0.0.1:%d' key 'campaigns': not a string but a set" % rd.port not in err:
                h.fail(tag + ": the set 'campaigns' is not named as a bad row", err)
            else:
                h.ok("%s: %d result rows as the reference, %d bad row%s" % (tag, len(want) - 1, bad,
                                                                            "" if bad == 1 else "s"))
    rd.cli("FLUSHALL")


YSB_KAFKA = """CREATE STREAM ad_events (user_id VARCHAR(36), page_id VARCHAR(36), ad_id VARCHAR(36),
                         ad_type VARCHAR(10), event_type VARCHAR(9), event_time TIMESTAMP,
                         ip_address VARCHAR(15), WATERMARK FOR event_time AS event_time - INTERVAL '1' SECOND)
  WITH (source = 'kafka', brokers = '{brokers}', topic = 'ad-events', format = 'json', end = 'latest',
        timeout = '10 s');
CREATE TABLE campaigns (ad_id VARCHAR(36), campaign_id VARCHAR(36), PRIMARY KEY (ad_id))
  WITH (source = 'redis', address = '127.0.0.1:{port}', pattern = '{glob}');
CREATE SINK counts WITH (sink = 'redis', address = '127.0.0.1:{port}', prefix = 'views:');
INSERT INTO counts
SELECT c.campaign_id, COUNT(*) AS views, WINDOW_END
FROM ad_events e JOIN campaigns c ON e.ad_id = c.ad_id
WHERE e.event_type = 'view'
GROUP BY c.campaign_id WINDOW TUMBLING (SIZE 10 SECONDS);
"""


def ysb_kafka_redis(work, rd):
    """Kafka in, Redis out, campaigns in Redis: the original benchmark."""
    d = os.path.join(work, "ysb_kafka")
    os.mkdir(d)
    mock = subprocess.Popen([MOCK, "1", "ad-events:3"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        brokers = mock.stdout.readline().strip()
        if not brokers.startswith("127.0.0.1:"):
            h.fail("ysb kafka->redis: the mock cluster did not start", mock.stderr.read())
            return
        campaigns = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(10)]
        ads = {str(uuid.UUID(int=rng.getrandbits(128))): c for c in campaigns for _ in range(10)}
        rd.fill([["SET", a, c] for a, c in ads.items()] + [["SADD", "campaigns"] + campaigns])
        ad_list = sorted(ads) + [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(3)]
        parts, acc = [[], [], []], {}
        for i in range(6000):
            a, t = rng.choice(ad_list), 1764806400000 + i * 7
            et = rng.choice(["view", "click", "purchase"])
            parts[i % 3].append('{"user_id": "%s", "page_id": "%s", "ad_id": "%s", "ad_type": "banner", '
                                '"event_type": "%s", "event_time": %d, "ip_address": "1.2.3.4"}' % (
                                    uuid.UUID(int=rng.getrandbits(128)), uuid.UUID(int=rng.getrandbits(128)),
                                    a, et, t))
            if et == "view" and a in ads:
                key = (ads[a], t // 10000 * 10000 + 10000)
                acc[key] = acc.get(key, 0) + 1
        for p, lines in enumerate(parts):
            path = os.path.join(d, "p%d.json" % p)
            with open(path, "w") as f:
                f.write("\n".join(lines) + "\n")
            r = subprocess.run(["kcat", "-P", "-b", brokers, "-t", "ad-events", "-p", str(p), "-l", path],
                               capture_output=True, text=True, timeout=60)
            if r.returncode != 0:
                h.fail("ysb kafka->redis: kcat", r.stderr)
                return
        want = {("views:%s:%d" % (c, w)): {"campaign_id": c, "views": str(n), "WINDOW_END": str(w)}
                for (c, w), n in acc.items()}
        src = YSB_KAFKA.format(brokers=brokers, port=rd.port, glob=UUID_GLOB)
        for np, v, exe in variants(d, "ysbk", src):
            tag = "ysb kafka->redis: np=%d %s" % (np, v)
            for k in rd.cli("--scan", "--pattern", "views:*").split():
                rd.cli("DEL", k)
            rc, _, err, st = run(d, exe, np)
            keys = sorted(rd.cli("--scan", "--pattern", "views:*").split())
            got = {}
            if keys:
                r = subprocess.run([REDIS_CLI, "-p", str(rd.port)], input="".join("HGETALL %s\n" % k for k in keys),
                                   capture_output=True, text=True, timeout=30)
                vals = r.stdout.split("\n")
                i = 0
                for k in keys:  # each HGETALL: 3 fields, 6 lines
                    got[k] = dict(zip(vals[i:i + 6:2], vals[i + 1:i + 6:2]))
                    i += 6
            if rc != 0:
                h.fail("%s: exit %s" % (tag, rc), err)
            elif got != want:
                diff = [k for k in sorted(set(got) | set(want)) if got.get(k) != want.get(k)][:5]
                h.fail("%s: %d hashes, %d expected; first differing keys %s" % (tag, len(got), len(want), diff),
                       err)
            elif st.get("events_in") != 6000 or st.get("kafka_lag") != 0:
                h.fail("%s: events %s, kafka_lag %s" % (tag, st.get("events_in"), st.get("kafka_lag")), err)
            else:
                h.ok("%s: %d hashes (campaign, window) in redis as the reference" % (tag, len(want)))
    finally:
        try:
            mock.stdin.close()
            mock.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            mock.kill()
            mock.wait()
        rd.cli("FLUSHALL")


YSB_GEN = """CREATE STREAM ad_events (ad_id VARCHAR(36), event_type VARCHAR(9), ts TIMESTAMP)
  WITH (source = 'ysb', seed = 5, limit = 30000);
CREATE TABLE campaigns (ad_id VARCHAR(36), campaign_id VARCHAR(36), PRIMARY KEY (ad_id))
  WITH ({with_});
{select}
"""
YSB_COUNT = """SELECT c.campaign_id, COUNT(*) AS views, WINDOW_END
FROM ad_events e JOIN campaigns c ON e.ad_id = c.ad_id
WHERE e.event_type = 'view' GROUP BY c.campaign_id WINDOW TUMBLING (SIZE 1 HOUR);"""


def per_campaign(out):
    """Views per campaign over all windows (the ysb stream's time is the
    wall clock, so which window a row falls in is not repeatable)."""
    tot = {}
    for line in out.splitlines()[1:]:
        c, n, _ = line.split(",")
        tot[c] = tot.get(c, 0) + int(n)
    return tot


def ysb_generator(work, rd):
    d = os.path.join(work, "ysbgen")
    os.mkdir(d)
    # the generator's mapping, as a Map over its own table
    exe = compile_src(d, "mapping", YSB_GEN.format(
        with_="source = 'ysb'", select="SELECT c.ad_id, c.campaign_id FROM ad_events e JOIN campaigns c "
                                       "ON e.ad_id = c.ad_id;"))
    if not exe:
        return
    rc, out, err, _ = run(d, exe, 1)
    pairs = dict(l.split(",") for l in out.splitlines()[1:])
    if rc != 0 or len(pairs) != 1000:
        h.fail("ysb generator: its mapping (%d ads, expected 1000)" % len(pairs), err)
        return
    rd.fill([["SET", a, c] for a, c in pairs.items()] + [["SADD", "campaigns"] + sorted(set(pairs.values()))])
    gen = compile_src(d, "gen", YSB_GEN.format(with_="source = 'ysb'", select=YSB_COUNT))
    red = compile_src(d, "red", YSB_GEN.format(
        with_="source = 'redis', address = '127.0.0.1:%d', pattern = '%s'" % (rd.port, UUID_GLOB), select=YSB_COUNT))
    if not gen or not red:
        return
    a, b = run(d, gen, 2), run(d, red, 3)
    if a[0] == 0 and b[0] == 0 and per_campaign(a[1]) == per_campaign(b[1]) and len(per_campaign(a[1])) == 100:
        h.ok("ysb generator: the campaign table from redis gives the ysb table's views per campaign (100 campaigns)")
    else:
        h.fail("ysb generator: views per campaign differ between the ysb and the redis table", a[2] + b[2])
    rd.cli("FLUSHALL")


# ---- layout = 'hash' ---------------------------------------------------------

HASH_QUERY = """CREATE STREAM ev (id BIGINT, qty BIGINT, ts TIMESTAMP) WITH (source = 'csv', path = 'ev.csv');
CREATE TABLE items (id BIGINT, dept VARCHAR(8), price DOUBLE, stock INT, PRIMARY KEY (id))
  WITH (source = 'redis', address = '127.0.0.1:{port}', layout = 'hash', key_prefix = 'item:'{opts});
SELECT i.dept, COUNT(*) AS n, SUM(e.qty * i.price) AS revenue, MAX(i.stock) AS top, WINDOW_END
FROM ev e JOIN items i ON e.id = i.id GROUP BY i.dept WINDOW TUMBLING (SIZE 5 SECONDS);
"""


def hash_layout(work, rd):
    d = os.path.join(work, "hash")
    os.mkdir(d)
    items, cmds = {}, []
    for i in range(1, 301):
        dept, price, stock = rng.choice(["toys", "books", "garden"]), rng.randrange(1, 400) / 4, rng.randrange(100)
        items[i] = (dept, price, stock)
        cmds.append(["HSET", "item:%d" % i, "dept", dept, "price", repr(price), "stock", str(stock), "extra", "x"])
    # bad rows: a missing field, a price that is no number, a string under the prefix
    cmds += [["HSET", "item:301", "dept", "toys", "price", "1.5"], ["HSET", "item:302", "dept", "toys", "price",
                                                                      "cheap", "stock", "1"],
             ["SET", "item:303", "x"], ["HSET", "other:1", "dept", "no"]]
    rd.fill(cmds)
    events, acc = [], {}
    for i in range(15000):
        k, q, t = rng.randrange(1, 306), rng.randrange(1, 5), i * 2
        events.append("%d,%d,%d" % (k, q, t))
        if k in items:
            dept, price, stock = items[k]
            a = acc.setdefault((t // 5000 * 5000 + 5000, dept), [0, 0.0, -1])
            a[0] += 1
            a[1] += q * price  # prices are multiples of 1/4: exact sums
            a[2] = max(a[2], stock)
    with open(os.path.join(d, "ev.csv"), "w") as f:
        f.write("\n".join(events) + "\n")

    def fmt(x):
        return ("%.15g" % x)

    want = ["dept,n,revenue,top,WINDOW_END"] + ["%s,%d,%s,%d,%d" % (dp, a[0], fmt(a[1]), a[2], w)
                                               for (w, dp), a in sorted(acc.items())]
    for np, v, exe in variants(d, "hash", HASH_QUERY.format(port=rd.port, opts=", max_bad_rows = 3")):
        tag = "hash layout: np=%d %s" % (np, v)
        rc, out, err, st = run(d, exe, np)
        says = ["redis '127.0.0.1:%d' key 'item:301': field stock is missing" % rd.port,
                "key 'item:302': column price: not a valid DOUBLE",
                "key 'item:303': not a hash but a string"]
        if rc != 0:
            h.fail("%s: exit %s" % (tag, rc), err)
        elif out.splitlines() != want:
            h.fail(tag + ": output differs from the reference", unified_diff(want, out.splitlines(), "expected", tag))
        elif st.get("bad_rows") != 3 or not all(s in err for s in says):
            h.fail("%s: %s bad rows (expected 3, each named)" % (tag, st.get("bad_rows")), err)
        else:
            h.ok("%s: %d result rows as the reference; 3 bad keys named with their reasons" % (tag, len(want) - 1))
    exe = compile_src(d, "over", HASH_QUERY.format(port=rd.port, opts=", max_bad_rows = 2"))
    if exe:
        rc, out, err, st = run(d, exe, 2)
        msg = "table 'items' (redis '127.0.0.1:%d', keys 'item:*'): more than max_bad_rows = 2 bad rows" % rd.port
        if rc == 1 and msg in err and not out:
            h.ok("hash layout: a third bad key over max_bad_rows = 2 ends the run before it starts, exit 1")
        else:
            h.fail("hash layout: max_bad_rows = 2: exit %s" % rc, err)
    rd.cli("FLUSHALL")


# ---- many keys, faults ---------------------------------------------------------

BIG_QUERY = """CREATE STREAM ev (k VARCHAR(16), ts TIMESTAMP) WITH (source = 'csv', path = 'ev.csv');
CREATE TABLE t (k VARCHAR(16), v BIGINT, PRIMARY KEY (k))
  WITH (source = 'redis', address = '127.0.0.1:{port}', key_prefix = 'k:');
SELECT COUNT(*) AS n, SUM(t.v) AS s, WINDOW_END FROM ev e JOIN t ON e.k = t.k WINDOW TUMBLING (SIZE 1 SECOND);
"""
NKEYS = 100000


def many_keys(work, rd):
    d = os.path.join(work, "big")
    os.mkdir(d)
    rd.fill([["SET", "k:%d" % i, str(i * 7)] for i in range(NKEYS)])
    # one event per 1000 keys, and one for the last key
    keys = list(range(0, NKEYS, 1000)) + [NKEYS - 1]
    with open(os.path.join(d, "ev.csv"), "w") as f:
        f.write("".join("%d,%d\n" % (k, 0) for k in keys))
    want = ["n,s,WINDOW_END", "%d,%d,1000" % (len(keys), sum(k * 7 for k in keys))]
    exe = compile_src(d, "big", BIG_QUERY.format(port=rd.port))
    if not exe:
        return
    # the table's keys are the csv's field: k:123 -> 123
    for np in (1, 3):
        t0 = time.time()
        rc, out, err, st = run(d, exe, np)
        secs = time.time() - t0
        if rc == 0 and out.splitlines() == want and st.get("unmatched", 0) == 0:
            h.ok("%d keys (SCAN in many steps), np=%d: every key loaded, the run took %.2f s" % (NKEYS, np, secs))
        else:
            h.fail("%d keys, np=%d: exit %s" % (NKEYS, np, rc), unified_diff(want, out.splitlines(), "expected",
                                                                              "got") + err)
    rd.cli("FLUSHALL")


def faults(work):
    d = os.path.join(work, "faults")
    os.mkdir(d)
    with open(os.path.join(d, "events.csv"), "w") as f:
        f.write("a,view,1\n")
    port = free_port()  # nothing listens there
    exe = compile_src(d, "none", YSB_QUERY.format(port=port, opts=", timeout = '1 s'"))
    if exe:
        t0 = time.time()
        rc, out, err, _ = run(d, exe, 2, timeout=30)
        msg = "table 'campaigns': cannot connect to redis at '127.0.0.1:%d' (timeout 1000 ms)" % port
        if rc == 1 and msg in err and time.time() - t0 < 15:
            h.ok("redis not there: a clear error at once, exit 1")
        else:
            h.fail("redis not there: exit %s after %.1f s" % (rc, time.time() - t0), err)
    # a server that takes the connection and never answers
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    try:
        exe = compile_src(d, "mute", YSB_QUERY.format(port=s.getsockname()[1], opts=", timeout = '500 ms'"))
        if exe:
            t0 = time.time()
            rc, out, err, _ = run(d, exe, 3, timeout=30)
            secs = time.time() - t0
            if rc == 1 and "did not answer SCAN within 500 ms (timeout)" in err and secs < 15:
                h.ok("redis not answering: a clear error after timeout = '500 ms' (run %.1f s), exit 1" % secs)
            else:
                h.fail("redis not answering: exit %s after %.1f s" % (rc, secs), err)
    finally:
        s.close()


def main():
    with h.workdir() as work:
        rd = Redis(work)
        try:
            ysb_original(work, rd)
            ysb_kafka_redis(work, rd)
            ysb_generator(work, rd)
            hash_layout(work, rd)
            many_keys(work, rd)
        finally:
            rd.close()
        faults(work)
    return h.summary()


if __name__ == "__main__":
    sys.exit(main())
