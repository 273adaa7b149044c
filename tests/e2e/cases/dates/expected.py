"""Reference for dates, with Python's datetime (a DATE is a day, compared
with a TIMESTAMP as its midnight UTC; written yyyy-MM-dd). The rows whose
day is no date (2026-02-30, 2026-1-5) are bad and left out. Standard
output: per 1-day window (aligned to midnight UTC) and key (CAST(ts AS
DATE), day), rows ordered by WINDOW_END then the keys, NULL last;
cities.jsonl: per 2-day window and city, as JSON lines. By hand, the first
window of the first query (2025-12-30, WINDOW_END 1767139200000): its rows
of day NULL are ids 0, 1, 2 and 7 (n 4), born NULL, NULL, 1972-12-21 and
1974-05-03 (oldest and youngest those two)."""
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import parse_iso_ms, print_result, read_csv, tumble_start  # noqa: E402

DAY = 86400000
EPOCH = datetime.date(1970, 1, 1)


def date_ms(text):
    """A DATE field: yyyy-MM-dd of a day that exists, as its midnight's ms."""
    if len(text) != 10:
        raise ValueError(text)
    return (datetime.date.fromisoformat(text) - EPOCH).days * DAY


def fmt(ms):
    return None if ms is None else (EPOCH + datetime.timedelta(days=ms // DAY)).isoformat()


rows = []
bad = 0
for i, day, born, city, ts in read_csv("visits.csv", header=True):
    try:
        d = date_ms(day) if day else None
    except ValueError:
        bad += 1
        continue
    t = int(ts) if ts.lstrip("-").isdigit() else parse_iso_ms(ts)
    rows.append((d, date_ms(born) if born else None, city, t))
assert bad == 2


def nn(vals):
    return [v for v in vals if v is not None]


holidays = {date_ms(r[0]) for r in read_csv("holidays.csv", header=True)}

if sys.argv[1:] == ["cities.jsonl"]:
    groups = {}
    for d, born, city, t in rows:
        groups.setdefault((tumble_start(t, 2 * DAY) + 2 * DAY, city.encode()), []).append((t, d, born))
    for (wend, city), g in sorted(groups.items()):
        days, borns = nn(x[1] for x in g), [x for x in g if x[2] is not None]
        last_born = max(borns)[2] if borns else None
        obj = [("city", city.decode()), ("first_day", fmt(min(days)) if days else None),
               ("last_day", fmt(max(days)) if days else None), ("last_born", fmt(last_born)),
               ("WINDOW_END", wend)]
        print("{" + ",".join("%s:%s" % (json.dumps(k), json.dumps(v)) for k, v in obj) + "}")
    sys.exit(0)

groups = {}
for d, born, city, t in rows:
    if d is not None and d < date_ms("2026-01-01"):
        continue
    wend = tumble_start(t, DAY) + DAY
    groups.setdefault((wend, t // DAY * DAY, d), []).append((d, born, t))


def order(k):
    wend, tday, d = k
    return (wend, tday, d is None, d or 0)


out = []
for k in sorted(groups, key=order):
    wend, tday, d = k
    g = groups[k]
    borns, afters = nn(x[1] for x in g), nn(None if x[0] is None else x[0] + DAY for x in g)
    out.append((fmt(tday), fmt(d), len(g), fmt(min(borns)) if borns else None, fmt(max(borns)) if borns else None,
                fmt(max(afters)) if afters else None, sum(1 for x in g if x[0] is not None and x[0] < x[2]),
                None if d is None else d in holidays, wend))
print_result(["tday", "day", "n", "oldest", "youngest", "after", "before_ts", "holiday", "WINDOW_END"], out)
