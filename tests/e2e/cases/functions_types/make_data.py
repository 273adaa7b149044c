"""Writes data.csv for functions_types: every type LEAST, GREATEST, ABS and
LENGTH accept, with the values where they are easy to get wrong (equal
strings, a prefix, bytes above 0x7f, NaN, -0, infinities, INT64_MIN + 1)."""
import random

rng = random.Random(11)
words = ["", "a", "ab", "abc", "b", "zz", "m", "q", "\u00e9t\u00e9", "Z", "mm"]
doubles = ["1.5", "-2.25", "nan", "-0.0", "0.0", "inf", "-inf", "0.5", "1e300", "-7"]
with open("data.csv", "w", newline="") as f:
    f.write("i,b,d,s,t,f,u,ts\n")
    for n in range(60):
        i = rng.randint(-9, 9)
        b = rng.choice([rng.randint(-10**12, 10**12), -(2**63) + 1, 2**63 - 1, 4])
        d = rng.choice(doubles)
        s, t = rng.choice(words), rng.choice(words)
        flag = rng.choice(["true", "false"])
        u = rng.randint(-5000, 5000)
        # An empty string is quoted: an unquoted empty field is NULL.
        s, t = (w if w else '""' for w in (s, t))
        f.write("%d,%d,%s,%s,%s,%s,%d,%d\n" % (i, b, d, s, t, flag, u, 1000 + n * 37))
