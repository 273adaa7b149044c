"""Reference for in_lists: the IN lists of query.airq (read back from the
query file) evaluated here over data.csv. Numbers compare as numbers (an INT
against a DOUBLE list as DOUBLE, -0 = 0), strings by their bytes."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from airref import print_result, read_csv

q = open("query.airq").read()
lists = re.findall(r"IN \(([^)]*)\)", q)


def nums(text):
    return [float(x) for x in text.split(", ") if x != "i"]


def strs(text):
    return [x[1:-1] for x in text.split(", ")]


ints, dbls, dbls2, words, jints, big, tss, words2 = lists
ints, dbls, jints, tss = nums(ints), nums(dbls), nums(jints), nums(tss)
words = strs(words)
# a BIGINT against integer constants compares exactly, against 2.5 as DOUBLE
big = big.split(", ")
big_ints = [int(x) for x in big if "." not in x]
big_dbls = [float(x) for x in big if "." in x]
assert nums(dbls2) == dbls and strs(words2) == words
out = []
for i, d, s, j, ts in read_csv("data.csv", header=True):
    i, d, j, ts = int(i), float(d), int(j), int(ts)
    if not (ts in tss or s in words):
        continue
    out.append((i, s, j, i in ints, i in dbls, d in dbls, s in words, not (j in jints or j == i),
                j in big_ints or float(j) in big_dbls))
print_result(["i", "s", "j", "i_in", "i_in_dbl", "d_in", "s_in", "j_not_in", "j_in_big"], out)
