"""Writes trips.csv for hopping_csv (run once; the CSV is committed).

160 trips of 5 drivers over about four minutes, written out of order: each
row's "true" time t is shuffled by sorting on t + u with u in [0, 4000], so
a row is at most 4 s behind any row before it, inside the 5 s the
WATERMARK tolerates, and no row is ever late. Some times sit exactly on a
window start (a multiple of 20 s). Fares are multiples of 0.25 so sums are
exact in any order of addition; none is a multiple of 10 (exponent form).
"""
import random

BASE = 1_700_000_000_000  # a multiple of 20000: windows start on round seconds


def write_trips(seed, path="trips.csv"):
    """The trips for a seed: hopping_csv uses 17, sink_csv 29."""
    rng = random.Random(seed)
    rows = []
    t = BASE + 3000
    for k in range(160):
        t += rng.choice((0, 250, 800, 1500, 2000))
        ts = t
        if k % 37 == 5:
            ts = (t // 20000 + 1) * 20000  # exactly on a window boundary
            t = ts
        driver = rng.choice((11, 12, 13, 14, 15)) if k % 9 else 12
        fare = rng.randint(10, 390) * 0.25 + 0.5  # 3.00 .. 98.00
        if fare % 10 == 0:
            fare += 0.25  # 10, 20, ... would print as 1e+01 under %g
        rows.append((ts + rng.randint(0, 4000), driver, fare, ts))
    rows.sort()
    top = float("-inf")
    behind = 0
    for _, _, _, ts in rows:
        assert ts >= top - 4000
        behind += ts < top
        top = max(top, ts)
    assert behind > 20
    with open(path, "w", newline="") as f:
        f.write("driver,fare,ts\n")
        for _, driver, fare, ts in rows:
            f.write(f"{driver},{fare:.2f},{ts}\n")


if __name__ == "__main__":
    write_trips(17)
