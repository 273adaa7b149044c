"""Reference for dates_map, with Python's json and datetime: a DATE is a day
(yyyy-MM-dd, compared with a TIMESTAMP as its midnight UTC); a JSON null or
missing key is NULL; a day given as a number or as no date makes the row
bad. CAST of text that is not exactly a yyyy-MM-dd day is NULL. A Map: rows
in any order (unordered). By hand: id 0 (day 2026-01-01, ts 2026-01-01
00:22:38 UTC) has same true, before true, wk 2025-12-25, s '2026-01'."""
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import print_result  # noqa: E402

DAY = 86400000
EPOCH = datetime.date(1970, 1, 1)


def date_ms(text):
    if not isinstance(text, str) or len(text) != 10:
        raise ValueError(text)
    return (datetime.date.fromisoformat(text) - EPOCH).days * DAY


def as_date(ms):
    return EPOCH + datetime.timedelta(days=ms // DAY)


def fmt(ms):
    return None if ms is None else as_date(ms).isoformat()


def cast_date(text):
    if text is None:
        return None
    try:
        return date_ms(text)
    except ValueError:
        return None


def opt(v, f):
    return None if v is None else f(v)


out = []
bad = 0
for line in open("visits.jsonl"):
    r = json.loads(line)
    try:
        day = opt(r.get("day"), date_ms)
    except ValueError:
        bad += 1
        continue
    born, ts, note = opt(r.get("born"), date_ms), r["ts"], r.get("note")
    if day is not None and day == date_ms("2025-12-31"):
        continue
    dd = opt(day, as_date)
    out.append((
        r["id"], fmt(day), opt(dd, lambda x: x.year), opt(dd, lambda x: x.month), opt(dd, lambda x: x.day),
        opt(born, lambda b: as_date(b).day), opt(dd, lambda x: "%02d.%02d.%02d" % (x.day, x.month, x.year % 100)),
        opt(day, lambda x: fmt(x)[:7]), day, fmt(cast_date(note)), opt(day, lambda x: fmt(x - 7 * DAY)),
        opt(day, lambda x: x == ts // DAY * DAY), opt(day, lambda x: x < ts),
        opt(born, lambda b: "90s" if date_ms("1990-01-01") <= b <= date_ms("1999-12-31") else None),
        fmt(day if day is not None else born), opt(day, lambda x: x in (date_ms("2025-12-24"), date_ms("2025-12-25"))),
        None if day is None or born is None else fmt(min(day, born)), opt(day, lambda x: fmt(max(x, date_ms("2026-01-01")))),
        True))
assert bad == 2
print_result(["id", "day", "y", "m", "d", "bd", "f", "s", "t", "nd", "wk", "same", "before", "era", "any_day", "xmas",
              "lo", "hi", "now_ok"], out)
