"""Reference for csv_rate_override: the query and data.csv are csv_rate's
(the same file, made by csv_rate/make_data.py), so is the reference."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "csv_rate", "expected.py"))
