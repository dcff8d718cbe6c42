"""The TF parity suite's switches.

* TensorFlow is imported once, as the `tf_ref` fixture and `TF` below. Without TF the whole
  folder is skipped (users run the suite without it); with ``MINITF_REQUIRE_TF=1`` (set by CI) a
  missing or broken TF fails instead (see the hook in tests/conftest.py).
* Hypothesis runs derandomized with ``MINITF_PARITY_EXAMPLES`` cases per row (default 25), so CI
  is repeatable; ``MINITF_PARITY_SEED=random`` draws fresh cases for a long local run, e.g.
  ``MINITF_PARITY_SEED=random MINITF_PARITY_EXAMPLES=2000 pytest tests/parity``.
"""
import os
import sys

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(__file__))  # the parity_* helper modules

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

EXAMPLES = int(os.environ.get("MINITF_PARITY_EXAMPLES", "25"))
settings.register_profile(
    "parity", max_examples=EXAMPLES, deadline=None, database=None,
    derandomize=os.environ.get("MINITF_PARITY_SEED", "") != "random",
    suppress_health_check=list(HealthCheck))
settings.load_profile("parity")


@pytest.fixture(scope="session")
def tf_ref():
    """TensorFlow itself, the oracle."""
    return pytest.importorskip("tensorflow")
