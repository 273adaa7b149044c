"""Writes trips.csv for sink_csv (run once; the CSV is committed): the same
kind of out-of-order trips as hopping_csv's, from another seed."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hopping_csv"))
from make_data import write_trips  # noqa: E402

write_trips(29)
