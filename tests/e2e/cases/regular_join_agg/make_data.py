"""Writes auction.csv and bid.csv for regular_join_agg (run once; both are
committed).

40 auctions (ids 1..40, categories 1..4) over about 20 s, each running 2
to 8 s; 320 bids over the same time on ids 1..42 (41 and 42 have no
auction), prices 1..30 so an auction's highest bid often rises and
sometimes ties. A quarter of each file is moved back in time (auctions 1
to 6 s, bids 0.3 to 10 s), past the 1 s WATERMARK bound: rows behind the
watermark, auctions read after bids they are joined with.
"""
import random

rng = random.Random(4)


def shuffle_back(t, p, choices):
    return max(0, t - rng.choice(choices)) if rng.random() < p else t


auctions = []
t = 1000
for i in range(1, 41):
    t += rng.choice((200, 400, 600))
    at = shuffle_back(t, 0.25, (1000, 2500, 6000))
    auctions.append(f"{i},{rng.randint(1, 4)},{at},{at + rng.choice((2000, 4000, 8000))}")
bids = []
t = 1000
for _ in range(320):
    t += rng.choice((0, 50, 100))
    bt = shuffle_back(t, 0.25, (300, 1500, 4000, 10000))
    bids.append(f"{rng.randint(1, 42)},{rng.randint(1, 30)},{bt}")
with open("auction.csv", "w", newline="") as f:
    f.write("id,category,dateTime,expires\n" + "\n".join(auctions) + "\n")
with open("bid.csv", "w", newline="") as f:
    f.write("auction,price,dateTime\n" + "\n".join(bids) + "\n")
