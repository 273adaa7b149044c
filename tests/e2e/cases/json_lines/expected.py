"""Reference for json_lines, from data.json with Python's json module.

A line of blanks is no record. A record is good when it is one JSON object
(json.loads, no repeated key) with each declared key once: user a string of
at most 12 UTF-8 bytes, page an integer within INT, dwell a number, bot
true or false, ts an integer TIMESTAMP (docs/language.md, format = 'json');
a key missing or null is NULL, but for ts, which makes the line bad.
Its event time counts for the watermark when it is an object whose keys
have the right kinds of value, even if a value is then out of range; no
good row here is later than the 2 s bound, so none is late (asserted).
Result: per 10 s window and user (NULL users one group, last), the rows
with bot false: COUNT, SUM(page), SUM(dwell) (exact, math.fsum), MAX(dwell),
each skipping NULLs and NULL when it has no value.
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import file_watermarks, print_result, tumble_start  # noqa: E402


class Repeated(ValueError):
    pass


def no_repeats(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise Repeated()
    return dict(pairs)


def kind(v):
    if isinstance(v, bool):
        return "b"
    if isinstance(v, (int, float)):
        return "n"
    if isinstance(v, str):
        return "s"
    return "?"


WANT = {"user": "s", "page": "n", "dwell": "n", "bot": "b", "ts": "n"}
records = []  # (good row or None, counted time or None)
with open("data.json", encoding="utf-8") as f:
    for line in f:
        text = line.rstrip("\n")
        if text.strip(" \t") == "":
            continue
        try:
            obj = json.loads(text, object_pairs_hook=no_repeats)
        except (ValueError, Repeated):
            records.append((None, None))
            continue
        if not isinstance(obj, dict) or any(obj.get(k) is not None and kind(obj[k]) != w
                                            for k, w in WANT.items()):
            records.append((None, None))
            continue
        user, page, dwell, bot, ts = (obj.get(k) for k in WANT)
        ok_ts = isinstance(ts, int) and -62135596800000 <= ts <= 253402300799999
        good = (ok_ts and (user is None or len(user.encode()) <= 12)
                and (page is None or isinstance(page, int) and -2**31 <= page < 2**31))
        records.append(((user, page, None if dwell is None else float(dwell), bot, ts) if good else None,
                        ts if ok_ts else None))

bad = sum(1 for r, _ in records if r is None)
assert bad == 14, bad
assert sum(1 for r, _ in records if r and None in r) > 60
wms = file_watermarks([t for _, t in records], 2000)
groups = {}
for (row, _), wm in zip(records, wms):
    if row is None:
        continue
    user, page, dwell, bot, ts = row
    wend = tumble_start(ts, 10000) + 10000
    assert wm is None or wend > wm, "a late row: the reference would need the lateness rule"
    if bot is not False:  # WHERE NOT bot: a NULL bot is not true
        continue
    # NULL users form one group, ordered after every other.
    key = (1, b"") if user is None else (0, user.encode())
    groups.setdefault((wend, key), []).append((page, dwell))


def nsum(vals, add=sum):
    vals = [v for v in vals if v is not None]
    return add(vals) if vals else None


out = []
for (wend, (isnull, user)), g in sorted(groups.items()):
    dwells = [d for _, d in g if d is not None]
    out.append((None if isnull else user.decode(), len(g), nsum(p for p, _ in g),
                nsum((d for _, d in g), math.fsum), max(dwells) if dwells else None, wend))
assert any(r[0] is None for r in out)
print_result(["user", "n", "pages", "dwell", "longest", "WINDOW_END"], out)
