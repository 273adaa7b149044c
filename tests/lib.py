"""What the Python test harnesses share (tests/lib.sh is the shell one):
counters with ok/FAIL lines, excerpts of details, a work directory kept
with KEEP=1, and the summary line and exit status.

    from lib import Harness
    h = Harness("stop")
    with h.workdir() as work:
        ... h.ok("it works") / h.fail("it broke", stderr) ...
    sys.exit(h.summary())
"""
import contextlib
import difflib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time


class Harness:
    def __init__(self, name, detail_lines=20):
        self.name = name
        self.detail_lines = detail_lines
        self.passed = self.failed = 0

    def ok(self, msg):
        self.passed += 1
        print("ok %s %s" % (self.name, msg))

    def fail(self, msg, detail=""):
        self.failed += 1
        print("FAIL %s %s" % (self.name, msg))
        for line in detail.splitlines()[:self.detail_lines]:
            print("    " + line)

    @contextlib.contextmanager
    def workdir(self):
        work = tempfile.mkdtemp(prefix="airc-%s." % self.name)
        try:
            yield work
        finally:
            if os.environ.get("KEEP") == "1":
                print("%s: keeping %s" % (self.name, work))
            else:
                shutil.rmtree(work, ignore_errors=True)

    def summary(self):
        """The summary line; the exit status (0 only when something passed
        and nothing failed)."""
        print("%s: %d passed, %d failed" % (self.name, self.passed, self.failed))
        return 0 if self.failed == 0 and self.passed > 0 else 1

    def compile(self, airc, d, src, exe, flags=(), label=None):
        """airc [flags] src -o exe in directory d; a FAIL line (with airc's
        stderr) and False when it fails. TIMESTAMPs are written as epoch
        ms (--timestamp-format epoch_ms, what the references compute)
        unless flags say otherwise; the default, ISO text, has cases of
        its own (tests/README.md)."""
        flags = list(flags)
        if not any(f.startswith("--timestamp-format") for f in flags):
            flags = ["--timestamp-format", "epoch_ms"] + flags
        c = subprocess.run([airc] + flags + [src, "-o", exe], cwd=d, capture_output=True,
                           text=True, timeout=120)
        if c.returncode != 0:
            self.fail("%s: airc failed" % (label or src), c.stderr)
            return False
        return True


    def check_variants(self, airc, mpirun, d, name, expected, ranks, timeout, note=""):
        """query.airq in directory d compiled fused and --no-fuse (-Werror)
        and run on each rank count: standard output must be the lines
        `expected`. An ok line per run (with note) or a FAIL with the diff."""
        for variant, flags in (("fuse", []), ("nofuse", ["--no-fuse"])):
            exe = os.path.join(d, "q_" + variant)
            if not self.compile(airc, d, "query.airq", exe, flags + ["--cflags", "-Werror"],
                                "%s %s" % (name, variant)):
                continue
            for np in ranks:
                label = "%s np=%d %s" % (name, np, variant)
                try:
                    r = subprocess.run([mpirun, "-np", str(np), exe], cwd=d, capture_output=True,
                                       text=True, timeout=timeout, stdin=subprocess.DEVNULL)
                except subprocess.TimeoutExpired:
                    self.fail(label + ": timed out")
                    continue
                got = r.stdout.splitlines()
                if r.returncode != 0:
                    self.fail("%s: exit status %d" % (label, r.returncode), r.stderr)
                elif got != expected:
                    self.fail(label + ": output differs from the reference",
                              unified_diff(expected, got, "expected", label))
                else:
                    self.ok("%s%s" % (label, note))


def unified_diff(want, got, want_name, got_name):
    """want and got (strings, or lists of lines without line ends) as a
    unified diff."""
    if isinstance(want, str):
        want, got = want.splitlines(), got.splitlines()
    return "\n".join(difflib.unified_diff(want, got, want_name, got_name, lineterm=""))


def run_stats(mpirun, d, exe, np, timeout=60, extra=()):
    """mpirun -np np exe --stats-json in directory d: (exit status, stdout,
    stderr, the stats as a dict); (None, "", why, {}) when it did not end
    within timeout seconds."""
    stats = os.path.join(d, "stats_%d.json" % np)
    if os.path.exists(stats):
        os.unlink(stats)
    try:
        r = subprocess.run([mpirun, "-np", str(np), exe, "--stats-json", stats] + list(extra), cwd=d,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", "timed out after %d s" % timeout, {}
    try:
        with open(stats) as f:
            st = json.load(f)
    except (OSError, ValueError):
        st = {}
    return r.returncode, r.stdout, r.stderr, st


def free_port(host="127.0.0.1"):
    """A TCP port on host that nothing listens on (now)."""
    s = socket.socket()
    s.bind((host, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_listening(port, secs=10, host="127.0.0.1"):
    """Whether something listens on host:port within secs (the probe
    connection sends nothing)."""
    deadline = time.time() + secs
    while time.time() < deadline:
        try:
            socket.create_connection((host, port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


class RedisServer:
    """A redis-server of a test's own: 127.0.0.1, a free port, its files in
    a new directory under work, nothing saved. cli() runs redis-cli against
    it; stop() ends it (the tests call it in a finally)."""

    password = None  # AUTH for cli(), once the test set one

    def __init__(self, work, server="redis-server", cli="redis-cli"):
        self.client = cli
        self.port = free_port()
        self.dir = os.path.join(work, "redis-%d" % self.port)
        os.mkdir(self.dir)
        self.p = subprocess.Popen([server, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                   "--appendonly", "no", "--dir", self.dir],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while time.time() < deadline:
            if self.cli("PING").strip() == "PONG":
                return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("redis-server did not start on port %d" % self.port)

    def cli(self, *args, db=0, stdin=None, raw=False):
        auth = ["-a", self.password, "--no-auth-warning"] if self.password else []
        r = subprocess.run([self.client, "-h", "127.0.0.1", "-p", str(self.port), "-n", str(db)] +
                           (["--raw"] if raw else []) + auth + list(args),
                           input=stdin, capture_output=True, text=True, timeout=120)
        return r.stdout

    def stop(self):
        if self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
