#!/usr/bin/env python3
"""make check-debug: `airc -g` (part of check).

A query with a bad csv field and a division by zero is built with -g. The
C stays beside the executable, holds #line directives into the query,
compiles with -Wall -Wextra -Werror, and gives the same rows as the
optimized build (the expected rows are worked out here by hand: integer
division truncates, x / 0 is NULL and counted, the bad record is skipped).
Under gdb, the bad row and the division by zero stop in a frame located at
the query's line: the line of column b's declaration and of `a / b`. A C
compiler that fails leaves its C file, named in the message.

    python3 tests/debug/run.py      (from anywhere)
Environment: AIRC (build/airc), MPICC (mpicc), GDB (gdb), KEEP=1.
"""
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from lib import Harness  # noqa: E402

AIRC = os.path.abspath(os.environ.get("AIRC", os.path.join(ROOT, "build", "airc")))
MPICC = os.environ.get("MPICC", "mpicc")
GDB = os.environ.get("GDB", "gdb")

# Line numbers matter: b is declared on line 3, the WHERE's second
# conjunct, which divides first, is on line 8.
QUERY = """-- a division by zero and a bad row, for gdb
CREATE STREAM s (a INT,
                 b INT,
                 ts TIMESTAMP) WITH (source = 'csv', path = 'in.csv', header = true);
SELECT a,
       a / b AS r
FROM s WHERE a > 0
  AND a / b >= -5;
"""
B_LINE, DIV_LINE = 3, 8
# Aggregates whose updates are several C lines each, a HAVING, keys.
AGG_QUERY = """CREATE STREAM s (a INT, b DOUBLE, ts TIMESTAMP)
  WITH (source = 'csv', path = 'in.csv', header = true);
SELECT a,
       AVG(b) AS m,
       MAX(b) AS top,
       MIN(a + 1) AS low
FROM s
GROUP BY a
WINDOW TUMBLING (SIZE 10 SECONDS)
HAVING COUNT(*) > 0;
"""
DATA = "a,b,ts\n1,2,1000\n2,0,2000\n3,x,3000\n7,-2,4000\n"
# by hand: 1/2 = 0; 2/0 is NULL (counted), so `a / b >= -5` is not true
# and the row is filtered; 3 is bad (b = 'x'); 7/-2 = -3 (truncates, and
# -3 >= -5 passes);
# a query without a window writes rows in arrival order, so they are compared sorted
EXPECTED = ["1,0", "7,-3"]


def rows_of(out):
    """The header and the sorted rows of a CSV output."""
    lines = out.splitlines()
    return (lines[0] if lines else "", sorted(lines[1:]))

h = Harness("debug")


def check(cond, msg, detail=""):
    if cond:
        h.ok(msg)
    else:
        h.fail(msg, detail)


def run(cmd, cwd, timeout=120):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def check_one_line_each(c, what):
    """Every C line mapped into the query has a #line of its own: the line
    after a '#line N "x.airq"' is code, and the one after it a #line again
    (so no further C line counts on through the query's lines)."""
    lines = c.split("\n")
    bad = [i + 1 for i, l in enumerate(lines)
           if re.match(r'^#line \d+ ".*\.airq"$', l)
           and (i + 2 >= len(lines) or lines[i + 1].startswith("#line") or not lines[i + 2].startswith("#line"))]
    n = sum(1 for l in lines if re.match(r'^#line \d+ ".*\.airq"$', l))
    check(n > 0 and not bad, "%s: each of %d lines mapped into the query has its own #line" % (what, n),
          "not so after C lines %s" % bad[:10])


def gdb_frame_line(work, breakpoint, frames_up):
    """Run ./q under gdb until breakpoint, go up frames_up frames; the
    'file:line' gdb prints for that frame, or the whole output."""
    r = run([GDB, "-batch", "-nx", "-ex", "break " + breakpoint, "-ex", "run", "-ex",
             "up %d" % frames_up, "-ex", "kill", "--args", "./q"], work, timeout=120)
    m = re.search(r"^#%d .* at (\S+):(\d+)$" % frames_up, r.stdout, re.M)
    return (os.path.basename(m.group(1)), int(m.group(2))) if m else r.stdout + r.stderr


def main():
    with h.workdir() as work:
        with open(os.path.join(work, "q.airq"), "w") as f:
            f.write(QUERY)
        with open(os.path.join(work, "in.csv"), "w") as f:
            f.write(DATA)
        if not h.compile(AIRC, work, "q.airq", "q", flags=["-g"], label="airc -g"):
            return h.summary()
        cfile = os.path.join(work, "q.c")
        if not os.path.exists(cfile):
            h.fail("airc -g keeps q.c beside the executable")
            return h.summary()
        h.ok("airc -g keeps q.c beside the executable")
        c = open(cfile).read()
        for line in (B_LINE, DIV_LINE):
            want = '#line %d "q.airq"' % line
            check(want in c, "q.c maps into the query: %s" % want)
        back = re.findall(r'^#line (\d+) "q.c"$', c, re.M)
        lines = c.split("\n")
        wrong = [n for n in back if lines[int(n) - 2] != '#line %s "q.c"' % n]
        if back and not wrong:
            h.ok("each of %d '#line N \"q.c\"' names its own next line" % len(back))
        else:
            h.fail("'#line N \"q.c\"' numbering", "no such lines" if not back else "wrong: %s" % wrong[:5])
        check_one_line_each(c, "q.c")
        with open(os.path.join(work, "agg.airq"), "w") as f:
            f.write(AGG_QUERY)
        r = run([AIRC, "-g", "-S", "agg.airq", "-o", "agg.c"], work)
        if r.returncode == 0:
            check_one_line_each(open(os.path.join(work, "agg.c")).read(), "agg.c (AVG, MAX, MIN, HAVING)")
        else:
            h.fail("airc -g -S agg.airq", r.stderr)
        r = run([MPICC, "-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror", "-g", "-O0", "-I",
                 os.path.join(ROOT, "build", "include"), "-c", "q.c", "-o", "q.o"], work)
        check(r.returncode == 0, "q.c compiles with -Wall -Wextra -Werror", r.stderr)

        # the same rows as the optimized build, and as worked out by hand
        if h.compile(AIRC, work, "q.airq", "q_opt", label="airc (optimized)"):
            for exe in ("q", "q_opt"):
                r = run(["mpirun", "-np", "2", "./" + exe], work)
                if r.returncode == 0 and rows_of(r.stdout) == ("a,r", EXPECTED) and "division by zero 1" in run(
                        ["mpirun", "-np", "1", "./" + exe, "--stats"], work).stderr:
                    h.ok("%s: the expected rows on 2 ranks, the division by zero counted" % exe)
                else:
                    h.fail("%s: the expected rows" % exe, "exit %d\n%s%s" % (r.returncode, r.stdout, r.stderr))

        # gdb: a runtime event back to its query line
        if shutil.which(GDB) is None:
            h.fail("gdb is installed (make deps)")
        else:
            got = gdb_frame_line(work, "air_csv_bad_row", 1)
            check(got == ("q.airq", B_LINE), "gdb: the bad row's caller is q.airq:%d (b's declaration)" % B_LINE,
                  str(got))
            got = gdb_frame_line(work, "q_div_i64 if b == 0", 2)
            check(got == ("q.airq", DIV_LINE), "gdb: the division by zero's caller is q.airq:%d (the WHERE's second conjunct)" % DIV_LINE,
                  str(got))

        # a failing C compiler leaves its C file, named in the message
        r = run([AIRC, "--cc", "false", "q.airq", "-o", "q_bad"], work)
        m = re.search(r"the C is kept in '([^']+)'", r.stderr)
        if r.returncode == 1 and m and os.path.exists(m.group(1)):
            h.ok("a failing C compiler keeps the C: %s" % m.group(1))
            shutil.rmtree(os.path.dirname(m.group(1)), ignore_errors=True)
        else:
            h.fail("a failing C compiler keeps the C and says where", r.stderr)
    return h.summary()


if __name__ == "__main__":
    sys.exit(main())
