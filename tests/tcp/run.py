#!/usr/bin/env python3
"""source = 'tcp': csv lines over TCP, on loopback only (make check-tcp, part
of check).

listen = 'host:port': several senders connect at once, each sending its
rows in pieces; the records of concurrent senders never interleave inside
a line, and a sender that closes in the middle of its last line has that
line read. connect = 'host:port': the query connects to a server started
after it (it says it cannot connect and tries again), reads what the server
sends, and reconnects when the server closes. Either runs until a stop:
SIGINT with --on-stop emit, then every window is written. The reference is
computed here from the rows sent; 1, 2 and 3 ranks, fused and --no-fuse.
Then the errors: a port in use, and queries that cannot work.

    python3 tests/tcp/run.py      (from the repository root)
Environment: AIRC (build/airc), MPIRUN (mpirun), KEEP=1.
"""
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time

ROOT = os.getcwd()
sys.path.insert(0, os.path.join(ROOT, "tests"))
from lib import Harness, free_port, unified_diff, wait_listening  # noqa: E402

AIRC = os.path.abspath(os.environ.get("AIRC", "build/airc"))
MPIRUN = os.environ.get("MPIRUN", "mpirun")
HOST = "127.0.0.1"  # loopback only

h = Harness("tcp")
rng = random.Random(20261204)

QUERY = """CREATE STREAM events (key BIGINT, v BIGINT, ts TIMESTAMP,
                     WATERMARK FOR ts AS ts - INTERVAL '100' SECOND)
  WITH (source = 'tcp', {how} = '{host}:{port}'{fmt});
SELECT key, COUNT(*) AS n, SUM(v) AS s, WINDOW_END FROM events GROUP BY key
WINDOW TUMBLING (SIZE 1 SECOND);
"""


def rows_for(key, n):
    return [(key, rng.randrange(-50, 100), rng.randrange(0, 10000)) for _ in range(n)]


def reference(rows):
    acc = {}
    for k, v, ts in rows:
        a = acc.setdefault((ts // 1000 * 1000 + 1000, k), [0, 0])
        a[0] += 1
        a[1] += v
    return ["key,n,s,WINDOW_END"] + ["%d,%d,%d,%d" % (k, n, s, w) for (w, k), (n, s) in sorted(acc.items())]


def body(rows, partial_last=False, json_lines=False):
    if json_lines:  # keys in another order than the columns, spaces, an unknown key
        text = "".join('{"ts": %d, "v": %d, "src": {"a": [1]}, "key":%d}\n' % (ts, v, k) for k, v, ts in rows)
    else:
        text = "".join("%d,%d,%d\n" % r for r in rows)
    return (text[:-1] if partial_last else text).encode()


def send_in_pieces(sock, data):
    """The bytes in pieces that cut lines anywhere, with pauses."""
    at = 0
    while at < len(data):
        k = rng.randrange(1, 700)
        sock.sendall(data[at:at + k])
        at += k
        if rng.random() < 0.1:
            time.sleep(0.01)


def start(d, exe, np, err_path=None):
    """The run; its stderr to err_path when given (to watch it while it
    runs), else to a pipe."""
    err = open(err_path, "w") if err_path else subprocess.PIPE
    p = subprocess.Popen([MPIRUN, "-np", str(np), exe, "--on-stop", "emit", "--stats-json", "stats.json"],
                         cwd=d, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err, text=True)
    p.err_path = err_path
    if err_path:
        err.close()
    return p


def wait_for_text(path, text, timeout):
    """True once the file at path holds text, False after timeout s."""
    end = time.time() + timeout
    while time.time() < end:
        try:
            if text in open(path).read():
                return True
        except OSError:
            pass
        time.sleep(0.05)
    return False


def stop_and_check(p, d, label, rows):
    """SIGINT, then: exit 0, every row read, the windows of all of them."""
    time.sleep(1.0)  # the last bytes reach the reader
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        h.fail(label + ": no end 20 s after SIGINT")
        return None
    if p.err_path:
        err = open(p.err_path).read()
    # MPICH's launcher says on stdout that it passed the SIGINT on
    got = [l for l in out.splitlines() if not l.startswith("[mpiexec@")]
    want = reference(rows)
    try:
        st = json.load(open(os.path.join(d, "stats.json")))
    except (OSError, ValueError) as e:
        h.fail("%s: no stats.json (%s)" % (label, e), err)
        return None
    if p.returncode != 0:
        h.fail("%s: exit %d" % (label, p.returncode), err)
    elif st.get("events_in") != len(rows) or st.get("late") != 0:
        h.fail("%s: %s events read, %s late; %d sent" % (label, st.get("events_in"), st.get("late"), len(rows)),
               err)
    elif got != want:
        h.fail(label + ": output differs from the reference", unified_diff(want, got, "expected", label) + err)
    else:
        h.ok("%s: %d rows in, %d result rows as the reference" % (label, len(rows), len(want) - 1))
    return err


def compile_query(d, how, port, variant, json_lines=False):
    with open(os.path.join(d, "q.airq"), "w") as f:
        f.write(QUERY.format(how=how, host=HOST, port=port, fmt=", format = 'json'" if json_lines else ""))
    exe = os.path.join(d, "q_" + variant)
    ok = h.compile(AIRC, d, "q.airq", exe, ["--no-fuse"] if variant == "nofuse" else [],
                   label="%s %s" % (how, variant))
    return exe if ok else None


def listen_case(work):
    for np, variant, js in ((1, "fuse", False), (2, "fuse", False), (3, "fuse", False), (2, "nofuse", False),
                            (2, "fuse", True), (3, "nofuse", True)):
        d = os.path.join(work, "listen_%d_%s%s" % (np, variant, "_json" if js else ""))
        os.mkdir(d)
        port = free_port()
        exe = compile_query(d, "listen", port, variant, js)
        if not exe:
            continue
        label = "np=%d %s listen, 4 senders at once%s" % (np, variant, ", JSON lines" if js else "")
        p = start(d, exe, np)
        # the probe connection of wait_listening sends nothing: no rows
        if not wait_listening(port):
            p.kill()
            h.fail(label + ": nothing listens on the port", p.communicate()[1])
            continue
        sent = []
        threads = []
        for k in range(4):
            rows = rows_for(k, 800)
            sent += rows

            def run(rows=rows, last=(k == 3)):
                s = socket.create_connection((HOST, port))
                send_in_pieces(s, body(rows, partial_last=last, json_lines=js))
                s.close()
            threads.append(threading.Thread(target=run))
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        err = stop_and_check(p, d, label, sent)
        if err is not None:
            # the probe of wait_listening is a sender too
            ups = err.count("stream 'events': sender 127.0.0.1:")
            downs = err.count("closed the connection after 800 lines; still listening on")
            if ups < 10 or downs != 4:
                h.fail("%s: %d connect/disconnect lines, %d after 800 lines (expected 4 and more)" % (
                    label, ups, downs), err)
            else:
                h.ok(label + ": each sender's connection and its end (after 800 lines) logged")


def bad_rows_case(work):
    """A bad line names its sender and its line among that sender's lines."""
    d = os.path.join(work, "bad_rows")
    os.mkdir(d)
    port = free_port()
    exe = compile_query(d, "listen", port, "fuse")
    if not exe:
        return
    p = start(d, exe, 2)
    if not wait_listening(port):
        p.kill()
        h.fail("bad rows: nothing listens on the port", p.communicate()[1])
        return
    sent, expect = [], []
    for k, bad_at in ((5, 3), (6, 7)):
        rows = rows_for(k, 9)
        lines = ["%d,%d,%d" % r for r in rows]
        lines.insert(bad_at - 1, "%d,not a number,5" % k)
        s = socket.create_connection((HOST, port))
        me = "%s:%d" % s.getsockname()
        s.sendall(("\n".join(lines) + "\n").encode())
        s.close()
        time.sleep(0.3)  # one sender after the other: known line order
        sent += rows
        expect.append("(sender %s, its line %d): column v: not a valid BIGINT" % (me, bad_at))
        expect.append("sender %s closed the connection after 10 lines" % me)
    err = stop_and_check(p, d, "bad rows: 2 senders, a bad line each", sent)
    if err is not None:
        missing = [e for e in expect if e not in err]
        if missing:
            h.fail("bad rows: stderr does not say %s" % missing, err)
        else:
            h.ok("bad rows: each bad line located by its sender and its line there")


def connect_case(work):
    for np, variant in ((1, "fuse"), (2, "fuse"), (3, "nofuse")):
        d = os.path.join(work, "connect_%d_%s" % (np, variant))
        os.mkdir(d)
        port = free_port()
        exe = compile_query(d, "connect", port, variant)
        if not exe:
            continue
        label = "np=%d %s connect, a server that comes late and closes twice" % (np, variant)
        refused = "airc: q: stream 'events': cannot connect to %s:%d: Connection refused; trying again" % (HOST, port)
        err_path = os.path.join(d, "stderr")
        p = start(d, exe, np, err_path)
        # it tries, and cannot connect yet: the server starts once it said so
        # (a fixed wait was too short for 3 ranks' start on a loaded machine)
        if not wait_for_text(err_path, refused, 30):
            p.kill()
            p.communicate()
            h.fail("%s: no 'cannot connect' within 30 s" % label, open(err_path).read())
            continue
        srv = socket.socket()
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind((HOST, port))
        srv.listen(4)
        srv.settimeout(15)
        sent = []
        try:
            for part in range(2):
                conn, _ = srv.accept()
                rows = rows_for(part, 600)
                sent += rows
                send_in_pieces(conn, body(rows, partial_last=(part == 1)))
                conn.close()
        except OSError as e:
            h.fail("%s: the query did not connect (%s)" % (label, e))
            p.kill()
            p.communicate()
            srv.close()
            continue
        err = stop_and_check(p, d, label, sent)
        srv.close()
        if err is None:
            continue
        for what in (refused,
                     "stream 'events': %s:%d closed the connection; reconnecting" % (HOST, port),
                     "stream 'events': connected to %s:%d" % (HOST, port)):
            if what not in err:
                h.fail("%s: stderr does not say '%s'" % (label, what), err)
                break
        else:
            h.ok(label + ": says it cannot connect, that it reconnects, and when it is connected")


def errors(work):
    d = os.path.join(work, "errors")
    os.mkdir(d)
    # a port someone else holds: the run fails before it starts
    holder = socket.socket()
    holder.bind((HOST, 0))
    holder.listen(1)
    port = holder.getsockname()[1]
    exe = compile_query(d, "listen", port, "fuse")
    if exe:
        label = "listen on a port in use"
        try:
            r = subprocess.run([MPIRUN, "-np", "2", exe], cwd=d, capture_output=True, text=True, timeout=30,
                               stdin=subprocess.DEVNULL)
            msg = "stream 'events': cannot listen on %s:%d: Address already in use" % (HOST, port)
            if r.returncode != 0 and msg in r.stderr:
                h.ok("%s: exit %d, '%s'" % (label, r.returncode, msg))
            else:
                h.fail("%s: exit %d" % (label, r.returncode), r.stderr)
        except subprocess.TimeoutExpired:
            h.fail(label + ": still running after 30 s")
    holder.close()
    base = "CREATE STREAM s (k BIGINT, ts TIMESTAMP) WITH (source = 'tcp'%s);\nSELECT k FROM s;\n"
    for name, opts, msg in (
            ("neither", "", "source = 'tcp' needs either listen = 'host:port'"),
            ("both", ", listen = '127.0.0.1:5000', connect = '127.0.0.1:5001'", ", not both"),
            ("no port", ", listen = '127.0.0.1'", "option 'listen' must be 'host:port' with a port from 1 to 65535"),
            ("port 0", ", connect = 'localhost:0'", "option 'connect' must be 'host:port'"),
            ("port too big", ", listen = ':70000'", "option 'listen' must be 'host:port'"),
            ("IPv6 without brackets", ", listen = '::1:9000'", "an IPv6 address in brackets: '[::1]:9000'"),
            ("a space", ", connect = ' 127.0.0.1:9000'", "option 'connect' must be 'host:port'"),
            ("a path", ", listen = '127.0.0.1:5000', path = 'x.csv'", "option 'path' applies only to source =")):
        with open(os.path.join(d, "bad.airq"), "w") as f:
            f.write(base % opts)
        r = subprocess.run([AIRC, "--check", "bad.airq"], cwd=d, capture_output=True, text=True)
        if r.returncode != 0 and msg in r.stderr and "bad.airq:" in r.stderr:
            h.ok("%s: says '%s'" % (name, msg))
        else:
            h.fail("%s: exit %d" % (name, r.returncode), r.stderr)
    with open(os.path.join(d, "bad.airq"), "w") as f:
        f.write("CREATE TABLE t (k BIGINT, PRIMARY KEY (k)) WITH (source = 'tcp', listen = '127.0.0.1:5000');\n"
                "CREATE STREAM s (k BIGINT, ts TIMESTAMP) WITH (source = 'stdin');\n"
                "SELECT s.k FROM s JOIN t ON s.k = t.k;\n")
    r = subprocess.run([AIRC, "--check", "bad.airq"], cwd=d, capture_output=True, text=True)
    if r.returncode != 0 and "source 'tcp' cannot fill a TABLE" in r.stderr:
        h.ok("a TABLE: says 'source 'tcp' cannot fill a TABLE'")
    else:
        h.fail("a TABLE: exit %d" % r.returncode, r.stderr)


def main():
    with h.workdir() as work:
        listen_case(work)
        connect_case(work)
        bad_rows_case(work)
        errors(work)
    return h.summary()


if __name__ == "__main__":
    sys.exit(main())
