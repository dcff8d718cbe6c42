"""A full disk: one exception type (OSError ENOSPC naming the path), the previous checkpoint
intact, nothing advanced (save_counter, the manager's list, the state file), no temp files left,
and no crash. The tests mount a small tmpfs, so they run as root and skip otherwise."""
import errno
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import minitf as tf
from minitf.checkpoint import h5format, manager as manager_mod

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def small_disk(tmp_path):
    """A 1 MiB tmpfs at tmp_path/'disk' and a function that fills it to leave `free` bytes."""
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount_point)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")

    def leave_free(free):
        filler = mount_point / "filler"
        if filler.exists():
            filler.unlink()
        st = os.statvfs(mount_point)
        filler.write_bytes(b"\0" * max(0, st.f_bavail * st.f_frsize - free))
    try:
        yield mount_point, leave_free
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], capture_output=True)


def _temp_files(directory):
    return [n for n in os.listdir(directory) if ".tmp-" in n or ".new-" in n or ".old-" in n]


def test_checkpoint_save_on_a_full_disk(small_disk):
    disk, leave_free = small_disk
    v = tf.Variable(np.arange(1000.0))
    ckpt = tf.train.Checkpoint(v=v)
    first = ckpt.save(str(disk / "ckpt"))
    v.assign(np.zeros(1000) + 7.0)
    leave_free(4096)
    with pytest.raises(OSError) as info:
        ckpt.save(str(disk / "ckpt"))
    assert info.value.errno == errno.ENOSPC
    assert "ckpt-2" in str(info.value) and "intact" in str(info.value)
    assert int(ckpt.save_counter) == 1  # nothing advanced
    assert tf.train.latest_checkpoint(str(disk)) == first
    assert _temp_files(disk) == []
    w = tf.Variable(np.zeros(1000))
    tf.train.Checkpoint(v=w).restore(first)
    np.testing.assert_array_equal(w.numpy(), np.arange(1000.0))


def test_manager_state_matches_the_disk_after_a_failed_save(small_disk):
    disk, leave_free = small_disk
    v = tf.Variable(np.arange(2000.0))
    ckpt = tf.train.Checkpoint(v=v)
    mgr = tf.train.CheckpointManager(ckpt, str(disk), max_to_keep=2)
    first = mgr.save()
    leave_free(8192)
    with pytest.raises(OSError) as info:
        mgr.save()
    assert info.value.errno == errno.ENOSPC
    assert mgr.latest_checkpoint == first and mgr.checkpoints == [first]
    assert int(ckpt.save_counter) == 1
    assert tf.train.latest_checkpoint(str(disk)) == first
    assert tf.train.CheckpointManager(ckpt, str(disk), max_to_keep=2).checkpoints == [first]
    assert _temp_files(disk) == []


def test_manager_rolls_back_when_only_the_state_file_fails(tmp_path, monkeypatch):
    v = tf.Variable(np.arange(3.0))
    ckpt = tf.train.Checkpoint(v=v)
    mgr = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=1)
    first = mgr.save()

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", "checkpoint")
    monkeypatch.setattr(manager_mod, "write_state", full)
    with pytest.raises(OSError):
        mgr.save()
    # the new file is gone, the old one (max_to_keep=1 would have dropped it) is still there
    assert mgr.latest_checkpoint == first and mgr.checkpoints == [first]
    assert int(ckpt.save_counter) == 1
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-1.data-00000-of-00001", "ckpt-1.index"]
    monkeypatch.undo()
    assert mgr.save().endswith("ckpt-2")  # and the next save numbers on from there


def test_save_weights_on_a_full_disk_keeps_the_previous_file(small_disk):
    disk, leave_free = small_disk
    model = tf.keras.Sequential([tf.keras.layers.Dense(64)])
    model.build((None, 64))
    path = str(disk / "m.weights.h5")
    model.save_weights(path)
    before = [w.copy() for w in model.get_weights()]
    model.layers[0].kernel.assign(np.ones((64, 64)))
    leave_free(2048)
    with pytest.raises(OSError) as info:
        model.save_weights(path)
    assert info.value.errno == errno.ENOSPC and "m.weights.h5" in str(info.value)
    model.load_weights(path)
    for a, b in zip(model.get_weights(), before):
        np.testing.assert_array_equal(a, b)


_SAVE = textwrap.dedent("""
    import errno, os, sys
    import numpy as np
    sys.path.insert(0, {repo!r})
    import minitf as tf
    from minitf.checkpoint import h5format
    h5format._free_bytes = lambda directory: 10**12  # the disk fills after the free-space check
    h5format._ROOMY = {roomy}
    ckpt = tf.train.Checkpoint(v=tf.Variable(np.arange(30000.0)))
    try:
        ckpt.save(os.path.join(sys.argv[1], "ckpt"))
        print("saved")
    except OSError as e:
        print("ENOSPC" if e.errno == errno.ENOSPC else f"errno {{e.errno}}", int(ckpt.save_counter))
""")


@pytest.mark.parametrize("free", [0, 4096, 65536, 200000])
def test_a_disk_that_fills_mid_write_fails_cleanly_without_a_crash(small_disk, free):
    # With free space tight the file is built in memory and written by Python: HDF5 writing
    # into a full disk itself crashes the process (segfault) with h5py 3.16.
    disk, leave_free = small_disk
    leave_free(free)
    out = subprocess.run([sys.executable, "-c", _SAVE.format(repo=REPO, roomy="float('inf')"), str(disk)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["ENOSPC", "0"]
    assert [n for n in os.listdir(disk) if n != "filler"] == []


def test_free_space_is_checked_before_hdf5_starts(tmp_path, monkeypatch):
    monkeypatch.setattr(h5format, "_free_bytes", lambda directory: 100)
    with pytest.raises(OSError) as info:
        h5format.write_arrays(str(tmp_path / "a.h5"), {"x": np.zeros(1000)})
    assert info.value.errno == errno.ENOSPC and "a.h5" in str(info.value)
    assert os.listdir(tmp_path) == []
