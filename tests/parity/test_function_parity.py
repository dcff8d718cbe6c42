"""tf.function against TF 2.21: the programs of function_programs.py print the same under both
libraries: when and how often they trace, their results, signatures and error classes."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _outputs(lib):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=ROOT, CUDA_VISIBLE_DEVICES="")
    out = subprocess.run([sys.executable, os.path.join(HERE, "function_programs.py"), lib],
                         capture_output=True, text=True, env=env, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def outputs(tf_ref):
    return _outputs("tensorflow"), _outputs("minitf")


sys.path.insert(0, HERE)
from function_programs import PROGRAMS  # noqa: E402


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_prints_what_tf_prints(outputs, name):
    tf_out, minitf_out = outputs
    assert minitf_out[name] == tf_out[name]
