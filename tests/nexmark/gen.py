#!/usr/bin/env python3
"""A Nexmark-style event generator, deterministic from a seed: writes
person.csv, auction.csv and bid.csv (with headers) into a directory, and
side_input.csv, the bounded side input of Nexmark's q13 (key,value).

    python3 tests/nexmark/gen.py DIR [--seed N] [--events N]

The schemas are Nexmark's:

    person  id,name,emailAddress,creditCard,city,state,dateTime,extra
    auction id,itemName,description,initialBid,reserve,dateTime,expires,
            seller,category,extra
    bid     auction,bidder,price,channel,url,dateTime,extra

Times (dateTime, expires) are epoch milliseconds. As in Nexmark, events are
numbered 0, 1, 2, ... and every block of 50 is 1 person, 3 auctions and 46
bids; event n happens at START + n * STEP ms, minus a jitter of up to
JITTER ms, so each file is in event order but its times are out of order by
less than JITTER (the queries' WATERMARK bound, 1 s, covers it: no row is
late). Ids start at 1000 as Nexmark's do. An auction's seller is a person
that exists already (a recent one mostly); a bid goes to a recent auction,
often to a "hot" one, and comes from a hot bidder, a new person or any
person so far (so people bid in bursts: sessions with pauses between);
some bids arrive after their auction expired. Prices are log-uniform from
1 to 10^8 cents-ish, so Nexmark's price ranks (< 10000, < 1000000, more)
and q14's band all occur. START is 2026-12-06 23:59:30 UTC, so the events
cross midnight (two days for the per-day reports) and span hours 23 and 0.

The default (seed 1, 3250 events) is 65 persons, 195 auctions, 2990 bids
over 65 s. Standard library only.
"""
import argparse
import os
import random

START = 1796601570000  # 2026-12-06T23:59:30Z
STEP = 20
JITTER = 400
FIRST_ID = 1000
PERSON, AUCTIONS, BIDS = 1, 3, 46
BLOCK = PERSON + AUCTIONS + BIDS

FIRST_NAMES = ["Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah",
               "Deiter", "Walter"]
LAST_NAMES = ["Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"]
CITIES = ["Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond",
          "Seattle", "Kent", "Cheyenne"]
STATES = ["AZ", "CA", "ID", "OR", "WA", "WY"]
CHANNELS = ["Google", "Facebook", "Baidu", "Apple"]
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def word(rng, n):
    return "".join(rng.choice(LETTERS) for _ in range(n))


def generate(seed, events):
    """(persons, auctions, bids): lists of rows, each a list of values."""
    rng = random.Random(seed)
    persons, auctions, bids = [], [], []
    for n in range(events):
        t = START + n * STEP - rng.randrange(JITTER)
        kind = n % BLOCK
        if kind < PERSON:
            pid = FIRST_ID + len(persons)
            name = "%s %s" % (rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES))
            email = "%s@%s.com" % (word(rng, 7), word(rng, 5))
            card = " ".join("%04d" % rng.randrange(10000) for _ in range(4))
            persons.append([pid, name, email, card, rng.choice(CITIES), rng.choice(STATES), t,
                            word(rng, rng.randrange(4, 12))])
        elif kind < PERSON + AUCTIONS:
            aid = FIRST_ID + len(auctions)
            # a recent seller mostly, sometimes any person so far
            if rng.random() < 0.7:
                seller = persons[-1 - rng.randrange(min(5, len(persons)))][0]
            else:
                seller = rng.choice(persons)[0]
            initial = int(10 ** rng.uniform(0, 6))
            reserve = initial + rng.randrange(1000)
            expires = t + rng.randrange(1000, 8000)
            auctions.append([aid, "item-%s" % word(rng, 5), "%s %s" % (word(rng, 6), word(rng, 4)),
                             initial, reserve, t, expires, seller, 10 + rng.randrange(5),
                             word(rng, rng.randrange(4, 12))])
        else:
            # hot auctions (the newest ones) half the time, else one of the 20 last
            if rng.random() < 0.5:
                auction = auctions[-1 - rng.randrange(min(2, len(auctions)))][0]
            else:
                auction = auctions[-1 - rng.randrange(min(20, len(auctions)))][0]
            # a hot bidder (the first 5 persons) a quarter of the time, a new
            # one (the 5 latest) half the time, else anyone: people bid in
            # bursts, with pauses (several sessions each)
            r = rng.random()
            if r < 0.25:
                bidder = persons[rng.randrange(min(5, len(persons)))][0]
            elif r < 0.75:
                bidder = persons[-1 - rng.randrange(min(5, len(persons)))][0]
            else:
                bidder = rng.choice(persons)[0]
            price = int(10 ** rng.uniform(0, 8))
            r = rng.random()
            if r < 0.6:
                channel = rng.choice(CHANNELS)
                url = "https://www.nexmark.com/%s/%s/%s/item.htm?query=1" % (
                    word(rng, 5), word(rng, 5), word(rng, 5))
            else:
                cid = rng.randrange(100)
                channel = "channel-%d" % cid
                # most such urls say their channel id, some do not
                tail = "&channel_id=%d" % cid if r < 0.9 else ""
                url = "https://www.nexmark.com/%s/%s/item.htm?query=1%s" % (
                    word(rng, 4), word(rng, 3), tail)
            bids.append([auction, bidder, price, channel, url, t, word(rng, rng.randrange(4, 12))])
    return persons, auctions, bids


SIDE_KEYS = 10000


def side_input():
    """q13's side input: key 0..9999 and a value naming it, as nexmark-flink's
    side_input.txt; keys that are multiples of 13 are left out, so that some
    bids find no row (the join is inner)."""
    return [[k, "value-%d" % k] for k in range(SIDE_KEYS) if k % 13 != 0]


HEADERS = {
    "person": "id,name,emailAddress,creditCard,city,state,dateTime,extra",
    "auction": "id,itemName,description,initialBid,reserve,dateTime,expires,seller,category,extra",
    "bid": "auction,bidder,price,channel,url,dateTime,extra",
    "side_input": "key,value",
}


def write(directory, seed=1, events=3250):
    os.makedirs(directory, exist_ok=True)
    tables = list(zip(("person", "auction", "bid"), generate(seed, events)))
    for name, rows in tables + [("side_input", side_input())]:
        with open(os.path.join(directory, name + ".csv"), "w", newline="") as f:
            f.write(HEADERS[name] + "\n")
            for r in rows:
                f.write(",".join(str(v) for v in r) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("directory")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--events", type=int, default=3250)
    a = ap.parse_args()
    write(a.directory, a.seed, a.events)


if __name__ == "__main__":
    main()
