"""Checks the nulls case's standard output against SQLite, whose NULL is
SQL's: query 1 (tagged q1) in the order airc writes (window end, then the
group keys, NULL after every value), query 2 (q2, a Map: rows in any
order) as a sorted set of lines. CAST of text is computed here (SQLite's
CAST of 'ab' is 0, airc's NULL)."""
import os
import re
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import check_tagged_sets, csv_line

here = os.path.dirname(os.path.abspath(__file__))


def field(v):
    # an empty field is NULL; "" (quoted) the empty string
    return None if v == "" else "" if v == '""' else v


db = sqlite3.connect(":memory:")
db.execute("CREATE TABLE d (id INTEGER, k TEXT, a INTEGER, x REAL, s TEXT, flag INTEGER, n INTEGER, ts INTEGER)")
db.execute("CREATE TABLE t (k TEXT PRIMARY KEY, name TEXT, w REAL)")
with open(os.path.join(here, "data.csv")) as f:
    for line in f.read().splitlines()[1:]:
        v = [field(x) for x in line.split(",")]
        if v[0] is None:
            continue  # NOT NULL id: a bad row
        conv = [int, str, int, float, str, lambda b: 1 if b == "true" else 0, int, int]
        db.execute("INSERT INTO d VALUES (?,?,?,?,?,?,?,?)", [None if x is None else c(x) for c, x in zip(conv, v)])
with open(os.path.join(here, "products.csv")) as f:
    for line in f.read().splitlines()[1:]:
        k, name, w = [field(x) for x in line.split(",")]
        db.execute("INSERT INTO t VALUES (?,?,?)", (k, name, None if w is None else float(w)))

q1 = db.execute("""
SELECT d.k, t.name, COUNT(*), COUNT(d.a), SUM(d.a), AVG(d.x), MIN(d.n), MAX(CASE WHEN d.flag THEN d.x END),
       SUM(d.a * t.w), SUM(CASE WHEN d.a > 5 OR d.flag THEN 1 ELSE 0 END), COALESCE(t.name, '?'),
       (d.ts / 10000) * 10000 + 10000 AS we
FROM d LEFT JOIN t ON d.k = t.k
WHERE d.s IS NULL OR d.s <> 'zz'
GROUP BY we, d.k, t.name
ORDER BY we, d.k IS NULL, d.k, t.name IS NULL, t.name""").fetchall()
want1 = ["k,name,c,ca,sa,ax,mn,mxf,saw,cf,nm,WINDOW_END"] + [csv_line(r) for r in q1]

BOOLS = {7, 8, 9, 10, 12, 15}
q2 = db.execute("""
SELECT id, a + n, a / n, NULLIF(a, 3), CASE WHEN a > 5 THEN 'big' WHEN a <= 5 THEN 'small' END, UPPER(s), s || k,
       a IN (1, 2, NULL), NOT flag, flag AND a > 3, flag OR a > 3, s, a IS NULL, COALESCE(x, CAST(a AS REAL), -1.5),
       LENGTH(s), x BETWEEN 1 AND n
FROM d WHERE k IS NOT NULL OR a IS NULL""").fetchall()
want2 = []
for r in q2:
    r = list(r)
    s = r[11]
    r[11] = int(s) if s is not None and re.fullmatch(r"[+-]?[0-9]+", s) else None
    for i in BOOLS:
        r[i] = None if r[i] is None else bool(r[i])
    want2.append(csv_line(r))
want2 = ["id,an,q,nf,sz,us,sk,inn,nfl,fa,fo,cs,anull,co,ls,bt"] + sorted(want2)

check_tagged_sets(sys.argv[1], {"q1": want1, "q2": want2}, unordered=("q2",))
if len(q1) < 6 or len(q2) < 40:
    sys.exit("too few rows to test anything: %d, %d" % (len(q1), len(q2)))
