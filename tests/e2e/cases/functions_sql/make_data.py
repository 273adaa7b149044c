"""Writes data.csv for functions_sql: names with spaces at either end,
mixed case, '-' separators (none, several, at the ends), empty; doubles of
both signs with halves (ROUND's ties) and small ones; n from -2 to 9 (MOD
by zero, SUBSTRING starts below 1 and past the end)."""
import random

rng = random.Random(23)
names = ["alpha", "Beta-Gamma", " pad ", "a-b-c-d", "-lead", "trail-", "", "MiXeD case", "x_y%z", "Aardvark",
         "no-dash-here-either", "  two  ", "banana", "A", "ab-"]
xs = ["2.5", "-2.5", "0.25", "-0.35", "7.05", "12.75", "-13.5", "0.001", "100", "-0.5", "3.14159", "-7"]
with open("data.csv", "w", newline="") as f:
    f.write("id,name,x,n,ts\n")
    for i in range(90):
        name = rng.choice(names)
        q = '"%s"' % name if not name or name.startswith(" ") or name.endswith(" ") else name  # "": the empty string
        f.write("%d,%s,%s,%d,%d\n" % (rng.randint(-60, 60), q, rng.choice(xs), rng.randint(-2, 9), 1000 + i * 10))
