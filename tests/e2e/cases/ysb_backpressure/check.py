"""Checks the output of ysb_backpressure (python3 check.py out.csv).

The views summed over every campaign and window must equal the number of
'view' events among rows 0..LIMIT-1 of the generator (event_type is field
4: mix64(H + 4) % 3 == 0). Counting that in Python takes about 10 s, so it
is done once and cached next to the output's directory (build or tmp).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import YSB_EVENT_TYPE, col_value, row_hash

SEED, LIMIT = 11, 3000000


def reference_views():
    cache = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"airc_ysb_views_{SEED}_{LIMIT}")
    try:
        with open(cache) as f:
            return int(f.read())
    except (OSError, ValueError):
        pass
    n = sum(1 for i in range(LIMIT) if col_value(row_hash(SEED, i), YSB_EVENT_TYPE) % 3 == 0)
    with open(cache, "w") as f:
        f.write(str(n))
    return n


def main(path):
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    if not lines or lines[0] != "campaign_id,views,WINDOW_END":
        sys.exit(f"bad header: {lines[:1]!r}")
    total, seen = 0, set()
    for n, line in enumerate(lines[1:], start=2):
        camp, views, wend = line.split(",")
        if int(wend) % 10000 or (wend, camp) in seen:
            sys.exit(f"line {n}: bad or repeated window {line!r}")
        seen.add((wend, camp))
        total += int(views)
    want = reference_views()
    if total != want:
        sys.exit(f"views over all windows: got {total}, want {want}")


if __name__ == "__main__":
    main(sys.argv[1])
