"""examples/distributed_training.py: one process, then two workers under mpiexec that resume."""
import importlib.util
import os
import subprocess
import sys

_spec = importlib.util.spec_from_file_location("_distribute_conftest", os.path.join(os.path.dirname(__file__),
                                                                                   "conftest.py"))
_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_conftest)
find_mpiexec, require_mpi = _conftest.find_mpiexec, _conftest.require_mpi

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "examples", "distributed_training.py")
SMALL = ["--num-train", "1200", "--num-test", "400", "--batch-size", "32"]


def _run(command, timeout=180):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MINITF_DEVICE="cpu",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("TF_CONFIG", None)
    proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env,
                          start_new_session=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


def _accuracy(text):
    return float(text.split("test accuracy:")[1].split()[0])


def test_example_in_one_process(tmp_path):
    text = _run([sys.executable, SCRIPT, *SMALL, "--epochs", "1", "--out", str(tmp_path)])
    assert "1 worker(s)" in text and _accuracy(text) > 0.5


def test_example_on_two_workers_checkpoints_on_chief_and_resumes(tmp_path):
    require_mpi()
    command = [find_mpiexec(), "-n", "2", sys.executable, SCRIPT, *SMALL, "--out", str(tmp_path)]
    text = _run(command + ["--epochs", "1"])
    assert "2 worker(s)" in text and text.count("epoch 1:") == 1  # only the chief reports
    assert _accuracy(text) > 0.5
    assert sorted(os.listdir(tmp_path / "ckpt")) == ["checkpoint", "ckpt-1.data-00000-of-00001", "ckpt-1.index"]
    assert os.listdir(tmp_path / "workertemp_1") == []  # the other worker deleted what it wrote
    text = _run(command + ["--epochs", "2", "--resume"])
    assert "resumed from" in text and "epoch 2:" in text and "epoch 1:" not in text
    with open(tmp_path / "log.csv") as f:
        assert [line.split(",")[0] for line in f.read().split()] == ["epoch", "1", "2"]
