"""Writes clicks.csv for session_csv (run once; the CSV is committed).

Event times per user, chosen by hand (all in one global time order):
  u1: 100000, 104000, 108000 -> one session [100000, 113000) only because
      of the bridging event 104000 (without it: 100000 and 108000 apart by
      8 s); then 120000; 125000 (exactly one gap later: a new session,
      since [t, t + gap) is half-open) and 129999; then 150000 alone.
  u2: every second from 100500 to 124500: one long session.
  u3: 106000, 110999, 115998 (gaps of 4999 ms: one session); 140000 and
      145001 (5001 ms: two sessions).
  u4: 105000, 115000, 130000, 135000: four sessions.
  u5: 112000, 113000; 119000, 123800.
The bridging event is record a + 5 and the session's ends a and a + 12, so
on 2, 3 and 4 ranks the two ends are read by one rank and the bridge by
another: merging partial sessions across ranks must join all three.
"""
U = {
    "u1": [100000, 104000, 108000, 120000, 125000, 129999, 150000],
    "u2": list(range(100500, 124501, 1000)),
    "u3": [106000, 110999, 115998, 140000, 145001],
    "u4": [105000, 115000, 130000, 135000],
    "u5": [112000, 113000, 119000, 123800],
}
events = sorted((t, u) for u, ts in U.items() for t in ts)
assert len({t for t, _ in events}) == len(events)  # no ties: one order
a = events.index((100000, "u1"))
assert events[a + 5] == (104000, "u1") and events[a + 12] == (108000, "u1")
with open("clicks.csv", "w", newline="") as f:
    f.write("user_id,amount,ts\n")
    for i, (t, u) in enumerate(events):
        f.write(f"{u},{i * 7 % 20 + 1},{t}\n")
