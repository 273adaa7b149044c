"""Writes data.csv for csv_filter_agg (run once; the CSV is committed).

300 rows in event-time order over about a minute, 5 categories of which 'z'
is filtered out; amounts are multiples of 0.25 so that every sum is exact
whatever the order of additions. Amounts 10.00 sit exactly on the filter's
bound (amount > 10 drops them).
"""
import random

rng = random.Random(11)
ts = 1_700_000_000_000  # a multiple of 5000: windows line up with whole seconds
with open("data.csv", "w", newline="") as f:
    f.write("id,category,amount,qty,ts\n")
    for k in range(300):
        ts += rng.choice((0, 50, 125, 200, 250, 333, 400))
        cat = rng.choice("abcdz")
        amount = rng.randint(1, 240) * 0.25  # 0.25 .. 60.00
        if amount >= 20 and amount == int(amount) and amount % 10 == 0:
            amount += 0.5  # 20, 30, ... would print as 2e+01 under %g
        if k % 50 == 7:
            amount = 10.0
        f.write(f"{9_000_000_000 + k},{cat},{amount:.2f},{rng.randint(1, 20)},{ts}\n")
