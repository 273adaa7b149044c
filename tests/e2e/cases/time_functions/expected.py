"""Reference for time_functions: the fields and text of each time by
Python's datetime (UTC), and TO_TIMESTAMP by the forms docs/language.md
lists, parsed here with datetime (NULL, an empty field, for anything else)."""
import datetime
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import csv_line, parse_iso_ms, read_csv

E = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def parse(txt):
    return parse_iso_ms(txt)


print("id,y,mo,d,h,mi,s,f,parsed")
for i, t, txt, ts in read_csv("data.csv", header=True):
    t = int(t)
    d = E + datetime.timedelta(milliseconds=t)
    f = "%04d-%02d-%02d %02d:%02d:%02d.%03d (%02d)" % (d.year, d.month, d.day, d.hour, d.minute, d.second,
                                                       d.microsecond // 1000, d.year % 100)
    print(csv_line((int(i), d.year, d.month, d.day, d.hour, d.minute, d.second, f, parse(txt))))
