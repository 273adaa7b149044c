"""Reference for timestamp_formats: per (10 s window, k), on standard
output COUNT(*), MAX(at), MIN(ts) and the window's bounds as ISO text
(UTC, to the ms), MAX(at) cast to VARCHAR(30) (the same text) and MIN(ts)
to VARCHAR(10) (its day); in ms.csv MAX(at), MIN(ts) and WINDOW_END as epoch ms;
in out.jsonl MIN(at) and WINDOW_END as JSON strings of ISO text. A NULL
(empty) at is skipped; with none in a group its MAX is NULL (an empty
field, JSON null). Rows by WINDOW_END, then k."""
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import csv_line, read_csv, tumble_start  # noqa: E402

E = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def iso(ms):
    if ms is None:
        return None
    d = E + datetime.timedelta(milliseconds=ms)
    return d.strftime("%Y-%m-%d %H:%M:%S") + ".%03d" % (ms % 1000)


groups = {}
for k, at, ts in read_csv("events.csv", header=True):
    s = tumble_start(int(ts), 10000)
    groups.setdefault((s + 10000, k), []).append((int(at) if at else None, int(ts)))
assert len(groups) > 10


def mx(vals, f):
    vals = [v for v in vals if v is not None]
    return f(vals) if vals else None


if sys.argv[1:] == ["ms.csv"]:
    print("k,last_at,first,WINDOW_END")
    for (end, k), g in sorted(groups.items()):
        print(csv_line((k, mx((a for a, _ in g), max), min(t for _, t in g), end)))
elif sys.argv[1:] == ["out.jsonl"]:
    for (end, k), g in sorted(groups.items()):
        print(json.dumps({"k": k, "first_at": iso(mx((a for a, _ in g), min)), "WINDOW_END": iso(end)},
                         separators=(",", ":")))
else:
    assert not sys.argv[1:], sys.argv
    print("k,n,last_at,first,WINDOW_START,WINDOW_END,last_text,day_text")
    for (end, k), g in sorted(groups.items()):
        last = iso(mx((a for a, _ in g), max))
        print(csv_line((k, len(g), last, iso(min(t for _, t in g)), iso(end - 10000), iso(end), last,
                        iso(min(t for _, t in g))[:10])))
