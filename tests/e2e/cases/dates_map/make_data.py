"""Makes visits.jsonl of the dates_map case (committed; rerun to remake
it): DATE values as JSON strings, null or missing at random, one a number
and one no date (bad rows); note holds text CAST to DATE, some of it no
date."""
import datetime
import json
import random

rng = random.Random(7)
with open("visits.jsonl", "w") as f:
    for i in range(90):
        r = {"id": i, "ts": 1767225600000 + i * 3_600_000 + rng.randint(0, 3_000_000)}
        if rng.random() > 0.15:
            r["day"] = (datetime.date(2025, 12, 20) + datetime.timedelta(days=rng.randint(0, 20))).isoformat()
        elif rng.random() < 0.5:
            r["day"] = None
        if rng.random() > 0.2:
            r["born"] = datetime.date(1950 + rng.randint(0, 60), rng.randint(1, 12), rng.randint(1, 28)).isoformat()
        r["note"] = rng.choice(["2026-01-09", "2024-02-29", "2023-02-29", "soon", "2026-1-9", "", None,
                                "2026-01-01T00:00:00"])
        if i == 30:
            r["day"] = 20260101  # a number: a bad row
        if i == 60:
            r["day"] = "2026-13-01"  # no date: a bad row
        f.write(json.dumps(r) + "\n")
