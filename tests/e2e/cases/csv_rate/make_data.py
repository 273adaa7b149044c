"""Writes data.csv for csv_rate and csv_rate_override (run once; committed).

4000 readings of 4 sensors, 25 ms apart in event time (100 s), in order.
"""
import random

rng = random.Random(17)
with open("data.csv", "w", newline="") as f:
    f.write("sensor,val,ts\n")
    for i in range(4000):
        f.write("%s,%d,%d\n" % (rng.choice(("s1", "s2", "s3", "s4")), rng.randint(0, 99), 25 * i))
