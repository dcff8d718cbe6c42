"""The 'checkpoint' state file as untrusted input, managers that share a directory, and the
scratch folders of killed `.keras` saves.

Hostile state files (a symlink to /dev/zero, a FIFO, a huge file, a directory, paths that lead
out of the directory) are built here and pointed at latest_checkpoint, get_checkpoint_state and
CheckpointManager: nothing may hang, read a device, or touch a file outside the directory.
"""
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import warnings

import numpy as np
import pytest

import minitf as tf
from minitf.errors import errors
from minitf.checkpoint import state_file, temp_files

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TF_WRITTEN = """model_checkpoint_path: "ckpt-3"
all_model_checkpoint_paths: "ckpt-2"
all_model_checkpoint_paths: "ckpt-3"
all_model_checkpoint_timestamps: 1795846706.5293043
all_model_checkpoint_timestamps: 1795846707.25
last_preserved_timestamp: 1795846705.3911042
"""


def test_parses_what_tf_writes_and_writes_it_back():
    state = state_file.parse(TF_WRITTEN)
    assert state["model_checkpoint_path"] == "ckpt-3"
    assert state["all_model_checkpoint_paths"] == ["ckpt-2", "ckpt-3"]
    assert state["all_model_checkpoint_timestamps"] == [1795846706.5293043, 1795846707.25]
    text = state_file.format_state("/d", "/d/ckpt-3", ["/d/ckpt-2", "/d/ckpt-3"],
                                   state["all_model_checkpoint_timestamps"], state["last_preserved_timestamp"])
    assert text == TF_WRITTEN


def test_text_format_escapes_comments_and_quotes():
    odd = 'a"b\\c\'d\né\t'
    text = state_file.format_state("/d", "/d/" + odd, [])
    assert text == 'model_checkpoint_path: "a\\"b\\\\c\\\'d\\n\\303\\251\\t"\n'
    assert state_file.parse(text)["model_checkpoint_path"] == odd
    assert state_file.parse("# a comment\n  model_checkpoint_path :'x'  # trailing\n")[
        "model_checkpoint_path"] == "x"
    assert state_file.parse('model_checkpoint_path: "\\x41\\101"')["model_checkpoint_path"] == "AA"
    for bad in ['model_checkpoint_path: "abc', 'hello world', 'model_checkpoint_path: 3',
                'all_model_checkpoint_timestamps: "x"', 'model_checkpoint_path: "\\q"']:
        with pytest.raises(ValueError):
            state_file.parse(bad)


def test_unparsable_state_is_ignored_with_a_warning_as_tf_does(tmp_path):
    (tmp_path / "checkpoint").write_text("hello world\n")
    with pytest.warns(UserWarning, match="Checkpoint ignored"):
        assert tf.train.latest_checkpoint(str(tmp_path)) is None


def _fifo_released_after(path, call):
    """Run `call` while a watchdog releases any reader blocked on FIFO `path`; (result or
    error, whether a reader blocked, seconds)."""
    marker = path + ".opened"
    code = ("import os, sys, time\n"
            "while True:\n"
            "    try: fd = os.open(sys.argv[1], os.O_WRONLY | os.O_NONBLOCK)\n"
            "    except OSError: time.sleep(0.02); continue\n"
            "    open(sys.argv[2], 'w').close(); os.close(fd)\n")
    watchdog = subprocess.Popen([sys.executable, "-S", "-c", code, path, marker])
    start = time.monotonic()
    try:
        try:
            outcome = call()
        except Exception as e:  # returned for the caller to check
            outcome = e
    finally:
        watchdog.kill()
        watchdog.wait()
    return outcome, os.path.exists(marker), time.monotonic() - start


def _hostile_state(directory, kind):
    path = os.path.join(directory, "checkpoint")
    if kind == "symlink to /dev/zero":
        os.symlink("/dev/zero", path)
    elif kind == "symlink to a real state file":
        other = os.path.join(directory, "elsewhere")
        with open(other, "w") as f:
            f.write(TF_WRITTEN)
        os.symlink(other, path)
    elif kind == "FIFO":
        os.mkfifo(path)
    elif kind == "sparse 1 GiB file":
        with open(path, "wb") as f:
            f.truncate(1 << 30)
    elif kind == "directory":
        os.mkdir(path)
    return path


HOSTILE = ["symlink to /dev/zero", "symlink to a real state file", "FIFO", "sparse 1 GiB file", "directory"]
READERS = {
    "latest_checkpoint": lambda d: tf.train.latest_checkpoint(d),
    "get_checkpoint_state": lambda d: tf.train.get_checkpoint_state(d),
    "CheckpointManager": lambda d: tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), d, 2),
}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("kind", HOSTILE)
def test_hostile_state_file_is_refused_at_once(kind, reader, tmp_path):
    path = _hostile_state(str(tmp_path), kind)
    outcome, blocked, seconds = _fifo_released_after(path, lambda: READERS[reader](str(tmp_path)))
    assert not blocked and seconds < 5
    assert isinstance(outcome, errors.DataLossError) and isinstance(outcome, ValueError), outcome
    assert "checkpoint" in str(outcome) and str(tmp_path) in str(outcome)


def test_manager_replaces_a_refused_state_file_only_by_rename(tmp_path):
    # the user removes the hostile file; a symlink left in its place is replaced, never followed
    target = tmp_path / "target"
    target.write_text("keep me\n")
    os.symlink(str(target), str(tmp_path / "checkpoint"))
    with pytest.raises(errors.DataLossError):
        tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), str(tmp_path), 2)
    os.remove(tmp_path / "checkpoint")
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), str(tmp_path), 2)
    manager.save()
    assert target.read_text() == "keep me\n"


def _victims(root):
    """Files outside the checkpoint directory that a hostile state file names."""
    victim = os.path.join(root, "victim")
    os.makedirs(victim)
    paths = {}
    for name in ("thesis.txt", "thesis.txt.index", "thesis.txt.h5", "thesis.txt.data-00000-of-00001",
                 "ckpt-1", "ckpt-1.index", "ckpt-1.data-00000-of-00001"):
        paths[name] = os.path.join(victim, name)
        with open(paths[name], "w") as f:
            f.write(f"precious {name}\n")
    return paths


@pytest.mark.parametrize("named", ["../victim/thesis.txt", "../victim/ckpt-1", "ABS/victim/thesis.txt",
                                   "ABS/victim/ckpt-1", "sub/../../victim/ckpt-1"])
def test_state_file_naming_outside_paths_touches_nothing_outside(named, tmp_path):
    victims = _victims(str(tmp_path))
    directory = tmp_path / "ckpts"
    directory.mkdir()
    named = named.replace("ABS", str(tmp_path))
    (directory / "checkpoint").write_text(f'model_checkpoint_path: "{named}"\n'
                                          f'all_model_checkpoint_paths: "{named}"\n')
    with pytest.warns(UserWarning, match="not a checkpoint inside"):
        assert tf.train.latest_checkpoint(str(directory)) is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), str(directory), 1)
        assert manager.latest_checkpoint is None and manager.checkpoints == []
        for _ in range(3):
            manager.save()
    for name, path in victims.items():
        with open(path) as f:
            assert f.read() == f"precious {name}\n"
    assert tf.train.latest_checkpoint(str(directory)) == str(directory / "ckpt-3")


def test_absolute_path_inside_the_directory_is_kept(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(2.0))
    path = ckpt.write(str(tmp_path / "ckpt-4"))
    (tmp_path / "checkpoint").write_text(f'model_checkpoint_path: "{path}"\n'
                                         f'all_model_checkpoint_paths: "{path}"\n')
    assert tf.train.latest_checkpoint(str(tmp_path)) == path
    assert tf.train.CheckpointManager(ckpt, str(tmp_path), 1).checkpoints == [path]


def test_manager_deletes_only_its_own_checkpoint_files(tmp_path):
    d = str(tmp_path)
    keep = ["notes", "notes.index", "ckpt-1", "ckpt-1.txt", "ckpt-1.data-00000-of-00001.bak",
            "ckpt-10.index.orig", "model-1.index", "model-1.data-00000-of-00001"]
    for name in keep:
        (tmp_path / name).write_text("user file\n")
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    ckpt.write(os.path.join(d, "ckpt-1"))  # a real old checkpoint of this manager: may go
    (tmp_path / "checkpoint").write_text(
        'model_checkpoint_path: "ckpt-1"\nall_model_checkpoint_paths: "notes"\n'
        'all_model_checkpoint_paths: "model-1"\nall_model_checkpoint_paths: "ckpt-1"\n')
    manager = tf.train.CheckpointManager(ckpt, d, max_to_keep=1)
    assert [os.path.basename(p) for p in manager.checkpoints] == ["notes", "model-1", "ckpt-1"]
    for _ in range(3):
        manager.save()
    left = sorted(os.listdir(d))
    assert all(name in left for name in keep)
    assert "ckpt-1.index" not in left and "ckpt-3.index" in left


_RACER = textwrap.dedent("""
    import sys, traceback, numpy as np
    sys.path.insert(0, {repo!r})
    import minitf as tf
    directory, saves, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    v = tf.Variable(np.full(1000, seed, np.float32))
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), directory, max_to_keep=2)
    failures = 0
    for _ in range(saves):
        try:
            manager.save()
        except Exception:
            failures += 1
            traceback.print_exc()
    print("failures", failures)
""")


def test_two_managers_racing_on_one_directory_never_fail(tmp_path):
    code = _RACER.format(repo=REPO)
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path), "250", str(seed)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for seed in (1, 2)]
    outputs = [p.communicate(timeout=600) for p in procs]
    failures = [int(out.split()[-1]) for out, _ in outputs]
    assert failures == [0, 0], [err[-2000:] for _, err in outputs]
    latest = tf.train.latest_checkpoint(str(tmp_path))
    if latest is not None:  # whichever save won, it restores to one of the two values
        v = tf.Variable(np.zeros(1000, np.float32))
        tf.train.Checkpoint(v=v).restore(latest).expect_partial()
        assert float(v.numpy()[0]) in (1.0, 2.0) and np.all(v.numpy() == v.numpy()[0])
    assert not [n for n in os.listdir(tmp_path) if ".tmp-" in n or ".new-" in n]


# -- scratch folders of killed .keras saves ----------------------------------------------------

_KERAS_SAVER = textwrap.dedent("""
    import sys
    sys.path.insert(0, {repo!r})
    import numpy as np
    import minitf as tf
    model = tf.keras.Sequential([tf.keras.Input((512,)), tf.keras.layers.Dense(2048),
                                 tf.keras.layers.Dense(2048)])
    print("ready", flush=True)
    while True:
        model.save(sys.argv[1])
""")


def _scratch(directory):
    return sorted(n for n in os.listdir(directory) if n.startswith(temp_files.KERAS_SCRATCH))


def test_killed_keras_saves_leave_folders_that_the_next_save_removes(tmp_path, monkeypatch):
    scratch_root = tmp_path / "tmp"
    scratch_root.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch_root))
    code = _KERAS_SAVER.format(repo=REPO)
    killed = []
    for _ in range(4):
        proc = subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "m.keras")], env=env,
                                stdout=subprocess.PIPE)
        assert proc.stdout.readline().strip() == b"ready"
        mine = f"{temp_files.KERAS_SCRATCH}{proc.pid}-"
        deadline = time.time() + 60
        while time.time() < deadline and not any(n.startswith(mine) for n in _scratch(scratch_root)):
            time.sleep(0.002)  # kill it while its scratch folder exists: mid-save
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        killed.append(mine)
        left = _scratch(scratch_root)
        assert any(n.startswith(mine) for n in left)  # the killed save left its folder...
        assert not any(n.startswith(k) for k in killed[:-1] for n in left)  # ...earlier ones went
    # a live process's folder: this process, with its own start time (a save is under way)
    live = temp_files.scratch_folder()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch_root))
    live_path = live.__enter__()
    try:
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
        model.save(str(tmp_path / "small.keras"))
        assert _scratch(scratch_root) == [os.path.basename(live_path)]
    finally:
        live.__exit__(None, None, None)
    assert _scratch(scratch_root) == []


def test_scratch_staleness_is_decided_by_pid_and_start_time(tmp_path):
    start = temp_files._start_time(os.getpid())
    if start is temp_files._UNKNOWN:
        pytest.skip("no /proc: staleness cannot be decided, so nothing is removed")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    made = {"dead": f"{temp_files.KERAS_SCRATCH}{dead}-12345-abc",
            "reused pid": f"{temp_files.KERAS_SCRATCH}{os.getpid()}-{start + 1}-abc",
            "live": f"{temp_files.KERAS_SCRATCH}{os.getpid()}-{start}-abc",
            "other name": f"{temp_files.KERAS_SCRATCH}abc"}
    for name in made.values():
        os.mkdir(tmp_path / name)
    (tmp_path / f"{temp_files.KERAS_SCRATCH}{dead}-1-file").write_text("a file, not a folder")
    assert temp_files.remove_stale_scratch(str(tmp_path)) == 2
    assert sorted(os.listdir(tmp_path)) == sorted([made["live"], made["other name"],
                                                   f"{temp_files.KERAS_SCRATCH}{dead}-1-file"])
