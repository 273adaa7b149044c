"""Checks updating_retract's standard output (queries tagged q2 to q5; q1
is the derived stream per_cust, which writes nothing).

per_cust (and q2, the same query on stdout) is the changelog of each
(region, cust)'s running COUNT and SUM of amount, HAVING SUM >= 0, emitted
every 5 s (airref.changelog; rows behind the watermark count at W + 1:
records 500 and 901). Each of its rows has the event time of its
emission's end - 1 ms, so the outer queries (EMIT CHANGES, per ms) see
one emission's rows in one ms. q3 (per region) and q4 (per n) fold each
row with weight +1 (+I, +U) or -1 (-U, -D): COUNT, SUM and AVG of what is
left; a group with nothing left is deleted (-D: 'moon', whose customers
both end hidden). q5, a filter with a table lookup, passes each row with
n > 20 of a region in regions.csv, op and all: its lines are compared as
a set, and in order for each (region, cust).

Then the changelogs of q2, q3 and q4, applied in order (airref.
apply_changelog: a -U or -D takes back exactly the row present, +U follows
its -U), must leave exactly the tables SQLite computes by GROUP BY over
all of orders.csv.

By hand: 'moon' has customers 90 and 91 only, and only before ts 2025000;
their last orders are -300 refunds (after 2015000), so both are hidden
(-D) by the emission of [2020000, 2025000) or [2015000, 2020000) and q3
ends with -D of 'moon'.
"""
import csv
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import (apply_changelog, changelog, check_tagged_sets, csv_line, file_watermarks, output_lines,
                    read_csv, updating_times)

EVERY, BOUND = 5000, 1000
orders = [(r, int(c), int(a), int(t)) for r, c, a, t in read_csv("orders.csv", header=True)]
names = dict(read_csv("regions.csv", header=True))
times = [t for *_, t in orders]
wms = file_watermarks(times, BOUND)
assert [i for i, (t, w) in enumerate(zip(times, wms)) if w is not None and t <= w] == [500, 901]

by_iv = {}
for (region, cust, amount, _), u in zip(orders, updating_times(times, BOUND)):
    by_iv.setdefault(u // EVERY, []).append(((region, cust), amount))
inner = changelog([by_iv[b] for b in sorted(by_iv)],
                  lambda s, a: (s[0] + 1, s[1] + a) if s else (1, a),
                  lambda k, s: k + s if s[1] >= 0 else None)
assert [op for _, op, _ in inner].count("-D") >= 5

# The outer queries: one batch per emission of per_cust, rows weighted.
emissions = {}
for n, op, row in inner:
    emissions.setdefault(n, []).append((-1 if op in ("-U", "-D") else 1, row))


def outer(key, having):
    def fold(s, wr):
        w, (_, _, n, spent) = wr
        c, total = s or (0, 0)
        return c + w, total + w * spent
    batches = [[(key(row), (w, row)) for w, row in emissions[n]] for n in sorted(emissions)]
    return changelog(batches, fold, lambda k, s: k + having(s) if s[0] and having(s) else None)


per_region = outer(lambda row: (row[0],), lambda s: (s[0], s[1], s[1] / s[0], s[0]))
per_n = outer(lambda row: (row[2],), lambda s: s if s[0] > 2 else None)
assert [(op, r[0]) for _, op, r in per_region if r[0] == "moon"][-1] == ("-D", "moon")
assert [op for _, op, _ in per_n].count("-D") > 10
mapped = [(op, r[0], names[r[0]], r[1], 2 * r[3]) for _, op, r in inner if r[2] > 20 and r[0] in names]


def tagged(header, out):
    return [header] + [csv_line((op,) + r) for _, op, r in out]


want5 = ["op,region,name,cust,dbl"] + [csv_line(r) for r in mapped]
check_tagged_sets(sys.argv[1], {"q2": tagged("op,region,cust,n,spent", inner),
                                "q3": tagged("op,region,custs,total,mean,cn", per_region),
                                "q4": tagged("op,n,custs,total", per_n),
                                "q5": want5}, unordered=("q5",))
got = {}
for line in output_lines(sys.argv[1]):
    tag, _, rest = line.partition(",")
    got.setdefault(tag, []).append(rest)
# q5: each customer's rows in per_cust's order.
def by_cust(lines):
    out = {}
    for line in lines:
        f = next(csv.reader([line]))
        out.setdefault((f[1], f[3]), []).append(line)
    return out


assert by_cust(got["q5"][1:]) == by_cust(want5[1:])

# The changelogs applied, against SQLite over all rows.
db = sqlite3.connect(":memory:")
db.execute("CREATE TABLE orders (region TEXT, cust INTEGER, amount INTEGER, ts INTEGER)")
db.executemany("INSERT INTO orders VALUES (?, ?, ?, ?)", orders)
db.execute("""CREATE VIEW per_cust AS SELECT region, cust, COUNT(*) AS n, SUM(amount) AS spent
              FROM orders GROUP BY region, cust HAVING SUM(amount) >= 0""")
for tag, nkey, sql in [
        ("q2", 2, "SELECT * FROM per_cust"),
        ("q3", 1, "SELECT region, COUNT(*), SUM(spent), AVG(spent), COUNT(n) FROM per_cust GROUP BY region"),
        ("q4", 1, "SELECT n, COUNT(*), SUM(spent) FROM per_cust GROUP BY n HAVING COUNT(*) > 2")]:
    table = apply_changelog(got[tag][1:], nkey)
    want = sorted(csv_line(r) for r in db.execute(sql))
    assert len(want) >= 3, (tag, want)
    assert sorted(table.values()) == want, "%s's changelog leaves\n%s\nnot\n%s" % (
        tag, "\n".join(sorted(table.values())), "\n".join(want))
