"""References for the Nexmark queries of queries/nexmark (Python 3.11,
standard library): each function reads the generated person, auction, bid
and side_input files and returns what the airc query must write.

Written from the Nexmark intent of each query, the rewrite its .airq file
describes, and docs/language.md (window bounds, sessions [first, last +
gap), the order of result rows: by WINDOW_END, then the group key, or for
a join the output columns, or for a window Top-N the partition keys and
ORDER BY items, ties by the group keys), never from airc's output.

A reference returns (header, rows, ordered): rows as tuples of Python
values in output order when ordered, else in any order (queries without a
window write rows as they arrive on each rank).

Checked by hand on the default data (seed 1): q2's only auction with
auction % 123 = 0 is 1107 (20 bids); q15 has the two days 2026-12-06 and 2026-12-07
(the data starts at 23:59:30 UTC); every bid, auction and person is ahead
of its file's watermark (asserted in load), so no row is late anywhere.
"""
import os
import re
import sys
from collections import defaultdict
from datetime import datetime, timezone

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e", "lib"))
from airref import changelog_by_time, file_watermarks, hop_starts, read_csv, sessions, tumble_start  # noqa: E402

BOUND = 1000  # every stream's WATERMARK: dateTime - 1 s
SEC = 1000
DAY = 86400 * SEC


class Data:
    def __init__(self, directory):
        def rows(name):
            return read_csv(os.path.join(directory, name + ".csv"), header=True)

        self.persons = [dict(id=int(r[0]), name=r[1], email=r[2], card=r[3], city=r[4], state=r[5],
                             t=int(r[6]), extra=r[7]) for r in rows("person")]
        self.auctions = [dict(id=int(r[0]), itemName=r[1], description=r[2], initialBid=int(r[3]),
                              reserve=int(r[4]), t=int(r[5]), expires=int(r[6]), seller=int(r[7]),
                              category=int(r[8]), extra=r[9]) for r in rows("auction")]
        self.bids = [dict(auction=int(r[0]), bidder=int(r[1]), price=int(r[2]), channel=r[3], url=r[4],
                          t=int(r[5]), extra=r[6]) for r in rows("bid")]
        self.side = {int(k): v for k, v in rows("side_input")}
        for name, recs in (("person", self.persons), ("auction", self.auctions), ("bid", self.bids)):
            times = [r["t"] for r in recs]
            for t, w in zip(times, file_watermarks(times, BOUND)):
                # ahead of the watermark: no window of any size has ended for it
                assert w is None or t > w, "%s: a row behind its watermark" % name
        self.auction_by_id = {a["id"]: a for a in self.auctions}
        self.person_by_id = {p["id"]: p for p in self.persons}


def bid_cols(b):
    return (b["auction"], b["bidder"], b["price"], b["channel"], b["url"], b["t"], b["extra"])


BID_HEADER = ["auction", "bidder", "price", "channel", "url", "dateTime", "extra"]
AUCTION_HEADER = ["id", "itemName", "description", "initialBid", "reserve", "dateTime", "expires",
                  "seller", "category", "extra"]


def auction_cols(a):
    return (a["id"], a["itemName"], a["description"], a["initialBid"], a["reserve"], a["t"],
            a["expires"], a["seller"], a["category"], a["extra"])


def day(t):
    return datetime.fromtimestamp(t / 1000, tz=timezone.utc).strftime("%Y-%m-%d")


def hhmm(t):
    return datetime.fromtimestamp(t / 1000, tz=timezone.utc).strftime("%H:%M")


def hour(t):
    return datetime.fromtimestamp(t / 1000, tz=timezone.utc).hour


def valid_bids(d):
    """Each auction's bids made while it ran: {auction id: [bid, ...]}."""
    out = defaultdict(list)
    for b in d.bids:
        a = d.auction_by_id.get(b["auction"])
        if a is not None and a["t"] <= b["t"] <= a["expires"]:
            out[a["id"]].append(b)
    return out


def auction_sessions(d, gap=10 * SEC):
    """(auction, its bids in one session, the session's end) for every
    session of each auction's valid bids."""
    out = []
    for aid, bs in valid_bids(d).items():
        for _, end, idx in sessions([b["t"] for b in bs], gap):
            out.append((d.auction_by_id[aid], [bs[i] for i in idx], end))
    return out


def q0(d):
    return (["auction", "bidder", "price", "dateTime", "extra"],
            [(b["auction"], b["bidder"], b["price"], b["t"], b["extra"]) for b in d.bids], False)


def q1(d):
    return (["auction", "bidder", "price", "dateTime", "extra"],
            [(b["auction"], b["bidder"], 0.908 * b["price"], b["t"], b["extra"]) for b in d.bids], False)


def q2(d):
    rows = [(b["auction"], b["price"]) for b in d.bids if b["auction"] % 123 == 0]
    assert rows, "no bid on an auction that is a multiple of 123"
    return ["auction", "price"], rows, False


def q3(d):
    # a regular join of two streams: each auction with its seller, in any order
    rows = []
    for a in d.auctions:
        p = d.person_by_id.get(a["seller"])
        if p and a["category"] == 10 and p["state"] in ("OR", "ID", "CA"):
            rows.append((p["name"], p["city"], p["state"], a["id"]))
    return ["name", "city", "state", "id"], rows, False


def q4(d):
    # Nexmark's q4 as stated, EMIT CHANGES (the default): every ms of event
    # time that changes a result is one emission. The inner query's changes
    # (each auction's highest valid bid) are the outer's input at the same
    # ms: -U takes the old final out of its category's average, +I/+U adds
    # the new one. The join (auction a stream: a regular join) gives a pair
    # the bid's time: a valid bid is at or after its auction, and no row is
    # behind its watermark (asserted in Data), which would raise it.
    by_ms = defaultdict(list)
    for a_id, bs in valid_bids(d).items():
        for b in bs:
            by_ms[b["t"]].append((a_id, d.auction_by_id[a_id]["category"], b["price"]))
    inner = changelog_by_time(sorted(by_ms.items()), lambda r: (r[0], r[1]), lambda s: s,
                      lambda s, r: r[2] if s is None else max(s, r[2]))
    outer_in = defaultdict(list)
    for t, op, (a_id, cat), final in inner:
        outer_in[t].append((cat, -1 if op in ("-U", "-D") else 1, final))

    def fold(s, r):
        n, total = s or (0, 0)
        return n + r[1], total + r[1] * r[2]
    outer = changelog_by_time(sorted(outer_in.items()), lambda r: r[0], lambda s: s[1] / s[0] if s[0] else None, fold)
    return ["op", "category", "AVG(Q.final)"], [(op, cat, avg) for _, op, cat, avg in outer], True


def q5(d):
    counts = defaultdict(lambda: defaultdict(int))  # window end -> auction -> bids
    for b in d.bids:
        for s in hop_starts(b["t"], 10 * SEC, 2 * SEC):
            counts[s + 10 * SEC][b["auction"]] += 1
    rows = []
    for end in sorted(counts):
        top = max(counts[end].values())
        rows += sorted((a, n) for a, n in counts[end].items() if n >= top)
    return ["auction", "num"], rows, True


def q6(d):
    rows = sorted((end, a["id"], a["seller"], max(b["price"] for b in bs), max(b["t"] for b in bs))
                  for a, bs, end in auction_sessions(d))
    return ["id", "seller", "final", "dateTime"], [r[1:] for r in rows], True


def q7(d):
    """Each bid meets every period maximum of its price whose window ends
    within [dateTime, dateTime + 10 s] (Flink's BETWEEN, closed)."""
    windows = defaultdict(list)
    for b in d.bids:
        windows[tumble_start(b["t"], 10 * SEC)].append(b)
    rows = []
    for s in sorted(windows):
        top, end = max(b["price"] for b in windows[s]), s + 10 * SEC
        rows += [(b["auction"], b["price"], b["bidder"], b["t"], b["extra"])
                 for b in d.bids if b["price"] == top and end - 10 * SEC <= b["t"] <= end]
    return ["auction", "price", "bidder", "dateTime", "extra"], rows, False


def q8(d):
    people = {(tumble_start(p["t"], 10 * SEC), p["id"], p["name"]) for p in d.persons}
    sellers = {(tumble_start(a["t"], 10 * SEC), a["seller"]) for a in d.auctions}
    rows = sorted((s, pid, name, s) for s, pid, name in people if (s, pid) in sellers)
    return ["id", "name", "starttime"], [r[1:] for r in rows], True


def q9(d):
    rows = []
    for a, bs, _ in auction_sessions(d):
        # the highest price, then the earliest time (Nexmark's ORDER BY);
        # the data has no two such bids tied (checked), so no tie rule is used
        key = max((b["price"], -b["t"]) for b in bs)
        win = [b for b in bs if (b["price"], -b["t"]) == key]
        assert len(win) == 1, win
        b = win[0]
        rows.append(auction_cols(a) + (a["id"], b["bidder"], b["price"], b["t"], b["extra"]))
    return AUCTION_HEADER + ["auction", "bidder", "price", "bid_dateTime", "bid_extra"], rows, False


def q10(d):
    return (["auction", "bidder", "price", "dateTime", "extra", "dt", "hm"],
            [(b["auction"], b["bidder"], b["price"], b["t"], b["extra"], day(b["t"]), hhmm(b["t"]))
             for b in d.bids], False)


def q11(d):
    times = defaultdict(list)
    for b in d.bids:
        times[b["bidder"]].append(b["t"])
    rows = sorted((end, bidder, len(idx), start)
                  for bidder, ts in times.items() for start, end, idx in sessions(ts, 10 * SEC))
    per_bidder = defaultdict(int)
    for _, bidder, _, _ in rows:
        per_bidder[bidder] += 1
    assert max(per_bidder.values()) > 1, "no bidder has two sessions"
    return (["bidder", "bid_count", "starttime", "endtime"],
            [(bidder, n, start, end) for end, bidder, n, start in rows], True)


def q12(d):
    """Processing time: which window a bid falls into depends on when it is
    read, so the output is checked (check_q12), not compared."""
    return None


def check_q12(d, lines):
    """Every bid counted once, per bidder, in aligned 10 s windows, each
    (window, bidder) once, by window end and then bidder; None when so,
    else what is wrong."""
    if lines[:1] != ["bidder,bid_count,starttime,endtime"]:
        return "header %r" % lines[:1]
    want = defaultdict(int)
    for b in d.bids:
        want[b["bidder"]] += 1
    got, seen, order = defaultdict(int), set(), []
    for line in lines[1:]:
        bidder, n, start, end = (int(x) for x in line.split(","))
        if end - start != 10 * SEC or start % (10 * SEC):
            return "window %d..%d" % (start, end)
        if (end, bidder) in seen:
            return "window %d, bidder %d twice" % (end, bidder)
        seen.add((end, bidder))
        order.append((end, bidder))
        got[bidder] += n
    if order != sorted(order):
        return "rows out of order"
    return None if got == want else "counts per bidder differ from the bids'"


def q13(d):
    rows = [(b["auction"], b["bidder"], b["price"], b["t"], d.side[b["auction"] % 10000])
            for b in d.bids if b["auction"] % 10000 in d.side]
    assert len(rows) < len(d.bids), "every bid found its side input row"
    return ["auction", "bidder", "price", "dateTime", "value"], rows, False


def q14(d):
    rows = []
    for b in d.bids:
        p = 0.908 * b["price"]
        if not 1000000 < p < 50000000:
            continue
        h = hour(b["t"])
        kind = "dayTime" if 8 <= h <= 18 else "nightTime" if h <= 6 or h >= 20 else "otherTime"
        rows.append((b["auction"], b["bidder"], p, kind, b["t"], b["extra"], b["extra"].count("c")))
    return ["auction", "bidder", "price", "bidTimeType", "dateTime", "extra", "c_counts"], rows, False


RANKS = (lambda p: p < 10000, lambda p: 10000 <= p < 1000000, lambda p: p >= 1000000)


def bid_report(bs):
    """The twelve counts of q15 and q16 over the bids bs."""
    bids = [len(bs)] + [sum(1 for b in bs if r(b["price"])) for r in RANKS]
    bidders = [len({b["bidder"] for b in bs})] + [len({b["bidder"] for b in bs if r(b["price"])})
                                                   for r in RANKS]
    auctions = [len({b["auction"] for b in bs})] + [len({b["auction"] for b in bs if r(b["price"])})
                                                     for r in RANKS]
    return tuple(bids + bidders + auctions)


REPORT_HEADER = ["total_bids", "rank1_bids", "rank2_bids", "rank3_bids",
                 "total_bidders", "rank1_bidders", "rank2_bidders", "rank3_bidders",
                 "total_auctions", "rank1_auctions", "rank2_auctions", "rank3_auctions"]


def q15(d):
    # an updating query, EMIT CHANGES: per ms, the day's row if its bids changed it
    assert sorted({day(b["t"]) for b in d.bids}) == ["2026-12-06", "2026-12-07"]
    by_ms = defaultdict(list)
    for b in d.bids:
        by_ms[b["t"]].append(b)
    log = changelog_by_time(sorted(by_ms.items()), lambda b: day(b["t"]), bid_report, lambda s, b: (s or []) + [b])
    return ["op", "day"] + REPORT_HEADER, [(op, k) + v for _, op, k, v in log], True


def q16(d):
    groups = defaultdict(list)
    for b in d.bids:
        groups[(day(b["t"]), b["channel"])].append(b)
    rows = sorted((k, ch, max(hhmm(b["t"]) for b in bs)) + bid_report(bs)
                  for (k, ch), bs in groups.items())
    return ["channel", "day", "minute"] + REPORT_HEADER, [(r[1], r[0]) + r[2:] for r in rows], True


def q17(d):
    # an updating query, EMIT CHANGES: per ms, the groups its bids changed
    by_ms = defaultdict(list)
    for b in d.bids:
        by_ms[b["t"]].append(b)

    def value(ps):
        return ((len(ps),) + tuple(sum(1 for p in ps if r(p)) for r in RANKS)
                + (min(ps), max(ps), sum(ps) / len(ps), sum(ps)))
    log = changelog_by_time(sorted(by_ms.items()), lambda b: (b["auction"], day(b["t"])), value,
                    lambda s, b: (s or []) + [b["price"]])
    return (["op", "auction", "day", "total_bids", "rank1_bids", "rank2_bids", "rank3_bids", "min_price",
             "max_price", "avg_price", "sum_price"], [(op,) + k + v for _, op, k, v in log], True)


def sort_key(v):
    """Ascending as airc orders values: numbers by value, strings by bytes."""
    return v.encode() if isinstance(v, str) else v


def window_top(d, partition, order_desc, n):
    """Flink's window Top-N over 10 s tumbling windows of the bids' rows
    (no aggregate): per window, per partition key, the rows ordered by
    order_desc (descending), ties by the bid's columns in order; the first
    n, each with its number. Rows in output order: window, partition key, that order."""
    groups = defaultdict(list)
    for b in d.bids:
        s = tumble_start(b["t"], 10 * SEC)
        groups[(s, tuple(b[k] for k in partition))].append(b)
    rows = []
    for (s, key), bs in sorted(groups.items()):
        bs.sort(key=lambda b: (-b[order_desc],) + tuple(sort_key(v) for v in bid_cols(b)))
        rows += [(b, s, i + 1) for i, b in enumerate(bs[:n])]
    return rows


def q18(d):
    rows = window_top(d, ("bidder", "auction"), "t", 1)
    return BID_HEADER, [bid_cols(b) for b, _, _ in rows], True


def q19(d):
    rows = window_top(d, ("auction",), "price", 10)
    return (BID_HEADER + ["window_start", "window_end", "window_time", "rank_number"],
            [bid_cols(b) + (s, s + 10 * SEC, s + 10 * SEC - 1, i) for b, s, i in rows], True)


def q20(d):
    # a regular join of two streams: each bid with its auction, in any order
    rows = []
    for b in d.bids:
        a = d.auction_by_id.get(b["auction"])
        if a and a["category"] == 10:
            rows.append(bid_cols(b) + (a["itemName"], a["description"], a["initialBid"], a["reserve"],
                                       a["t"], a["expires"], a["seller"], a["category"], a["extra"]))
    return (BID_HEADER[:5] + ["bid_dateTime", "bid_extra", "itemName", "description", "initialBid",
                              "reserve", "auction_dateTime", "expires", "seller", "category",
                              "auction_extra"], rows, False)


CHANNEL_ID = re.compile(r"(&|^)channel_id=([^&]*)")
BIG_CHANNELS = {"apple": "0", "google": "1", "facebook": "2", "baidu": "3"}


def q21(d):
    rows = []
    for b in d.bids:
        m = CHANNEL_ID.search(b["url"])  # Flink's REGEXP_EXTRACT: NULL without a match
        ch = b["channel"].lower()
        if m is None and ch not in BIG_CHANNELS:
            continue
        rows.append((b["auction"], b["bidder"], b["price"], b["channel"],
                     BIG_CHANNELS[ch] if ch in BIG_CHANNELS else m.group(2)))
    assert len(rows) < len(d.bids), "no bid dropped"
    return ["auction", "bidder", "price", "channel", "channel_id"], rows, False


def q22(d):
    rows = []
    for b in d.bids:
        parts = b["url"].split("/")
        dirs = tuple(parts[i] if i < len(parts) else None for i in (3, 4, 5))  # Flink's: NULL past the end
        rows.append((b["auction"], b["bidder"], b["price"], b["channel"]) + dirs)
    return ["auction", "bidder", "price", "channel", "dir1", "dir2", "dir3"], rows, False


# The queries with a reference, and where each writes: standard output, or
# a csv sink file (relative to the directory it runs in).
QUERIES = {"q%d" % i: globals()["q%d" % i] for i in range(23)}
SINKS = {"q10": "q10_bids.csv"}
CHECKS = {"q12": check_q12}  # outputs that depend on the run: checked, not compared
