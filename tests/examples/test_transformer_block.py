"""The transformer example learns to reverse sequences, logs every epoch and resumes."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "examples", "transformer_block.py")

pytest.importorskip("tqdm")


def _run(*args, timeout=300):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, SCRIPT, "--quiet", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "restored partially" not in proc.stderr, proc.stderr[-3000:]
    return proc.stdout


def _accuracy(text):
    return float(text.split("test token accuracy:")[1].split()[0])


def _logged_epochs(path):
    with open(path) as f:
        return [line.split(",")[0] for line in f.read().splitlines()]


def test_learns_to_reverse_and_resumes(tmp_path):
    out = str(tmp_path / "run")
    text = _run("--num-train", "1500", "--epochs", "1", "--out", out)
    assert "epoch 1:" in text
    first = _accuracy(text)
    text = _run("--num-train", "1500", "--epochs", "3", "--resume", "--out", out)
    assert "resumed from" in text and "epoch 2:" in text and "epoch 3:" in text and "epoch 1:" not in text
    assert _accuracy(text) > 0.9  # chance is 0.1 per token
    assert _accuracy(text) >= first - 0.02
    assert _logged_epochs(os.path.join(out, "log.csv")) == ["epoch", "1", "2", "3"]
