"""Reference for updating_final. `python3 expected.py` prints standard
output: one row (no GROUP BY, EMIT FINAL) over all of sales.csv;
`python3 expected.py FILE` prints that sink file:

- per_item.csv, per_shop.jsonl: EMIT FINAL, a plain table (no op column)
  written once at the end, each key once, ordered by the GROUP BY keys
  (strings as bytes: "" < "Zoë" < "a,b" < "north", NULL last): SQLite's
  GROUP BY over all rows, none dropped (records 350 and 500, far behind
  the watermark, count too);
- changes.csv, changes.jsonl: the per-shop query's changelog every 10 s
  (airref.changelog: rows behind the watermark count at W + 1), header
  and JSON objects starting with op; applied in order
  (airref.apply_changelog) it must leave per_shop's final table.

By hand: shop "a,b" never has a qty for item 4, so its SUM(qty) is NULL
(an empty field) in per_item.csv; 151 rows have a NULL shop, the last
group of both final tables.
"""
import csv
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import (apply_changelog, changelog, csv_line, file_watermarks, fmt_value, print_result,
                    updating_times)

EVERY, BOUND, HAVING = 10000, 1000, 40
rows = []
with open("sales.csv", encoding="utf-8", newline="") as f:
    for line in f.read().split("\n")[1:-1]:
        shop, item, qty, price, ts = next(csv.reader([line]))
        rows.append((None if line.startswith(",") else shop, int(item), int(qty) if qty else None,
                     float(price), int(ts)))
times = [r[-1] for r in rows]
wms = file_watermarks(times, BOUND)
assert [i for i, (t, w) in enumerate(zip(times, wms)) if w is not None and t <= w] == [350, 500]
assert sum(r[0] is None for r in rows) == 151 and sum(r[0] == "" for r in rows) > 100

db = sqlite3.connect(":memory:")
db.execute("CREATE TABLE sales (shop TEXT, item INTEGER, qty INTEGER, price REAL, ts INTEGER)")
db.executemany("INSERT INTO sales VALUES (?, ?, ?, ?, ?)", rows)
per_item = db.execute("""SELECT shop, item, COUNT(*), SUM(qty), AVG(price), MIN(price) FROM sales
                         GROUP BY shop, item ORDER BY shop IS NULL, shop, item""").fetchall()
per_shop = db.execute("""SELECT shop, COUNT(*), SUM(qty * price), MAX(qty) FROM sales GROUP BY shop
                         HAVING COUNT(qty) > ? ORDER BY shop IS NULL, shop""", (HAVING,)).fetchall()
assert ("a,b", 4) in [r[:2] for r in per_item if r[3] is None] and per_item[-1][0] is None

batches = {}
for r, u in zip(rows, updating_times(times, BOUND)):
    batches.setdefault(u // EVERY, []).append(((r[0],), r))


def fold(s, r):
    n, nq, revenue, most = s or (0, 0, None, None)
    qty, price = r[2], r[3]
    if qty is None:
        return n + 1, nq, revenue, most
    return n + 1, nq + 1, (revenue or 0) + qty * price, qty if most is None else max(most, qty)


changes = [(op, r) for _, op, r in changelog([batches[b] for b in sorted(batches)], fold,
                                             lambda k, s: k + (s[0], s[2], s[3]) if s[1] > HAVING else None)]
SHOP_COLS = ["shop", "n", "revenue", "most"]
# The changelog leaves the final table.
assert sorted(apply_changelog([csv_line((op,) + r) for op, r in changes], 1).values()) == \
    sorted(csv_line(r) for r in per_shop)
assert [op for op, _ in changes].count("+U") > 5


def json_line(cols, values):
    # strings as json.dumps writes them, NULL null, numbers as in csv
    return "{" + ",".join("%s:%s" % (json.dumps(c), "null" if v is None else json.dumps(v, ensure_ascii=False)
                                     if isinstance(v, str) else fmt_value(v)) for c, v in zip(cols, values)) + "}"


arg = sys.argv[1:]
if arg == ["per_item.csv"]:
    print_result(["shop", "item", "n", "q", "mean", "lo"], per_item)
elif arg == ["per_shop.jsonl"]:
    for r in per_shop:
        print(json_line(SHOP_COLS, r))
elif arg == ["changes.csv"]:
    print_result(["op"] + SHOP_COLS, [(op,) + r for op, r in changes])
elif arg == ["changes.jsonl"]:
    for op, r in changes:
        print(json_line(["op"] + SHOP_COLS, (op,) + r))
else:
    assert not arg, arg
    print_result(["n", "nq", "total", "last"],
                 db.execute("SELECT COUNT(*), COUNT(qty), SUM(price), MAX(ts) FROM sales").fetchall())
