"""Writes data.csv for updating_every (run once; the CSV is committed).

900 rows of 6 users about 130 ms apart (about 2 minutes of event time,
12 emissions of 10 s), most in order, every 37th row up to 1.5 s behind
the rows before it (inside the 2 s WATERMARK bound). User 'eve' starts
only after 40 s. x is NULL (an empty field) in about a third of the rows, and
in all of dan's first 30 s (SUM(x) NULL), where dan's v is 0..9
(so that dan is shown). v is -9..9, now and then
more, so that MAX(v) grows.
Four rows are far behind the watermark (records LATE below, 12 to 45 s
behind); record 600 comes right after a row at ...1999, so that its
retimed event time W + 1 is an interval's first ms exactly.
"""
import random

rng = random.Random(41)
USERS = ("ann", "bob", "cat", "dan", "Eli", "eve")
LATE = {250: -45000, 433: -12000, 600: -30000, 777: -20500}
t = 1_000_000
rows = []
for i in range(900):
    t += rng.choice((0, 50, 100, 150, 200, 230))
    if i == 599:
        t = (t // 10000 + 1) * 10000 + 1999  # record 600: W + 1 = a multiple of 10 s
    ts = t
    if i % 37 == 5:
        ts = t - rng.choice((400, 1000, 1500))
    if i in LATE:
        ts = t + LATE[i]
    user = rng.choice(USERS if t > 1_040_000 else USERS[:-1])
    x = "" if rng.random() < 0.35 or (user == "dan" and t < 1_030_000) else str(rng.randint(0, 50))
    v = rng.randint(0 if x == "" and user == "dan" else -9, 9) + (i // 40 if rng.random() < 0.03 else 0)
    rows.append((user, v, x, ts))
with open("data.csv", "w", newline="") as f:
    f.write("user,v,x,ts\n")
    for r in rows:
        f.write("%s,%d,%s,%d\n" % r)
