"""Reference for in_select: the query run by SQLite, whose IN (SELECT ...)
is SQL's (three-valued), over the same csv files (an empty field is NULL).
The window is computed here (WINDOW_END = ts // 10000 * 10000 + 10000), rows
ordered as airc writes them: by WINDOW_END, then the group keys, NULL after
every value. Checked by hand for the first window (ts 1000..9960): sku 'b2'
passes WHERE only where qty > 5, since dept 'void' is left out of the set."""
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import print_result, read_csv


def load(db, name, path, convs):
    rows = read_csv(path, header=True)
    db.execute(f"CREATE TABLE {name} ({', '.join(f'c{i}' for i in range(len(convs)))})")
    for r in rows:
        db.execute(f"INSERT INTO {name} VALUES ({', '.join('?' * len(convs))})",
                   [None if v == "" else c(v) for c, v in zip(convs, r)])


db = sqlite3.connect(":memory:")
load(db, "orders_raw", "orders.csv", [int, int, str, int, float, int])
db.execute("CREATE VIEW orders AS SELECT c0 AS id, c1 AS cust, c2 AS sku, c3 AS qty, c4 AS price, c5 AS ts "
           "FROM orders_raw")
load(db, "vip_raw", "vip.csv", [int, str, int])
db.execute("CREATE VIEW vip AS SELECT c0 AS cust, c1 AS tier, c2 AS since FROM vip_raw")
load(db, "skus_raw", "skus.csv", [str, str, float])
db.execute("CREATE VIEW skus AS SELECT c0 AS sku, c1 AS dept, c2 AS cost FROM skus_raw")

rows = db.execute("""
SELECT sku, cust IN (SELECT cust FROM vip WHERE tier = 'gold') AS gold, COUNT(*), COUNT(DISTINCT qty),
       SUM(CASE WHEN cust NOT IN (SELECT cust FROM vip WHERE since > 2018) THEN qty END),
       SUM(CASE WHEN price IN (SELECT cost FROM skus WHERE dept IS NOT NULL) THEN 1 ELSE 0 END),
       SUM(CASE WHEN price NOT IN (SELECT cost FROM skus) THEN 1 ELSE 0 END),
       ts / 10000 * 10000 + 10000 AS we
FROM orders
WHERE sku IN (SELECT sku FROM skus WHERE dept <> 'void') OR sku IS NULL OR qty > 5
GROUP BY we, sku, gold
HAVING sku NOT IN (SELECT sku FROM skus WHERE cost > 8) OR COUNT(*) > 2
ORDER BY we, sku IS NULL, sku, gold IS NULL, gold""").fetchall()
out = [(r[0], None if r[1] is None else bool(r[1])) + tuple(r[2:]) for r in rows]
print_result(["sku", "gold", "n", "qtys", "q_other", "at_cost", "off_cost", "WINDOW_END"], out)
