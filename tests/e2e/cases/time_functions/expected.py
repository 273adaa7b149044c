"""Reference for time_functions: the fields and text of each time by
Python's datetime (UTC), and TO_TIMESTAMP by the forms docs/language.md
lists, parsed here with datetime (NULL, an empty field, for anything else)."""
import datetime
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import csv_line, read_csv

E = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
FORM = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})?)?$")


def parse(txt):
    m = FORM.match(txt)
    if not m:
        return None
    y, mo, d, h, mi, s, frac, zone = m.groups()
    try:
        t = datetime.datetime(int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(s or 0),
                              tzinfo=datetime.timezone.utc)
    except ValueError:
        return None
    ms = (t - E) // datetime.timedelta(milliseconds=1) + (int((frac + "00")[:3]) if frac else 0)
    if zone and zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        if int(zone[1:3]) > 23 or int(zone[4:6]) > 59:
            return None
        ms -= sign * (int(zone[1:3]) * 60 + int(zone[4:6])) * 60000
    return ms


print("id,y,mo,d,h,mi,s,f,parsed")
for i, t, txt, ts in read_csv("data.csv", header=True):
    t = int(t)
    d = E + datetime.timedelta(milliseconds=t)
    f = "%04d-%02d-%02d %02d:%02d:%02d.%03d (%02d)" % (d.year, d.month, d.day, d.hour, d.minute, d.second,
                                                       d.microsecond // 1000, d.year % 100)
    print(csv_line((int(i), d.year, d.month, d.day, d.hour, d.minute, d.second, f, parse(txt))))
