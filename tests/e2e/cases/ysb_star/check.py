"""Checks the output of ysb_star (python3 check.py out.csv).

Windows are 10 s tumbling windows of ingestion time, so how the 100000
events split into windows varies; what must hold on every run:
- the header is campaign_id,ctr,WINDOW_END, and there are rows;
- every campaign_id is one of the 100 YSB campaign ids, every WINDOW_END a
  multiple of 10000, each (window, campaign) appears once, rows ordered by
  WINDOW_END, then campaign_id, then ctr;
- ctr is k / v for whole numbers 1 <= k <= clicks and 1 <= v <= views of
  that campaign over the whole stream (recomputed from the generator
  formulas: event_type is field 4, ad field 2, campaign = ad // 10);
- when the whole stream falls in one window (the usual case: 100000 events
  take well under a second), that ratio is exactly clicks / views.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import (YSB_AD_ID, YSB_EVENT_TYPE, YSB_EVENT_TYPES, col_value, row_hash,
                    ysb_campaign_of_ad, ysb_campaign_uuid, output_lines)

SEED, LIMIT = 5, 100000


def totals():
    n = {}  # campaign uuid -> [clicks, views]
    for i in range(LIMIT):
        h = row_hash(SEED, i)
        et = YSB_EVENT_TYPES[col_value(h, YSB_EVENT_TYPE) % 3]
        if et not in ("click", "view"):
            continue
        camp = ysb_campaign_uuid(ysb_campaign_of_ad(col_value(h, YSB_AD_ID) % 1000))
        n.setdefault(camp, [0, 0])[et == "view"] += 1
    return n


def is_ratio(ctr, kmax, vmax):
    """Some k/v with 1 <= k <= kmax, 1 <= v <= vmax equals ctr exactly."""
    for v in range(1, vmax + 1):
        k = round(ctr * v)
        for kk in (k - 1, k, k + 1):
            if 1 <= kk <= kmax and kk / v == ctr:
                return True
    return False


def main(path):
    errors = []
    lines = output_lines(path)
    if not lines or lines[0] != "campaign_id,ctr,WINDOW_END":
        errors.append(f"bad header: {lines[:1]!r}")
    if len(lines) < 2:
        errors.append("no rows")
    want = totals()
    seen, last, windows = set(), None, set()
    rows = []
    for n, line in enumerate(lines[1:], start=2):
        parts = line.split(",")
        if len(parts) != 3 or not parts[2].isdigit():
            errors.append(f"line {n}: malformed {line!r}")
            continue
        camp, wend = parts[0], int(parts[2])
        try:
            ctr = float(parts[1])
        except ValueError:
            errors.append(f"line {n}: ctr {parts[1]!r}")
            continue
        if camp not in want:
            errors.append(f"line {n}: unknown campaign {camp!r}")
            continue
        if wend % 10000:
            errors.append(f"line {n}: WINDOW_END {wend} not a multiple of 10000")
        if (wend, camp) in seen:
            errors.append(f"line {n}: window {wend} campaign {camp} twice")
        seen.add((wend, camp))
        windows.add(wend)
        if last is not None and (wend, camp.encode(), ctr) < last:
            errors.append(f"line {n}: out of order")
        last = (wend, camp.encode(), ctr)
        k, v = want[camp]
        if not (ctr > 0 and ctr == ctr and is_ratio(ctr, k, v)):
            errors.append(f"line {n}: ctr {ctr!r} is no ratio of clicks <= {k} to views <= {v}")
        rows.append((camp, ctr))
    if len(windows) == 1 and not errors:
        got = dict(rows)
        for camp, (k, v) in want.items():
            if got.get(camp) != k / v:
                errors.append(f"one window: campaign {camp} ctr {got.get(camp)!r}, expected {k / v!r}")
    for e in errors[:20]:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
