#!/usr/bin/env python3
"""check_out.py - independent checks of a stress run's result CSV.

  check_out.py tumbling OUT.csv SIZE_MS KEYS EVENTS_IN
      key,n,...,WINDOW_END rows of a COUNT(*) per key in tumbling windows:
      every (key, WINDOW_END) once, windows in order and contiguous (no
      window missing between the first and the last), every key in every
      window but the first and the last (which may be partial), and the
      counts summing to EVENTS_IN: every event read was aggregated once.
  check_out.py complete OUT.csv SIZE_MS KEYS EVENTS_IN
      the same after a stop that left the windows open at its cut out:
      every key in every window but the first, counts below EVENTS_IN.
  check_out.py distinct OUT.csv EVENTS
      key,n,WINDOW_END for one window: keys distinct, counts sum to EVENTS.
  check_out.py hopping OUT.csv EVENTS STEP_MS SIZE_MS ADV_MS
      key,n,WINDOW_START,WINDOW_END over events i = 0..EVENTS-1 at time
      i * STEP_MS: per window, the counts sum to the events it covers
      (computed here from the definition), every window once, in order.
Prints one line "ok ..." and exits 0, or the first problem and exits 1.
"""
import csv
import sys


def fail(msg):
    print("FAIL", msg)
    sys.exit(1)


def rows(path):
    with open(path, newline="") as f:
        r = csv.reader(f)
        header = next(r)
        for line, row in enumerate(r, start=2):
            if len(row) != len(header):
                fail(f"{path}:{line}: {len(row)} fields, header has {len(header)}")
            yield line, dict(zip(header, row))


def tumbling(path, size, keys, events_in, complete=False):
    seen = set()
    per_window = {}
    order = []
    total = 0
    prev = None
    for line, r in rows(path):
        k, n, we = int(r["key"]), int(r["n"]), int(r["WINDOW_END"])
        if (k, we) in seen:
            fail(f"{path}:{line}: window ({k}, {we}) emitted twice")
        seen.add((k, we))
        if prev is not None and (we, k) < prev:
            fail(f"{path}:{line}: out of order")
        prev = (we, k)
        if we not in per_window:
            order.append(we)
            per_window[we] = 0
        per_window[we] += 1
        total += n
    if not order:
        fail("no rows")
    for a, b in zip(order, order[1:]):
        if b - a != size:
            fail(f"windows not contiguous: {a} then {b}")
    for we in order[1:] if complete else order[1:-1]:
        if per_window[we] != keys:
            fail(f"window {we} has {per_window[we]} keys, expected {keys}")
    if complete:
        if total >= events_in:
            fail(f"counts sum to {total}, events in {events_in}: no window was left out")
        print(f"ok {len(order)} windows, {len(seen)} rows, counts sum {total} < events in {events_in}")
        return
    if total != events_in:
        fail(f"counts sum to {total}, events in {events_in}")
    print(f"ok {len(order)} windows, {len(seen)} rows, counts sum {total} = events in")


def distinct(path, events):
    keys = set()
    total = 0
    ends = set()
    for line, r in rows(path):
        k = int(r["key"])
        if k in keys:
            fail(f"{path}:{line}: key {k} twice")
        keys.add(k)
        total += int(r["n"])
        ends.add(r["WINDOW_END"])
    if len(ends) != 1:
        fail(f"expected one window, got {len(ends)}")
    if total != events:
        fail(f"counts sum to {total}, expected {events}")
    print(f"ok {len(keys)} distinct keys in one window, counts sum {total}")


def hopping(path, events, step, size, adv):
    got = {}
    seen = set()
    prev = None
    for line, r in rows(path):
        k, ws, we = int(r["key"]), int(r["WINDOW_START"]), int(r["WINDOW_END"])
        if we - ws != size:
            fail(f"{path}:{line}: window [{ws}, {we}) is not {size} ms")
        if (k, ws) in seen:
            fail(f"{path}:{line}: window ({k}, {ws}) emitted twice")
        seen.add((k, ws))
        if prev is not None and (we, k) < prev:
            fail(f"{path}:{line}: out of order")
        prev = (we, k)
        got[ws] = got.get(ws, 0) + int(r["n"])
    # Expected: window starts are multiples of adv; event at t lies in
    # [s, s + size) for s in (t - size, t].
    last = (events - 1) * step
    want = {}
    s = -((size - adv) // adv) * adv
    while s <= last:
        lo = max(0, -(-s // step))                 # first i with i*step >= s
        hi = min(events - 1, (s + size - 1) // step)  # last i with i*step < s+size
        if hi >= lo:
            want[s] = hi - lo + 1
        s += adv
    if got != want:
        missing = sorted(set(want) - set(got))[:3]
        extra = sorted(set(got) - set(want))[:3]
        wrong = [s for s in want if s in got and got[s] != want[s]][:3]
        fail(f"windows differ: missing {missing} extra {extra} wrong counts at {wrong}")
    print(f"ok {len(want)} windows (each of the {events} events in {size // adv}), "
          f"{len(seen)} rows, counts as computed")


def main():
    a = sys.argv[1:]
    if a and a[0] in ("tumbling", "complete") and len(a) == 5:
        tumbling(a[1], int(a[2]), int(a[3]), int(a[4]), complete=a[0] == "complete")
    elif a and a[0] == "distinct" and len(a) == 3:
        distinct(a[1], int(a[2]))
    elif a and a[0] == "hopping" and len(a) == 6:
        hopping(a[1], int(a[2]), int(a[3]), int(a[4]), int(a[5]))
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
