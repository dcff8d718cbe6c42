"""CheckpointManager: numbering, retention, the state file, crash safety, exact resume."""
import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import minitf as tf
from minitf.checkpoint import manager as manager_mod

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def make(tmp_path, **kw):
    v = tf.Variable(np.zeros(3))
    ckpt = tf.train.Checkpoint(v=v)
    return v, ckpt, tf.train.CheckpointManager(ckpt, str(tmp_path), **kw)


def test_keeps_max_to_keep_and_writes_tf_state_file(tmp_path):
    v, ckpt, mgr = make(tmp_path, max_to_keep=2)
    paths = [mgr.save() for _ in range(4)]
    assert [os.path.basename(p) for p in paths] == ["ckpt-1", "ckpt-2", "ckpt-3", "ckpt-4"]
    assert mgr.checkpoints == paths[2:]
    assert mgr.latest_checkpoint == paths[3]
    assert not os.path.exists(paths[0] + ".index") and os.path.exists(paths[2] + ".index")
    assert not os.path.exists(paths[0] + ".data-00000-of-00001")
    text = open(tmp_path / "checkpoint").read().splitlines()
    assert text[0] == 'model_checkpoint_path: "ckpt-4"'
    assert text[1:3] == ['all_model_checkpoint_paths: "ckpt-3"',
                         'all_model_checkpoint_paths: "ckpt-4"']
    assert tf.train.latest_checkpoint(str(tmp_path)) == paths[3]


def test_new_manager_recovers_state_and_checkpoint_number(tmp_path):
    v, ckpt, mgr = make(tmp_path, max_to_keep=3)
    mgr.save()
    mgr.save(checkpoint_number=10)
    _, _, again = make(tmp_path, max_to_keep=3)
    assert [os.path.basename(p) for p in again.checkpoints] == ["ckpt-1", "ckpt-10"]
    assert again.latest_checkpoint.endswith("ckpt-10")


def test_restore_or_initialize_and_max_to_keep_none(tmp_path):
    called = []
    v, ckpt, mgr = make(tmp_path, max_to_keep=None, init_fn=lambda: called.append(1))
    assert mgr.restore_or_initialize() is None and called == [1]
    v.assign([1.0, 2.0, 3.0])
    for _ in range(3):
        mgr.save()
    assert len(mgr.checkpoints) == 3
    v.assign(np.zeros(3))
    assert mgr.restore_or_initialize().endswith("ckpt-3")
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0])


def test_checkpoint_interval_skips_early_saves(tmp_path):
    step = tf.Variable(0, dtype=tf.int64)
    v, ckpt, mgr = make(tmp_path, max_to_keep=5, step_counter=step, checkpoint_interval=10)
    assert mgr.save() is not None
    step.assign(5)
    assert mgr.save() is None
    assert mgr.save(check_interval=False) is not None
    step.assign(20)
    assert mgr.save() is not None
    with pytest.raises(ValueError, match="step_counter"):
        tf.train.CheckpointManager(ckpt, str(tmp_path), 3, checkpoint_interval=2)
    with pytest.raises(ValueError, match="max_to_keep"):
        tf.train.CheckpointManager(ckpt, str(tmp_path), 0)


def test_latest_checkpoint_none_when_missing(tmp_path):
    assert tf.train.latest_checkpoint(str(tmp_path)) is None
    manager_mod.write_state(str(tmp_path), str(tmp_path / "ckpt-9"), [str(tmp_path / "ckpt-9")])
    assert tf.train.latest_checkpoint(str(tmp_path)) is None  # named file does not exist


_SAVER = textwrap.dedent("""
    import sys, numpy as np
    sys.path.insert(0, {repo!r})
    import minitf as tf
    v = tf.Variable(np.zeros(200000))
    w = tf.Variable(np.zeros(1000))
    ckpt = tf.train.Checkpoint(v=v, w=w)
    mgr = tf.train.CheckpointManager(ckpt, {directory!r}, max_to_keep=2)
    i = 0
    print("ready", flush=True)
    while True:
        i += 1
        v.assign(np.full(200000, float(i)))
        w.assign(np.full(1000, float(i)))
        mgr.save()
""")


def test_sigkill_during_saves_leaves_a_restorable_latest(tmp_path):
    rng = random.Random(0)
    code = _SAVER.format(repo=REPO, directory=str(tmp_path))
    for trial in range(4):
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
        assert proc.stdout.readline().strip() == b"ready"
        time.sleep(rng.uniform(0.05, 0.4))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        latest = tf.train.latest_checkpoint(str(tmp_path))
        if latest is None:
            continue
        v, w = tf.Variable(np.ones(200000)), tf.Variable(np.ones(1000))
        tf.train.Checkpoint(v=v, w=w).restore(latest).expect_partial()
        value = v.numpy()[0]
        assert value >= 1 and np.all(v.numpy() == value) and np.all(w.numpy() == value)
    assert tf.train.latest_checkpoint(str(tmp_path)) is not None
    # the next manager on the directory removes what the killed saves left, and saves cleanly
    v, w = tf.Variable(np.ones(200000)), tf.Variable(np.ones(1000))
    mgr = tf.train.CheckpointManager(tf.train.Checkpoint(v=v, w=w), str(tmp_path), max_to_keep=2)
    mgr.save()
    assert [n for n in os.listdir(tmp_path) if ".tmp-" in n or ".old-" in n or ".new-" in n] == []


def test_a_new_manager_removes_leftover_temp_files(tmp_path):
    for name in (".ckpt-1.h5.tmp-0123456789ab", ".checkpoint.tmp-0123456789ab", ".ckpt-0.h5.old-0123456789ab"):
        (tmp_path / name).write_bytes(b"left by a killed save")
    (tmp_path / "notes.tmp-0123456789ab").write_bytes(b"a user's file")
    make(tmp_path, max_to_keep=2)
    assert sorted(os.listdir(tmp_path)) == ["notes.tmp-0123456789ab"]


_RESUME = textwrap.dedent("""
    import sys, numpy as np
    sys.path.insert(0, {repo!r})
    import minitf as tf

    class MLP(tf.Module):
        def __init__(self):
            super().__init__()
            rng = np.random.default_rng(42)
            self.w1 = tf.Variable(rng.normal(size=(4, 8)) * 0.5)
            self.w2 = tf.Variable(rng.normal(size=(8, 1)) * 0.5)

    def train(model, opt, steps):
        rng = np.random.default_rng(int(opt.iterations.numpy()))
        for _ in range(steps):
            x = tf.constant(rng.normal(size=(16, 4)))
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.matmul(tf.tanh(tf.matmul(x, model.w1)), model.w2) ** 2)
            grads = tape.gradient(loss, [model.w1, model.w2])
            opt.apply_gradients(zip(grads, [model.w1, model.w2]))

    model, opt = MLP(), tf.optimizers.Adam(0.01)
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    mode, path, out = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode == "first":
        train(model, opt, 5)
        ckpt.save_counter  # made now so write() saves it: restore() makes one to match (TF)
        ckpt.write(path)
    else:
        ckpt.restore(path).assert_existing_objects_matched()
        train(model, opt, 5)
    np.save(out, np.concatenate([model.w1.numpy().ravel(), model.w2.numpy().ravel()]))
""")


def test_exact_resume_in_fresh_process(tmp_path):
    script = tmp_path / "resume.py"
    script.write_text(_RESUME.format(repo=REPO))
    ck = str(tmp_path / "half")
    subprocess.run([sys.executable, str(script), "first", ck, str(tmp_path / "a.npy")], check=True)
    subprocess.run([sys.executable, str(script), "second", ck, str(tmp_path / "b.npy")], check=True)
    resumed = np.load(tmp_path / "b.npy")
    # Same code, 10 steps in one process.
    ns = {}
    exec(compile(_RESUME.format(repo=REPO).split("model, opt = MLP()")[0], "resume", "exec"), ns)
    model, opt = ns["MLP"](), tf.optimizers.Adam(0.01)
    ns["train"](model, opt, 5)
    ns["train"](model, opt, 5)
    straight = np.concatenate([model.w1.numpy().ravel(), model.w2.numpy().ravel()])
    np.testing.assert_array_equal(resumed, straight)
    assert not np.array_equal(resumed, np.load(tmp_path / "a.npy"))
