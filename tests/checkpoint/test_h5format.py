"""The HDF5 file layer: atomic replacement, freeing the replaced file, attributes."""
import os
import threading

import numpy as np
import pytest

from minitf.checkpoint import h5format, temp_files


def _wait_for_cleanup():
    for thread in threading.enumerate():
        if thread.name == "minitf-ckpt-cleanup":
            thread.join(5)


def _hidden(directory):
    return sorted(n for n in os.listdir(directory) if n.startswith("."))


def test_rewrite_replaces_content_and_frees_old_file(tmp_path):
    path = str(tmp_path / "c.h5")
    h5format.write_arrays(path, {"a": np.arange(4.0)})
    first_inode = os.stat(path).st_ino
    h5format.write_arrays(path, {"a": np.arange(4.0) + 1, "b": np.ones(2, np.int32)})
    _wait_for_cleanup()
    assert os.stat(path).st_ino != first_inode  # a new file was renamed in
    values = h5format.read_arrays(path)
    np.testing.assert_array_equal(values["a"], np.arange(4.0) + 1)
    assert values["b"].dtype == np.int32
    assert _hidden(tmp_path) == []  # neither temp files nor second names are left


def test_leftovers_of_killed_saves_are_removed_on_next_write(tmp_path):
    path = str(tmp_path / "c.h5")
    h5format.write_arrays(path, {"a": np.zeros(3)})
    stale = [tmp_path / ".c.h5.old-deadbeef0000", tmp_path / ".d.h5.old-deadbeef0001",  # extra names
             tmp_path / ".c.h5.tmp-deadbeef0002", tmp_path / ".ckpt-3.h5.tmp-0123456789ab",  # unlocked
             tmp_path / ".checkpoint.new-0123456789ab"]  # killed between its creation and its lock
    for leftover in stale:
        leftover.write_bytes(b"left by a killed process")
    kept = [tmp_path / ".c.h5.tmp-notours", tmp_path / ".hidden", tmp_path / "c.h5.tmp-deadbeef0003"]
    for other in kept:  # not minitf's temp-name pattern: never touched
        other.write_bytes(b"x")
    live = temp_files.TempFile(str(tmp_path), "e.h5")  # another save, still writing
    try:
        h5format.write_arrays(path, {"a": np.ones(3)})
        _wait_for_cleanup()
        assert sorted(os.listdir(tmp_path)) == sorted(
            [p.name for p in kept] + ["c.h5", os.path.basename(live.path)])
    finally:
        live.close()
    assert temp_files.remove_stale(str(tmp_path)) == 1  # once its writer let go, it is a leftover


def test_failed_write_keeps_old_file_and_leaves_nothing(tmp_path):
    path = str(tmp_path / "c.h5")
    h5format.write_arrays(path, {"a": np.arange(3.0)})
    with pytest.raises(TypeError):
        h5format.write_arrays(path, {"a": np.arange(3.0), "bad": object()})
    np.testing.assert_array_equal(h5format.read_arrays(path)["a"], np.arange(3.0))
    _wait_for_cleanup()
    assert _hidden(tmp_path) == []


def test_attributes_round_trip_as_text(tmp_path):
    path = str(tmp_path / "c.h5")
    h5format.write_arrays(path, {"a": np.zeros(1)}, attrs={"object_aliases": '{"x": "y"}'})
    values, attrs = h5format.read_checkpoint(path)
    assert attrs == {"object_aliases": '{"x": "y"}'}
    assert list(values) == ["a"]
