"""Writes data.csv for csv_cr_bom (run once; the CSV is committed).

A file as old Mac tools and some spreadsheet exports write it: a UTF-8 byte
order mark first, then lines ended by a lone CR (one blank line, one quoted
field holding a CR and one a CRLF), 300 readings of 3 sensors 100 ms apart.
"""
import random

rng = random.Random(5)
lines = ["sensor,val,ts"]
for i in range(300):
    s = rng.choice(("s1", "s2", "s3"))
    if i == 40:
        s = '"s\r4"'  # a line end inside quotes is data
    if i == 41:
        s = '"s\r\n5"'
    lines.append("%s,%d,%d" % (s, rng.randint(-9, 99), 1000 + 100 * i))
    if i == 150:
        lines.append("")  # a blank line: no record
with open("data.csv", "w", newline="", encoding="utf-8") as f:
    f.write("\ufeff" + "\r".join(lines) + "\r")
