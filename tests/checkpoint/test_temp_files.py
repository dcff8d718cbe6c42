"""Temp files of atomic saves: locked while written, found and removed once their writer died."""
import os

import pytest

from minitf.checkpoint import temp_files

pytestmark = pytest.mark.skipif(temp_files.fcntl is None, reason="flock is POSIX-only")


def test_a_live_temp_file_is_locked_and_kept(tmp_path):
    live = temp_files.TempFile(str(tmp_path), "ckpt-1.h5")
    assert os.path.basename(live.path).startswith(".ckpt-1.h5.tmp-")
    assert temp_files.remove_stale(str(tmp_path)) == 0 and os.path.exists(live.path)
    live.close()
    assert temp_files.remove_stale(str(tmp_path)) == 1 and os.listdir(tmp_path) == []


def test_a_cleaner_racing_the_creation_makes_the_writer_start_again(tmp_path, monkeypatch):
    real_flock, raced = temp_files.fcntl.flock, []

    def flock_after_a_cleaner(fd, op):
        if not raced:  # a cleaner removes the file in the instant before it is locked
            raced.append([n for n in os.listdir(tmp_path) if ".new-" in n])
            assert temp_files.remove_stale(str(tmp_path)) == 1
        return real_flock(fd, op)
    monkeypatch.setattr(temp_files.fcntl, "flock", flock_after_a_cleaner)
    made = temp_files.TempFile(str(tmp_path), "c.h5")
    try:
        assert len(raced[0]) == 1 and os.listdir(tmp_path) == [os.path.basename(made.path)]
    finally:
        made.close()
