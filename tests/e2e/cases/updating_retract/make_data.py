"""Writes orders.csv for updating_retract (run once; the CSV is committed).

1200 orders of 30 customers in four regions, about 50 ms apart (60 s),
every 19th up to 800 ms behind (inside the 1 s bound); records 500 and
901 are 6 and 9 s behind the watermark (counted in the next emission).
Amounts are -40..60, so that a customer's running sum goes below 0 now
and then (hidden by the inner HAVING: -D, taken back by the outer
queries). Region 'moon' (not in regions.csv) has customers 90 and 91
only, and only in the first 25 s, their last orders large refunds: both
end hidden, so the outer per-region group of 'moon' is deleted.
"""
import random

rng = random.Random(5)
LATE = {500: -6000, 901: -9000}
t = 2_000_000
rows = []
for i in range(1200):
    t += rng.choice((0, 20, 50, 80))
    ts = t
    if i % 19 == 3:
        ts = t - rng.randint(100, 800)
    ts += LATE.get(i, 0)
    if t < 2_025_000 and i % 10 == 0:
        region, cust = "moon", rng.choice((90, 91))
        amount = rng.randint(1, 30) if t < 2_015_000 else -300
    else:
        cust = rng.randint(1, 30)
        region, amount = ("north", "south", "east", "west")[cust % 4], rng.randint(-40, 60)
    rows.append((region, cust, amount, ts))
with open("orders.csv", "w", newline="") as f:
    f.write("region,cust,amount,ts\n")
    for r in rows:
        f.write("%s,%d,%d,%d\n" % r)
with open("regions.csv", "w", newline="") as f:
    f.write("region,name\nnorth,North Side\neast,\"East, far\"\nwest,West\n")
