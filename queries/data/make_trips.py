"""Writes trips.csv for trip_fares.airq: 8000 taxi trips by 6 drivers over
about 3 hours of event time, fares in multiples of 0.25. Neighbouring rows
are swapped when their times differ by at most 4 s (within the query's 5 s
watermark bound). Two more rows, timed in the file's first minutes, are
inserted near its end (records 7500 and 7900), two hours late: every window
they belong to has closed, so they are late. Record i goes to rank
i % ranks, and a source advances its watermark once per chunk of 1024 rows,
so those records come after a full chunk of newer rows on 1 to 4 ranks."""
import random

rng = random.Random(2024)
t0 = 1_700_000_000_000
rows = []
t = t0
for i in range(8000):
    t += rng.choice([500, 1000, 1500, 2000])
    rows.append((rng.randint(1, 6), rng.randint(20, 200) * 0.25, t))
for i in range(0, len(rows) - 1, 3):
    if rows[i + 1][2] - rows[i][2] <= 4000:
        rows[i], rows[i + 1] = rows[i + 1], rows[i]
rows.insert(7500, (3, 25.0, t0 + 60_000))
rows.insert(7900, (5, 30.0, t0 + 120_000))
with open("trips.csv", "w") as out:
    out.write("driver,fare,ts\n")
    for d, f, ts in rows:
        out.write(f"{d},{f:g},{ts}\n")
