"""Checks iso_timestamps' output against Python's datetime: each row's
times parsed here (make_data.py's forms; a row whose ts is none of them is
bad), per 5 s window: COUNT, SUM(v), MIN and MAX of ts, MAX(t), MIN(t) - 7 s,
the window's bounds, and the CAST constant, times written as
'yyyy-MM-dd HH:mm:ss.SSS' (UTC, the default)."""
import datetime
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import check_tagged_sets, csv_line, parse_iso_ms, read_csv, tumble_start

E = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def parse(s):
    return int(s) if re.fullmatch(r"-?\d+", s) else parse_iso_ms(s)


def iso(ms):
    d = E + datetime.timedelta(milliseconds=ms)
    return d.strftime("%Y-%m-%d %H:%M:%S") + ".%03d" % (ms % 1000)


here = os.path.dirname(os.path.abspath(__file__))
rows, bad = [], 0
for i, v, t, ts in read_csv(os.path.join(here, "data.csv"), header=True):
    if parse(ts) is None or parse(t) is None:
        bad += 1
        continue
    rows.append((int(v), parse(t), parse(ts)))
assert bad == 4, bad
wins = {}
for v, t, ts in rows:
    wins.setdefault(tumble_start(ts, 5000), []).append((v, t, ts))
c = parse("2026-12-03T10:00:00.5+01:00")
want = ["n,sv,first,last,last_t,t7,WINDOW_START,WINDOW_END,c"]
for s, g in sorted(wins.items()):
    want.append(csv_line((len(g), sum(x[0] for x in g), iso(min(x[2] for x in g)), iso(max(x[2] for x in g)),
                          iso(max(x[1] for x in g)), iso(min(x[1] for x in g) - 7000), iso(s), iso(s + 5000),
                          iso(c))))
assert len(want) > 5
# one query, on standard output untagged: tag its lines for the comparison
with open(sys.argv[1]) as f:
    lines = f.read().splitlines()
tagged = sys.argv[1] + ".tagged"
with open(tagged, "w") as f:
    f.write("".join("q1," + line + "\n" for line in lines))
check_tagged_sets(tagged, {"q1": want})
