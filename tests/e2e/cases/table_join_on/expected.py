"""Reference for table_join_on: the three queries run by SQLite over the
same csv files (an empty field is NULL), whose LEFT JOIN ... ON pads the
rows ON does not hold for; WINDOW_END = ts // 10000 * 10000 + 10000. Three
queries on standard output: each line starts q1, q2, q3 (the case is
compared sorted)."""
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import csv_line, read_csv

db = sqlite3.connect(":memory:")
db.execute("CREATE TABLE orders (sku, units, ts)")
db.execute("CREATE TABLE products (sku, dept, price)")
for sku, units, ts in read_csv("orders.csv", header=True):
    db.execute("INSERT INTO orders VALUES (?, ?, ?)", (sku or None, int(units) if units else None, int(ts)))
for sku, dept, price in read_csv("products.csv", header=True):
    db.execute("INSERT INTO products VALUES (?, ?, ?)", (sku, dept or None, float(price) if price else None))

queries = [
    ("sku,units,dept,price",
     "SELECT o.sku, o.units, p.dept, p.price FROM orders o LEFT JOIN products p "
     "ON o.sku = p.sku AND p.price > 10 AND o.units < 6"),
    ("dept,n,priced,u,WINDOW_END",
     "SELECT p.dept, COUNT(*), COUNT(p.price), SUM(o.units), o.ts / 10000 * 10000 + 10000 AS we "
     "FROM orders o LEFT JOIN products p ON o.sku = p.sku AND p.dept <> 'toys' GROUP BY we, p.dept"),
    ("sku,units,price",
     "SELECT o.sku, o.units, p.price FROM orders o JOIN products p ON o.sku = p.sku AND p.price > o.units * 3"),
]
lines = []
for i, (header, sql) in enumerate(queries, 1):
    rows = db.execute(sql).fetchall()
    assert rows, sql
    lines.append("q%d,%s" % (i, header))
    lines += ["q%d,%s" % (i, csv_line(r)) for r in rows]
padded = db.execute("SELECT COUNT(*) FROM orders o LEFT JOIN products p ON o.sku = p.sku AND p.price > 10 "
                    "AND o.units < 6 WHERE p.sku IS NULL AND o.sku IN (SELECT sku FROM products)").fetchone()[0]
assert padded > 50, padded  # rows of a sku in the table that ON's other conditions leave unmatched
print("\n".join(lines))
