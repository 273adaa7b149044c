"""Reference for in_select_map: the query run by SQLite (SQL's three-valued
IN (SELECT ...)) over the same csv files, an empty field NULL; a Map, so
the rows are compared in any order (unordered). SQLite compares an integer
with a real as numbers and strings by their bytes, as airc does; its UPPER
folds ASCII letters alone, as airc's. By hand: id 0 has k -1, no key of t,
so k_in is false, and no name (NULL), so nm_in is NULL; the ids 20 and 50
(k * 10 of the rows whose "on" is false; k 4's "on" is NULL) are left out by
WHERE."""
import os
import re
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import print_result, read_csv


def load(db, name, cols, path, convs):
    db.execute(f"CREATE TABLE {name} ({', '.join(cols)})")
    for r in read_csv(path, header=True):
        db.execute(f"INSERT INTO {name} VALUES ({', '.join('?' * len(cols))})",
                   [None if v == "" else c(v) for c, v in zip(convs, r)])


def boolean(v):
    return 1 if v == "true" else 0


def no_bigint(text):
    """CAST(text AS BIGINT) IS NULL: NULL, or text that is no integer
    (SQLite's CAST would give 0 of it)."""
    return text is None or re.fullmatch(r"[+-]?[0-9]+", text) is None


db = sqlite3.connect(":memory:")
db.create_function("no_bigint", 1, no_bigint)
load(db, "ev", ["id", "k", "name", "x", "flag", "ts"], "ev.csv", [int, int, str, float, boolean, int])
load(db, "t", ["k", "name", "score", "n", '"on"'], "t.csv", [int, str, float, int, boolean])
rows = db.execute("""
SELECT id,
       k IN (SELECT k FROM t), k NOT IN (SELECT n FROM t WHERE "on"), name IN (SELECT name FROM t WHERE score > 1),
       x IN (SELECT score FROM t), k IN (SELECT score FROM t WHERE n IS NOT NULL), x NOT IN (SELECT k FROM t),
       flag IN (SELECT "on" FROM t WHERE k > 3),
       CASE WHEN name IN (SELECT UPPER(name) FROM t WHERE k < 8) THEN 'upper'
            WHEN name IN (SELECT name FROM t) THEN 'plain' ELSE 'other' END,
       k IN (SELECT k FROM t WHERE name IN (SELECT name FROM t WHERE n >= 2)),
       k IN (SELECT k FROM t WHERE no_bigint(name))
FROM ev WHERE id NOT IN (SELECT k * 10 FROM t WHERE NOT "on")""").fetchall()


def b(v):
    return None if v is None else bool(v)


out = [(r[0],) + tuple(b(v) for v in r[1:8]) + (r[8], b(r[9]), b(r[10])) for r in rows]
print_result(["id", "k_in", "k_nin", "nm_in", "x_in", "k_in_d", "x_nin", "f_in", "kind", "nested", "k_text"], out)
# t's names that are no BIGINT (NULL is not counted): stderr_grep's count
assert sum(1 for r in db.execute("SELECT name FROM t") if r[0] is not None and no_bigint(r[0])) == 6
