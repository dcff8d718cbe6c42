"""The AutoGraph tests import their program modules (autograph_corpus, autograph_tocode_examples)
from this folder."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
