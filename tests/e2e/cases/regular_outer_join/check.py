"""Check for regular_outer_join (written from docs/language.md, "Regular
joins"): three queries on standard output, tagged q1..q3, each a changelog
(op first). Which padded rows an outer regular join writes and takes back
depends on the order its rows arrive in, so the changes are checked, not
their bytes:

- q1 (LEFT) and q2 (FULL): applied in order (+I adds a row, -D takes back
  one that is there), they leave exactly the rows of the join as sqlite3
  computes it over the whole files (nested loops of LEFT / FULL OUTER JOIN
  with the same ON); every -D takes back a padded row (its other side's
  columns empty), and only while it is shown; nothing else is assumed of
  the order;
- q3 (an updating COUNT, COUNT, SUM per a.k of a LEFT join): applied in
  order (+I, +U add a key's row, -U, -D take it back), its changes leave
  sqlite3's GROUP BY over the LEFT JOIN.

Checked by hand: a's row (k1, g 1, x -50, 1250 ms) meets no b row with
x > y (-50 is below every y), so it is padded in q1's result.
"""
import sqlite3
import sys
from collections import Counter

from airref import csv_line, output_lines, read_csv

db = sqlite3.connect(":memory:")
for name, col in (("a", "x"), ("b", "y")):
    db.execute(f"CREATE TABLE {name} (k, g, {col}, ts)")
    conv = int if name == "a" else float
    db.executemany(f"INSERT INTO {name} VALUES (?, ?, ?, ?)",
                   [(k or None, int(g), conv(v), int(t)) for k, g, v, t in read_csv(f"{name}.csv", header=True)])

WANT = {
    "q1": ("k,x,y,ats,bts", "SELECT a.k, a.x, b.y, a.ts, b.ts FROM a LEFT JOIN b "
                            "ON a.k = b.k AND a.g = b.g AND a.x > b.y", [(2, 4)]),
    "q2": ("x,y,bk", "SELECT a.x, b.y, b.k FROM a FULL OUTER JOIN b ON a.k = b.k AND a.g = b.g", [(0,), (1, 2)]),
    "q3": ("k,n,matched,sy", "SELECT a.k, COUNT(*), COUNT(b.y), SUM(b.y) FROM a LEFT JOIN b "
                             "ON a.k = b.k AND a.g <> b.g GROUP BY a.k", None),
}

got = {tag: [] for tag in WANT}
for line in output_lines(sys.argv[1]):
    tag, _, rest = line.partition(",")
    if tag not in got:
        sys.exit("line without a query tag: %r" % line)
    got[tag].append(rest)

for tag, (header, sql, padded_cols) in WANT.items():
    lines = got[tag]
    if not lines or lines[0] != "op," + header:
        sys.exit("%s: header %r, want %r" % (tag, lines[:1], "op," + header))
    shown = Counter()
    for line in lines[1:]:
        op, _, row = line.partition(",")
        if op in ("+I", "+U"):
            shown[row] += 1
        elif op in ("-D", "-U"):
            if not shown[row]:
                sys.exit("%s: %s of a row not shown: %r" % (tag, op, line))
            shown[row] -= 1
            f = row.split(",")
            if padded_cols and not any(all(f[i] == "" for i in cols) for cols in padded_cols):
                sys.exit("%s: a pair taken back: %r" % (tag, line))
        else:
            sys.exit("%s: no change: %r" % (tag, line))
    want = Counter(csv_line(r) for r in db.execute(sql))
    have = +shown
    if have != want:
        sys.exit("%s: the changes applied leave %d rows, sqlite3 has %d; missing %s; extra %s" % (
            tag, sum(have.values()), sum(want.values()), list((want - have).items())[:5],
            list((have - want).items())[:5]))
    print("%s: %d changes, %d rows left, as sqlite3" % (tag, len(lines) - 1, sum(want.values())))
