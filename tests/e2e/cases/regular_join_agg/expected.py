"""Reference for regular_join_agg (written from docs/language.md, "Regular
joins" and the updating queries' changelog):

- the join's pairs: an auction and a bid of its id whose time is within
  [auction dateTime, expires], every row joining (none is late in a
  regular join); a pair's time is the later of the two times raised to
  W + 1 when at or below W, for W the watermark of either row's file before
  it (airref.file_watermarks, bound 1 s);
- an updating aggregation emits per ms of event time (EMIT CHANGES) the
  keys that ms changed, in key order: +I for a new key, -U then +U for a
  changed one, nothing for one whose row did not change; the outer
  aggregation reads the inner's changes at the same ms, -U taking the old
  final out of its category's average;
- the final tables come from sqlite3 (the same join and GROUP BY over the
  whole files): the changelogs applied in order must give them (asserted).

Checked by hand: auction 1 (category 4, from 1200 to 5200 ms) has bids at
0 ms (before it), 2150 ms (price 23: +I,1,4,23,1, the first change of
finals.csv), 3450 ms (price 9: -U,1,4,23,1 and +U,1,4,23,2) and 6350 ms
(after it expired). 65 of the 360 rows are behind their watermark.
"""
import os
import sqlite3
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import changelog_by_time, print_result, read_csv, regular_join_time, with_watermarks

A = with_watermarks([dict(zip(("id", "category", "t", "expires"), map(int, r)))
                     for r in read_csv("auction.csv", header=True)], 1000, "t")
B = with_watermarks([dict(zip(("auction", "price", "t"), map(int, r))) for r in read_csv("bid.csv", header=True)],
                    1000, "t")
late = sum(r["wm"] is not None and r["t"] < r["wm"] for r in A + B)
assert late > 20, "the data has too few rows behind the watermark"


by_ms = defaultdict(list)
for a in A:
    for b in B:
        if a["id"] == b["auction"] and a["t"] <= b["t"] <= a["expires"]:
            by_ms[regular_join_time(a, b, "t")].append((a["id"], a["category"], b["price"]))
inner = changelog_by_time(sorted(by_ms.items()), lambda r: r[:2], lambda s: s,
                  lambda s, r: (r[2], 1) if s is None else (max(s[0], r[2]), s[1] + 1))
outer_in = defaultdict(list)
for t, op, (aid, cat), (final, _) in inner:
    outer_in[t].append((cat, -1 if op in ("-U", "-D") else 1, final))
outer = changelog_by_time(sorted(outer_in.items()), lambda r: r[0], lambda s: s[1] / s[0] if s[0] else None,
                  lambda s, r: ((s or (0, 0))[0] + r[1], (s or (0, 0))[1] + r[1] * r[2]))

# the final tables, from sqlite3, against the changelogs applied in order
db = sqlite3.connect(":memory:")
db.execute("CREATE TABLE auction (id, category, dateTime, expires)")
db.execute("CREATE TABLE bid (auction, price, dateTime)")
db.executemany("INSERT INTO auction VALUES (?, ?, ?, ?)", [(a["id"], a["category"], a["t"], a["expires"]) for a in A])
db.executemany("INSERT INTO bid VALUES (?, ?, ?)", [(b["auction"], b["price"], b["t"]) for b in B])
inner_sql = ("SELECT A.id, A.category, MAX(B.price) AS final, COUNT(*) FROM auction A, bid B "
             "WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires GROUP BY A.id, A.category")
want_inner = {(i, c): (f, n) for i, c, f, n in db.execute(inner_sql)}
want_outer = dict(db.execute(f"SELECT category, AVG(final) FROM ({inner_sql}) GROUP BY category"))


def applied(log):
    table = {}
    for _, op, k, v in log:
        if op in ("-U", "-D"):
            assert table.pop(k) == v, "a change takes back a row not shown"
        else:
            assert k not in table
            table[k] = v
    return table


assert applied(inner) == want_inner, "inner changelog does not give sqlite3's table"
assert applied(outer) == want_outer, "outer changelog does not give sqlite3's table"

if len(sys.argv) > 1:
    print_result(["op", "id", "category", "final", "bids"], [(op, i, c, f, n) for _, op, (i, c), (f, n) in inner])
else:
    print_result(["op", "category", "avg_final"], [(op, c, v) for _, op, c, v in outer])
    print(f"{len(inner)} inner changes, {len(outer)} outer, {late} rows behind the watermark", file=sys.stderr)
