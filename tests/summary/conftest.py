"""The summary tests import their file-reading helpers (summary_files.py) from this folder."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
