#!/usr/bin/env python3
"""make check-docs: every ```sql example of docs/language.md is a whole
program. Each one compiles with airc and runs on 2 ranks for at most 2
seconds (in a scratch directory holding queries/data as data/), exit 0 and
a CSV header on standard output or in each of its sinks; an example whose
first lines say `-- expect error: TEXT` must fail to compile, with each
TEXT in airc's messages, each as file:line:col: error:.

    python3 tests/docs/run.py      (from anywhere)
Environment: AIRC (build/airc), MPIRUN (mpirun), KEEP=1.
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
MPIRUN = os.environ.get("MPIRUN", "mpirun")
DOC = os.path.join(ROOT, "docs", "language.md")

h = Harness("docs")


def examples():
    """(line of the first query line in docs/language.md, query text) per
    ```sql block."""
    text = open(DOC, encoding="utf-8").read()
    return [(text.count("\n", 0, m.start()) + 2, m.group(1))
            for m in re.finditer(r"^```sql\n(.*?)^```$", text, re.S | re.M)]


def error_example(work, name, where, expect):
    """The example must fail to compile, saying each expected text as
    name.airq:L:C: error:."""
    r = subprocess.run([AIRC, name + ".airq", "-o", name], cwd=work, capture_output=True,
                       text=True, timeout=120)
    if r.returncode != 1:
        h.fail("%s: fails to compile (exit %d)" % (where, r.returncode), r.stderr)
        return
    for e in expect:
        if re.search(r"^%s:\d+:\d+: error: .*%s" % (re.escape(name + ".airq"), re.escape(e)),
                     r.stderr, re.M):
            h.ok("%s: says '%s'" % (where, e))
        else:
            h.fail("%s: says '%s'" % (where, e), r.stderr)


def header_first(out):
    """Whether out begins with a CSV header line."""
    return bool(out) and "," in out.splitlines()[0]


def running_example(work, name, where, body):
    """The example compiles, runs on 2 ranks and writes a CSV header to
    standard output (no sinks) or to each of its csv sinks."""
    if not h.compile(AIRC, work, name + ".airq", name, label=where):
        return
    sinks = [os.path.join(work, s) for s in re.findall(r"sink = 'csv', path = '([^']*)'", body)]
    for s in sinks:
        if os.path.exists(s):
            os.remove(s)
    try:
        r = subprocess.run([MPIRUN, "-np", "2", "./" + name, "--duration", "2", "--quiet"],
                           cwd=work, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        h.fail("%s: runs on 2 ranks within 60 s" % where)
        return
    if r.returncode != 0:
        h.fail("%s: runs on 2 ranks (exit %d)" % (where, r.returncode), r.stderr)
        return
    if not sinks:
        if header_first(r.stdout):
            h.ok("%s: runs, a CSV header first on stdout" % where)
        else:
            h.fail("%s: a CSV header first on stdout" % where, r.stdout[:400])
        return
    for s in sinks:
        rel = os.path.relpath(s, work)
        if not os.path.exists(s):
            h.fail("%s: writes its sink %s" % (where, rel))
            continue
        out = open(s, encoding="utf-8").read()
        if header_first(out):
            h.ok("%s: runs, a CSV header first in %s" % (where, rel))
        else:
            h.fail("%s: a CSV header first in %s" % (where, rel), out[:400])


def main():
    blocks = examples()
    if len(blocks) >= 10:
        h.ok("docs/language.md holds %d examples" % len(blocks))
    else:
        h.fail("docs/language.md holds at least 10 examples (%d)" % len(blocks))
    with h.workdir() as work:
        shutil.copytree(os.path.join(ROOT, "queries", "data"), os.path.join(work, "data"))
        for n, (line, body) in enumerate(blocks):
            name = "ex%d" % n
            where = "docs/language.md:%d" % line
            with open(os.path.join(work, name + ".airq"), "w", encoding="utf-8") as f:
                f.write(body)
            expect = re.findall(r"^-- expect error: (.*)$", body, re.M)
            if expect:
                error_example(work, name, where, expect)
            else:
                running_example(work, name, where, body)
    return h.summary()


if __name__ == "__main__":
    sys.exit(main())
