"""Reference for window_grace: a 10 s TUMBLING window with a 5 s GRACE
PERIOD, HAVING SUM(v) > 0, written as a changelog (docs/language.md,
"Grace period"; airref.grace_changelog).

Record i's W(i) is the largest event time of records 0..i-1 minus the 1 s
bound (airref.file_watermarks). For its window [s, e): on time when W(i) is
None or below e; within the grace when e <= W(i) < e + 5 s; late (dropped)
otherwise. At e each key's row of the on-time records is written (+I, when
HAVING holds). At e + 5 s, for each key with records within the grace: the
row of on-time and grace records against the row written at e: -U then +U,
+I (none was shown), -D (HAVING hides it now), nothing when the same.
Rows in order of the time they are written at (e, or e + grace), then key,
then op (+I, -U, +U, -D); WINDOW_END is e in both.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import csv_line, file_watermarks, grace_changelog, read_csv

SIZE, GRACE, BOUND = 10000, 5000, 1000


def changes():
    """window_grace's changelog and the kinds of its records."""
    here = os.path.dirname(os.path.abspath(__file__))
    rows = [(k, int(v), int(t)) for k, v, t in read_csv(os.path.join(here, "data.csv"), header=True)]
    wms = file_watermarks([t for _, _, t in rows], BOUND)

    def result(s, k, vs):
        """The key's row (without op), or None when HAVING hides it."""
        return (k, len(vs), sum(vs), max(vs), s + SIZE) if vs and sum(vs) > 0 else None

    return grace_changelog([(k, t, w, v) for (k, v, t), w in zip(rows, wms)], SIZE, GRACE, result)


def totals(out):
    """per_key: the windows each key's changelog leaves (+I, +U add a row,
    -U, -D take one back), their count and the sums of n and total; EMIT
    FINAL, in key order."""
    acc = {}
    for _, op, (k, n, total, _top, _we) in out:
        w = 1 if op in ("+I", "+U") else -1
        a = acc.setdefault(k, [0, 0, 0])
        a[0] += w
        a[1] += w * n
        a[2] += w * total
    return [(k,) + tuple(a) for k, a in sorted(acc.items(), key=lambda x: x[0].encode()) if a[0]]


if __name__ == "__main__" and sys.argv[1:] == ["totals.csv"]:
    print("k,windows,n,total")
    for r in totals(changes()[0]):
        print(csv_line(r))
elif __name__ == "__main__":
    out, kinds = changes()
    assert kinds["grace"] >= 8 and kinds["late"] >= 3 and kinds["on"] > 1000, kinds
    # every kind of update happens (at e + grace, not a multiple of the size)
    assert {op for t, op, _ in out if t % SIZE} == {"-U", "+U", "-D", "+I"}, out
    print("op,k,n,total,top,WINDOW_END")
    for _, op, r in out:
        print(csv_line((op,) + r))
