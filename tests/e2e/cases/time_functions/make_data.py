"""Writes data.csv for time_functions: event times around leap days, year
and month ends, before 1970 and far ahead (years 1 to 9999), each with a
text time for TO_TIMESTAMP in one of its forms (a date alone, ' ' or 'T',
a fraction, 'Z', an offset) or a malformed one (which gives 0)."""
import datetime
import random

rng = random.Random(5)
E = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
anchors = [datetime.datetime(2024, 2, 29, 23, 59, 59, 999000), datetime.datetime(2000, 2, 29, 12),
           datetime.datetime(1900, 3, 1), datetime.datetime(1969, 12, 31, 23, 59, 59, 1000),
           datetime.datetime(1, 1, 1), datetime.datetime(9999, 12, 31, 23, 59, 59, 999000),
           datetime.datetime(2026, 12, 6, 10, 0), datetime.datetime(1970, 1, 1)]
texts = ["2026-12-03 10:00:00", "2026-12-03T10:00:00.123Z", "2026-12-03T10:00:00+05:30", "2026-12-03",
         "2024-02-29T23:59:59.9999-08:00", "1969-07-20 20:17:40", "2026-02-30", "2026-13-01", "20261203",
         "2026-12-03T10:00", "2026-12-03 24:00:00", "", "2026-12-03T10:00:00.Z", "0001-01-01T00:00:00Z"]
with open("data.csv", "w", newline="") as f:
    f.write("id,t,txt,ts\n")
    for i in range(60):
        a = rng.choice(anchors)
        try:
            d = a + datetime.timedelta(milliseconds=rng.choice([0, 1, -1, 999, 86399999, -3600000]))
        except OverflowError:  # before year 1 or after 9999
            d = a
        ms = (d.replace(tzinfo=datetime.timezone.utc) - E) // datetime.timedelta(milliseconds=1)
        f.write("%d,%d,%s,%d\n" % (i, ms, rng.choice(texts), 1000 + i))
