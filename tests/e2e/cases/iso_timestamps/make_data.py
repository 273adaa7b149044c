"""Writes data.csv for iso_timestamps (run once; the file is committed):
400 events from 2026-12-03T09:59:50Z, 0 to 150 ms apart and some up to
1.5 s out of order (the WATERMARK allows 2 s: none is late), each time
written in one of the forms docs/language.md lists (space or T, Z or an
offset, no fraction or 1 to 6 digits of one, epoch ms), in both the event
time ts and a second TIMESTAMP column t (ts + 7 s 250 ms); and 4 rows whose
ts is no time (a 30th of February, hour 24, an offset of 25 hours, a word)."""
import datetime
import random

rng = random.Random(1208)
E = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def text(ms):
    d = E + datetime.timedelta(milliseconds=ms)
    form = rng.randrange(6)
    frac = ms % 1000
    if form == 0:
        return str(ms)
    if form == 1:
        return d.strftime("%Y-%m-%d %H:%M:%S") + ".%03d" % frac
    if form == 2:
        return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%03dZ" % frac
    if form == 3:  # an offset: the same instant as local time elsewhere
        off = rng.choice((-330, -60, 60, 120, 345))
        loc = d + datetime.timedelta(minutes=off)
        sign = "+" if off >= 0 else "-"
        return loc.strftime("%Y-%m-%dT%H:%M:%S") + ".%03d%s%02d:%02d" % (frac, sign, abs(off) // 60, abs(off) % 60)
    if form == 4:  # more fraction digits than ms: the ones past 3 dropped
        return d.strftime("%Y-%m-%d %H:%M:%S") + ".%03d%d%d%d" % (frac, rng.randrange(10), rng.randrange(10), 9)
    if frac:  # a fraction of 1 or 2 digits where it says all
        return d.strftime("%Y-%m-%d %H:%M:%S") + (".%d" % (frac // 100) if frac % 100 == 0 else ".%03d" % frac)
    return d.strftime("%Y-%m-%d %H:%M:%S")


BAD = ["2026-02-30 10:00:00", "2026-12-03 24:00:00", "2026-12-03T10:00:00+25:00", "yesterday"]
t0 = int((datetime.datetime(2026, 12, 3, 9, 59, 50, tzinfo=datetime.timezone.utc) - E).total_seconds() * 1000)
with open("data.csv", "w", newline="") as f:
    f.write("id,v,t,ts\n")
    t = t0
    for i in range(400):
        t += rng.choice((0, 30, 100, 150)) + (rng.randrange(0, 1000, 100) if i % 10 == 0 else 0)
        ts = t - rng.randrange(1500) if i % 11 == 5 else t
        f.write("%d,%d,%s,%s\n" % (i, rng.randrange(-50, 100), text(ts + 7250), text(ts)))
        if i % 97 == 40:
            f.write("%d,1,%s,%s\n" % (1000 + i, text(ts), BAD[(i // 97) % 4]))
