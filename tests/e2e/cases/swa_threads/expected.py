"""swa_threads: the rows and query of swa_datagen, run with --threads 3, so
its reference is swa_datagen's, unchanged."""
import os
import runpy

here = os.path.dirname(os.path.abspath(__file__))
runpy.run_path(os.path.join(here, "..", "swa_datagen", "expected.py"), run_name="__main__")
