"""Smoke tests: each example runs for a few steps, writes its outputs and resumes."""
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")
pytest.importorskip("PIL")


def run_example(name, *args, timeout=240):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), *args], capture_output=True,
                          text=True, timeout=timeout, env=env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    # a resumed run restores every value it saved (optimizer slots included): no partial-restore warning
    assert "restored partially" not in proc.stderr, proc.stderr[-3000:]
    return proc.stdout


def test_custom_training_loop_trains_and_resumes(tmp_path):
    out = str(tmp_path / "ctl")
    text = run_example("custom_training_loop.py", "--model", "mlp", "--num-train", "1200", "--epochs", "1",
                       "--quiet", "--out", out)
    assert "test accuracy" in text
    acc = float(text.split("test accuracy:")[1].split()[0])
    assert acc > 0.3  # far above chance (0.1) after one short epoch
    log = os.path.join(out, "log_mlp.csv")
    assert _csv_epochs(log) == ["epoch", "1"]
    text = run_example("custom_training_loop.py", "--model", "mlp", "--num-train", "1200", "--epochs", "2",
                       "--quiet", "--resume", "--out", out)
    assert "resumed from" in text and "epoch 2:" in text and "epoch 1:" not in text
    assert _csv_epochs(log) == ["epoch", "1", "2"]  # one log, as if uninterrupted
    run_example("custom_training_loop.py", "--model", "mlp", "--num-train", "1200", "--epochs", "1",
                "--quiet", "--out", out)
    assert _csv_epochs(log) == ["epoch", "1"]  # a new run starts the log afresh


def _csv_epochs(path):
    with open(path) as f:
        return [line.split(",")[0] for line in f.read().splitlines()]


def test_dcgan_few_steps_writes_images_checkpoint_and_gif(tmp_path):
    out = str(tmp_path / "dcgan")
    text = run_example("dcgan.py", "--num-train", "256", "--batch-size", "32", "--epochs", "2", "--max-steps", "3",
                "--quiet", "--out", out)
    files = os.listdir(out)
    assert "image_at_epoch_0001.png" in files and "dcgan.gif" in files
    assert "about 20 epochs" in text  # a short run explains its dark grids
    assert os.listdir(os.path.join(out, "training_checkpoints"))
    text = run_example("dcgan.py", "--num-train", "256", "--batch-size", "32", "--epochs", "2",
                       "--max-steps", "2", "--quiet", "--resume", "--out", out)
    assert "resumed from" in text


def _final_weights(path):
    import h5py
    with h5py.File(path, "r") as f:
        arrays = []
        f.visititems(lambda name, obj: arrays.append(np.array(obj)) if isinstance(obj, h5py.Dataset) else None)
    return arrays


def test_checkpointed_training_killed_and_resumed_matches_uninterrupted(tmp_path):
    common = ["--steps", "400", "--save-every", "25", "--quiet"]
    straight = str(tmp_path / "straight")
    run_example("checkpointed_training.py", *common, "--out", straight)

    resumed = str(tmp_path / "resumed")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, os.path.join(EXAMPLES, "checkpointed_training.py"), *common,
                             "--out", resumed], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ckpt_dir = os.path.join(resumed, "ckpt")
    deadline = time.time() + 120
    while time.time() < deadline:  # kill it once at least one checkpoint exists
        if os.path.exists(os.path.join(ckpt_dir, "checkpoint")):
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not os.path.exists(os.path.join(resumed, "final.weights.h5")), "run finished before it was killed"
    text = run_example("checkpointed_training.py", *common, "--out", resumed)
    assert "resumed from" in text
    a = _final_weights(os.path.join(straight, "final.weights.h5"))
    b = _final_weights(os.path.join(resumed, "final.weights.h5"))
    assert len(a) == len(b) > 0
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
