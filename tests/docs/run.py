"""make check-docs: every ```sql example of docs/language.md is a whole
program. Each one compiles with airc and runs on 2 ranks for at most 2
seconds (in a scratch directory holding queries/data as data/), exit 0 and
a CSV header on standard output or in its sink; an example whose first
lines say `-- expect error: TEXT` must fail to compile, with each TEXT in
airc's messages, each as file:line:col: error:."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
airc = os.environ.get("AIRC", os.path.join(root, "build", "airc"))
mpirun = os.environ.get("MPIRUN", "mpirun")
doc = os.path.join(root, "docs", "language.md")
text = open(doc, encoding="utf-8").read()
blocks = []
for m in re.finditer(r"^```sql\n(.*?)^```$", text, re.S | re.M):
    blocks.append((text.count("\n", 0, m.start()) + 2, m.group(1)))

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what)


work = tempfile.mkdtemp(prefix="airc-docs-")
try:
    shutil.copytree(os.path.join(root, "queries", "data"), os.path.join(work, "data"))
    for n, (line, body) in enumerate(blocks):
        name = "ex%d" % n
        where = "docs/language.md:%d" % line
        src = os.path.join(work, name + ".airq")
        with open(src, "w", encoding="utf-8") as f:
            f.write(body)
        expect = re.findall(r"^-- expect error: (.*)$", body, re.M)
        r = subprocess.run([airc, name + ".airq", "-o", name], cwd=work, capture_output=True,
                           text=True, timeout=120)
        if expect:
            check(r.returncode == 1, "%s: fails to compile (exit %d)" % (where, r.returncode))
            for e in expect:
                hit = re.search(r"^%s:\d+:\d+: error: .*%s" % (re.escape(name + ".airq"), re.escape(e)),
                                r.stderr, re.M)
                check(hit is not None, "%s: says '%s':\n%s" % (where, e, r.stderr))
            continue
        check(r.returncode == 0, "%s: compiles:\n%s" % (where, r.stderr))
        if r.returncode != 0:
            continue
        sinks = re.findall(r"sink = 'csv', path = '([^']*)'", body)
        for s in sinks:
            if os.path.exists(os.path.join(work, s)):
                os.remove(os.path.join(work, s))
        try:
            r = subprocess.run([mpirun, "-np", "2", "./" + name, "--duration", "2", "--quiet"],
                               cwd=work, capture_output=True, text=True, timeout=60)
            rc = r.returncode
        except subprocess.TimeoutExpired:
            rc, r = "timeout", None
        check(rc == 0, "%s: runs on 2 ranks (exit %s):\n%s" % (where, rc, r.stderr if r else ""))
        if rc != 0:
            continue
        outs = [r.stdout] + [open(os.path.join(work, s)).read() for s in sinks
                             if os.path.exists(os.path.join(work, s))]
        check(len(outs) == 1 + len(sinks), "%s: writes its sinks %s" % (where, sinks))
        for o in outs:
            if not o and not sinks:
                check(False, "%s: writes results" % where)
            elif o:
                check("," in o.splitlines()[0], "%s: a CSV header first: %r" % (where, o[:80]))
        print("ok   %s (%s)" % (where, "error" if expect else "runs"))
finally:
    shutil.rmtree(work, ignore_errors=True)
check(len(blocks) >= 10, "docs/language.md holds its examples (%d)" % len(blocks))
print("docs: %d passed, %d failed (%d examples)" % (passed, failed, len(blocks)))
sys.exit(1 if failed else 0)
