"""Writes events.csv for sink_json (run once; the file is committed): 600
rows whose names need JSON escaping (quotes, a backslash, a tab, a slash,
non-ASCII) and CSV quoting (a comma), about 140 ms apart."""
import random

rng = random.Random(77)
names = ['plain', 'with "quotes"', 'back\\slash', 'tab\there', 'caf\u00e9', 'comma, too', 'sl/ash', '\u65e5\u672c\u8a9e']
with open("events.csv", "w", encoding="utf-8", newline="") as f:
    t = 0
    for i in range(600):
        t += rng.choice((0, 50, 100, 400))
        n = rng.choice(names)
        q = '"' + n.replace('"', '""') + '"'
        f.write('%s,%d,%s,%s,%d\n' % (q, rng.randrange(-20, 100), repr(rng.randrange(0, 4000) / 16),
                                      rng.choice(("true", "false")), t))
