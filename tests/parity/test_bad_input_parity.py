"""The bad-input fuzz against TF 2.21 itself: every wrong call of tests/fuzz/bad_input_cases.py
runs in TensorFlow and in minitf, and minitf must raise TF's class (or a subclass), never a raw
numpy/Python error, never return where TF raises, and return TF's result where TF accepts (see
tests/fuzz/bad_input_harness.py for the rule). The TF outcomes recorded for the TF-free run
(tests/fuzz/test_bad_input.py) must still be TF's.

    python tests/parity/test_bad_input_parity.py --record    rewrite the record from TF
"""
import os
import sys
import warnings

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fuzz"))

import bad_input_harness as harness  # noqa: E402
from bad_input_cases import CASES  # noqa: E402


def tf_outcomes(tf_ref):
    """TF's outcome of every case, by id."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {call.id: harness.run(tf_ref, call) for call in CASES}


def test_minitf_matches_tf_on_bad_input():
    tf_ref = pytest.importorskip("tensorflow")
    import minitf

    live = tf_outcomes(tf_ref)
    recorded = harness.load_record()
    stale = []
    for call in CASES:
        ref, old = live[call.id], recorded.get(call.id)
        if old is None or (ref.error or old.error) and ref.error != old.error:
            stale.append(call.id)
        elif not ref.error and harness.leaves_differ(old.value, harness.canonical(ref.value)):
            stale.append(call.id)
    assert not stale, (f"{len(stale)} recorded TF outcomes are not TF's (rerun this file with "
                       f"--record): {stale[:10]}")

    figures = harness.measure(CASES, minitf, live)
    print(f"\nbad-input parity with TF {tf_ref.__version__}: {figures.line()}")
    assert not figures.details, "\n".join([figures.line()] + figures.details[:60])
    assert not figures.unnamed, "\n".join(figures.unnamed[:60])


if __name__ == "__main__":
    if "--record" in sys.argv:
        import tensorflow

        outcomes = tf_outcomes(tensorflow)
        harness.save_record(outcomes)
        errors = sum(1 for o in outcomes.values() if o.error)
        print(f"recorded {len(outcomes)} TF outcomes ({errors} raise) in {harness.RECORD}")
