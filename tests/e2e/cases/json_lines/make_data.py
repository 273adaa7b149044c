"""Writes data.json for json_lines (run once; the file is committed).

3000 click events as JSON lines from a few users, about 40 ms apart and
some up to 1.5 s out of order (inside the 2 s bound), written the ways JSON
writers differ: keys in any order, spaces or none, unknown keys with nested
values, \\u escapes and escaped quotes in strings, exponents in numbers.
Some keys missing or null (NULL). Between them, bad lines, one of each
kind (BAD, record index -> why), and blank lines, which are no records.
"""
import json
import random

rng = random.Random(1204)
USERS = ["ann", "bob", "chlo\u00e9", 'q"uote', "\u65e5\u672c", "x/y"]
lines = []
t = 5_000_000
for i in range(3000):
    t += rng.choice((0, 20, 40, 60, 80))
    ts = t - (rng.choice((500, 1000, 1500)) if i % 89 == 7 else 0)
    ev = {"user": rng.choice(USERS), "page": rng.randrange(1, 50),
          "dwell": rng.randrange(1, 4000) / 8, "bot": rng.random() < 0.2, "ts": ts}
    if i % 5 == 0:
        ev["meta"] = {"ua": "m\u00f6zilla", "tags": [1, "two", {"three": None}], "ok": True}
    # NULLs: a missing key, or null, is NULL (not the time column).
    if i % 97 == 3:
        del ev["page"]
    if i % 101 == 5:
        ev["dwell"] = None
    if i % 103 == 9:
        ev["bot"] = None
    if i % 107 == 11:
        ev["user"] = None
    items = list(ev.items())
    rng.shuffle(items)
    d = dict(items)
    style = i % 4
    if style == 0:
        s = json.dumps(d)
    elif style == 1:
        s = json.dumps(d, separators=(",", ":"), ensure_ascii=False)
    elif style == 2:
        s = "  " + json.dumps(d, indent=None, separators=(" , ", " : ")) + "  "
    elif d.get("dwell") is None:
        s = json.dumps(d)
    else:
        s = json.dumps(d).replace('"dwell": %s' % json.dumps(d["dwell"]), '"dwell": %.3e' % d["dwell"])
    lines.append(s)
    if i % 400 == 199:
        lines.append("")
        lines.append("   ")
BAD = [
    '{"user": "ann", "page": 1, "dwell": 1.5, "bot": false}',                              # missing ts
    '{"user": "ann", "page": "1", "dwell": 1.5, "bot": false, "ts": 5000100}',            # a string for INT
    '{"user": "ann", "page": 1, "page": 2, "dwell": 1.5, "bot": false, "ts": 5000100}',   # twice
    '{"user": "ann", "page": 1, "dwell": 1.5, "bot": false, "ts": null}',                 # null ts
    '{"user": "ann", "page": [1], "dwell": 1.5, "bot": false, "ts": 5000100}',            # an array
    '["user", "ann"]',                                                                     # not an object
    '{"user": "ann", "page": 1, "dwell": 1.5, "bot": false, "ts": 5000100} extra',        # text after
    '{"user": "ann", "page": 1, "dwell": 1.5, "bot": fals, "ts": 5000100}',               # bad literal
    '{"user": "ann", "page": 1, "dwell": 01.5, "bot": false, "ts": 5000100}',             # bad number
    '{"user": "an\\x", "page": 1, "dwell": 1.5, "bot": false, "ts": 5000100}',            # bad escape
    '{"user": "ann", "page": 1, "dwell": 1.5, "bot": false, "ts": 5000100',               # unterminated
    '{"user": "averyveryverylongname", "page": 1, "dwell": 1.5, "bot": false, "ts": 5000100}',  # VARCHAR(12)
    '{"user": "ann", "page": 3000000000, "dwell": 1.5, "bot": false, "ts": 5000100}',     # INT range
    '{"user": "ann", "page": 1, "dwell": 1.5, "bot": 0, "ts": 5000100}',                  # a number for BOOLEAN
]
for k, b in enumerate(BAD):
    lines.insert(300 + 150 * k, b)
with open("data.json", "w", encoding="utf-8") as f:
    f.write("\n".join(lines) + "\n")
