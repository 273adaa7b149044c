"""Reference for sink_json: per (10 s window, name) of the rows with flag
true, COUNT, SUM(n), AVG(x) and COUNT(*) > 10, as JSON lines in out.jsonl
(docs/language.md, format = 'json' on a sink): one object per row, keys
in select order, no spaces, strings as Python's json.dumps writes them
(ensure_ascii=False), DOUBLEs by the csv output's rule (airref.fmt_double),
rows ordered by WINDOW_END, then name bytes. Nothing on standard output
but the run's summary (stderr)."""
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import fmt_double, read_csv, tumble_start  # noqa: E402

groups = {}
for name, n, x, flag, ts in read_csv("events.csv"):
    if flag != "true":
        continue
    wend = tumble_start(int(ts), 10000) + 10000
    groups.setdefault((wend, name.encode()), []).append((int(n), float(x)))
assert any(k[1] == b'with "quotes"' for k in groups) and any(b"\t" in k[1] for k in groups)
if sys.argv[1:] == ["out.jsonl"]:
    for (wend, name), g in sorted(groups.items()):
        cnt = len(g)
        fields = [("name", json.dumps(name.decode(), ensure_ascii=False)), ("count", str(cnt)),
                  ("total", str(sum(n for n, _ in g))), ("avg x", fmt_double(math.fsum(x for _, x in g) / cnt)),
                  ("busy", "true" if cnt > 10 else "false"), ("WINDOW_END", str(wend))]
        print("{" + ",".join("%s:%s" % (json.dumps(k), v) for k, v in fields) + "}")
else:
    assert not sys.argv[1:], sys.argv
