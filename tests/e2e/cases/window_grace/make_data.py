"""Writes data.csv for window_grace (run once; the CSV is committed).

Readings of keys a, b, c every 100 ms from ts 1000000 for 60 s, v in
-20..39, in order but for rows written behind the others on purpose:
- late within the grace (5 s): written when the rows are 1.5-4 s past the
  end of the row's 10 s window, so W(i) (the largest ts before, minus the
  1 s bound) is at or past the end and below end + grace: they update the
  window's result. Some carry a large negative v (HAVING SUM(v) > 0 then
  hides the key: -D), some a large positive one for a key HAVING hid (+I
  after all), some are of key z, which has no on-time row (+I);
- late beyond the grace: written 7 s and more past their window's end:
  dropped;
- a few 400 ms behind (within the bound: on time).
"""
import random

rng = random.Random(16)
rows = []
t = 1_000_000
END = 1_060_000
extra = {}  # position time -> rows to write right after the row at that time
# (when written: ms past the window end, window start, key, v)
specs = [
    (2500, 1_000_000, "a", 5), (2600, 1_000_000, "b", -900), (3900, 1_000_000, "z", 7),
    (1500, 1_010_000, "c", 900), (2200, 1_010_000, "a", -3), (3000, 1_010_000, "a", 4),
    (3100, 1_010_000, "z", -5), (2400, 1_020_000, "b", 0),
    (7000, 1_000_000, "a", 50), (9000, 1_010_000, "c", -70), (8000, 1_030_000, "z", 1),
    (2100, 1_040_000, "c", -1000), (2900, 1_040_000, "b", 11),
]
for past, ws, k, v in specs:
    extra.setdefault(ws + 10_000 + past, []).append((k, v, ws + rng.randint(0, 9_999)))
while t < END:
    for k in ("a", "b", "c"):
        if k == "c" and (1_010_000 <= t < 1_020_000):
            continue  # c: no on-time row in [1010000, 1020000)
        ts = t - 400 if rng.random() < 0.05 else t
        rows.append((k, rng.randint(-20, 39), ts))
    for r in extra.get(t, []):
        rows.append(r)
    t += 100
with open("data.csv", "w", newline="") as f:
    f.write("k,v,ts\n")
    for r in rows:
        f.write("%s,%d,%d\n" % r)
