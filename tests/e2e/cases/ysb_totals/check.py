"""Checks the output of ysb_totals (python3 check.py out.csv).

The total views per campaign, summed over every window, must equal the
count recomputed from the generator formulas: row i is a view when
mix64(H + 4) % 3 == 0 (event_type, field 4), its ad is mix64(H + 2) % 1000
(ad_id, field 2), and ad k belongs to campaign k // 10, whose id is
uuid(mix64(0xCAC0CAC000000000 + k // 10)). Windows are 10 s tumbling
windows of ingestion time: every WINDOW_END is a multiple of 10000, each
(window, campaign) appears once, and rows come ordered by window end, then
campaign id.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import (YSB_AD_ID, YSB_EVENT_TYPE, YSB_EVENT_TYPES, col_value, row_hash,
                    ysb_campaign_of_ad, ysb_campaign_uuid, output_lines)

SEED, LIMIT = 7, 200000


def reference():
    views = {}
    for i in range(LIMIT):
        h = row_hash(SEED, i)
        if YSB_EVENT_TYPES[col_value(h, YSB_EVENT_TYPE) % 3] != "view":
            continue
        camp = ysb_campaign_of_ad(col_value(h, YSB_AD_ID) % 1000)
        views[camp] = views.get(camp, 0) + 1
    return {ysb_campaign_uuid(j): n for j, n in views.items()}


def main(path):
    errors = []
    lines = output_lines(path)
    if not lines or lines[0] != "campaign_id,views,WINDOW_END":
        errors.append(f"bad header: {lines[:1]!r}")
    got, seen, last = {}, set(), None
    for n, line in enumerate(lines[1:], start=2):
        parts = line.split(",")
        if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
            errors.append(f"line {n}: malformed {line!r}")
            continue
        camp, v, wend = parts[0], int(parts[1]), int(parts[2])
        if wend % 10000:
            errors.append(f"line {n}: WINDOW_END {wend} not a multiple of 10000")
        if (wend, camp) in seen:
            errors.append(f"line {n}: window {wend} campaign {camp} twice")
        seen.add((wend, camp))
        if last is not None and (wend, camp.encode()) < last:
            errors.append(f"line {n}: out of order")
        last = (wend, camp.encode())
        if v <= 0:
            errors.append(f"line {n}: {v} views")
        got[camp] = got.get(camp, 0) + v
    want = reference()
    for camp in sorted(set(want) | set(got)):
        if got.get(camp, 0) != want.get(camp, 0):
            errors.append(f"campaign {camp}: {got.get(camp, 0)} views, expected {want.get(camp, 0)}")
    for e in errors[:20]:
        print(e)
    if errors:
        print(f"{len(errors)} problems; views in all: {sum(got.values())}, "
              f"expected {sum(want.values())}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
