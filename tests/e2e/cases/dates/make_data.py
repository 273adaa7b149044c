"""Makes visits.csv and holidays.csv of the dates case (committed; rerun to
remake them): DATE fields around a new year, left empty (NULL) at random,
two that are no date (bad rows), event times as epoch ms or ISO text."""
import datetime
import random

rng = random.Random(42)
start = datetime.datetime(2025, 12, 30, 18, 0, tzinfo=datetime.timezone.utc)


def maybe(v, p=0.15):
    return "" if rng.random() < p else v


def day(lo, hi):
    return (datetime.date(2025, 12, 29) + datetime.timedelta(days=rng.randint(lo, hi))).isoformat()


with open("visits.csv", "w", newline="") as f:
    f.write("id,day,born,city,ts\n")
    t = start
    for i in range(130):
        t += datetime.timedelta(minutes=rng.randint(10, 60))
        d = maybe(day(0, 9))
        if i == 40:
            d = "2026-02-30"  # no such day: a bad row
        if i == 77:
            d = "2026-1-5"  # not yyyy-MM-dd: a bad row
        born = maybe(datetime.date(1960 + rng.randint(0, 45), rng.randint(1, 12), rng.randint(1, 28)).isoformat())
        city = rng.choice(["oslo", "rome", "lima"])
        ms = int(t.timestamp() * 1000)
        ts = t.strftime("%Y-%m-%dT%H:%M:%SZ") if i % 5 == 0 else str(ms)
        f.write(",".join([str(i), d, born, city, ts]) + "\n")
with open("holidays.csv", "w", newline="") as f:
    f.write("day,name\n2025-12-31,nye\n2026-01-01,new year\n2026-01-06,epiphany\n")
