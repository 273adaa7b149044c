"""bids.csv for top_n_tvf is top_n_rows's (the same file, made by
tests/e2e/cases/top_n_rows/make_data.py): 3000 rows over about 5 minutes
in time order, 25 keys (and NULL), a value with ties and NULLs, a short
string (NULL, and one with a comma)."""
import shutil

shutil.copy("../top_n_rows/bids.csv", "bids.csv")
