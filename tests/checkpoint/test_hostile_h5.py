"""Hostile HDF5 files: every one is refused with DataLossError, quickly, changing nothing.

Each case takes a good file written by minitf (checkpoint or '.weights.h5') and replaces one
value, or the group holding it, with something built by h5py: links out of the file (to a real
file whose values would load "successfully", and to a FIFO that blocks whoever opens it), soft
links, external raw storage, virtual datasets, non-numeric dtypes, declared shapes far bigger
than the variable, decompression bombs, wrong dtypes, and a flipped byte under a checksum. The
cases run through Checkpoint.restore, model.load_weights and tf.train.load_variable.

No load may hang: a watchdog thread opens each FIFO for writing as soon as a reader waits on it
(which would release the reader) and the case then counts as hung. Run this file as a script
for the counts (tried / refused / loaded wrongly / hung / other error).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

import h5py
import numpy as np
import pytest

import minitf as tf
from minitf.errors import errors
from minitf.applications.imagenet_utils import imagenet_utils
from minitf.checkpoint import safe_h5
from minitf.checkpoint.checkpoint import write_hdf5

KEY_W = "model/w/.ATTRIBUTES/VARIABLE_VALUE"
KEY_KERNEL = "layers/dense/vars/0"
TIME_LIMIT_S = 10.0


class Net(tf.Module):
    """Two float32 variables: the kernel gets the hostile value, the bias stays good."""

    def __init__(self, seed):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.b = tf.Variable(rng.normal(size=2).astype(np.float32))
        self.w = tf.Variable(rng.normal(size=(3, 2)).astype(np.float32))


def _keras_model():
    return tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4),
                                tf.keras.layers.Dense(2)])


_WATCHDOG = """
import os, sys, time
fifo, marker = sys.argv[1], sys.argv[2]
while True:
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # ENXIO unless a reader is waiting
    except OSError:
        time.sleep(0.02)
        continue
    open(marker, "w").close()
    os.close(fd)  # the reader sees end of file and fails instead of waiting forever
"""


class FifoWatchdog:
    """A separate process that opens FIFO `path` for writing whenever a reader blocks on it,
    releasing the reader, and records that it happened (the load would have hung). A process,
    not a thread: h5py keeps the GIL while HDF5 blocks in open()."""

    def __init__(self, path):
        self.marker = path + ".opened"
        self._proc = subprocess.Popen([sys.executable, "-S", "-c", _WATCHDOG, path, self.marker])

    @property
    def released(self):
        """Whether some reader opened the FIFO."""
        return os.path.exists(self.marker)

    def stop(self):
        """End the watchdog process."""
        self._proc.kill()
        self._proc.wait()


# -- the hostile values ----------------------------------------------------------------------
# Each mutation gets (h5 file open r+, dataset key, the Setup) and replaces the value at key
# (or its group); it returns the object path the refusal must name.

def _replace(f, key, make):
    del f[key]
    make(f, key)
    return key


def ext_link_file(f, key, s):
    return _replace(f, key, lambda f, k: f.__setitem__(k, h5py.ExternalLink(s.donor, "/" + k)))


def ext_link_fifo(f, key, s):
    return _replace(f, key, lambda f, k: f.__setitem__(k, h5py.ExternalLink(s.fifo, "/" + k)))


def _group_of(key):
    return key.split("/")[0] if key.startswith("model/") else "layers/dense"


def group_ext_link_file(f, key, s):
    group = _group_of(key)
    del f[group]
    f[group] = h5py.ExternalLink(s.donor, "/" + group)
    return group


def group_ext_link_fifo(f, key, s):
    group = _group_of(key)
    del f[group]
    f[group] = h5py.ExternalLink(s.fifo, "/" + group)
    return group


def soft_link(f, key, s):
    f.create_dataset("decoy", data=s.donor_value)  # what following the link would load
    return _replace(f, key, lambda f, k: f.__setitem__(k, h5py.SoftLink("/decoy")))


def external_storage_file(f, key, s):
    raw = os.path.join(s.dir, "raw.bin")
    s.donor_value.tofile(raw)
    return _replace(f, key, lambda f, k: f.create_dataset(
        k, s.shape, s.dtype, external=[(raw, 0, s.donor_value.nbytes)]))


def external_storage_fifo(f, key, s):
    return _replace(f, key, lambda f, k: f.create_dataset(
        k, s.shape, s.dtype, external=[(s.fifo, 0, h5py.h5f.UNLIMITED)]))


def virtual_file(f, key, s):
    layout = h5py.VirtualLayout(shape=s.shape, dtype=s.dtype)
    layout[...] = h5py.VirtualSource(s.donor, s.key, shape=s.shape)
    return _replace(f, key, lambda f, k: f.create_virtual_dataset(k, layout))


def virtual_fifo_unlimited(f, key, s):
    # An unlimited mapping: HDF5 opens the source to work out the extent, which blocks on a FIFO.
    maxshape = (None,) + s.shape[1:]
    layout = h5py.VirtualLayout(shape=s.shape, maxshape=maxshape, dtype=s.dtype)
    source = h5py.VirtualSource(s.fifo, "x", shape=s.shape, maxshape=maxshape)
    layout[:h5py.h5s.UNLIMITED] = source[:h5py.h5s.UNLIMITED]
    return _replace(f, key, lambda f, k: f.create_virtual_dataset(k, layout))


def _typed(dtype, fill):
    def mutate(f, key, s):
        data = np.empty(s.shape, dtype)
        data[...] = np.array(fill, dtype=dtype)
        return _replace(f, key, lambda f, k: f.create_dataset(k, data=data))
    return mutate


def vlen_string(f, key, s):
    return _replace(f, key, lambda f, k: f.create_dataset(k, s.shape, dtype=h5py.string_dtype()))


def vlen_float(f, key, s):
    return _replace(f, key, lambda f, k: f.create_dataset(k, s.shape, dtype=h5py.vlen_dtype("f4")))


def reference(f, key, s):
    return _replace(f, key, lambda f, k: f.create_dataset(k, s.shape, dtype=h5py.ref_dtype))


def array_typed(f, key, s):
    return _replace(f, key, lambda f, k: f.create_dataset(k, s.shape[:1], dtype=("f4", s.shape[1:])))


def null_space(f, key, s):
    return _replace(f, key, lambda f, k: f.create_dataset(k, data=h5py.Empty("f4")))


def huge_declared(f, key, s):
    # 10 GB declared, nothing written: the file stays a few KB.
    return _replace(f, key, lambda f, k: f.create_dataset(k, (50000, 50000), "f4", chunks=(1024, 1024)))


def gzip_bomb(f, key, s):
    # 1 GiB of zeros in 4 MiB gzip chunks (about 4 KB each): a ~1 MB file.
    def make(f, k):
        ds = f.create_dataset(k, (16384, 16384), "f4", chunks=(1024, 1024), compression="gzip")
        chunk = zlib.compress(bytes(1024 * 1024 * 4), 9)
        for i in range(0, 16384, 1024):
            for j in range(0, 16384, 1024):
                ds.id.write_direct_chunk((i, j), chunk)
    return _replace(f, key, make)


def chunk_bomb(f, key, s):
    # The variable's own shape in one tiny chunk whose deflate stream inflates to 64 MiB.
    def make(f, k):
        ds = f.create_dataset(k, s.shape, s.dtype, chunks=s.shape, compression="gzip")
        ds.id.write_direct_chunk((0,) * len(s.shape), zlib.compress(bytes(64 << 20), 9))
    return _replace(f, key, make)


def huge_chunks(f, key, s):
    return _replace(f, key, lambda f, k: f.create_dataset(
        k, s.shape, s.dtype, maxshape=(None, None), chunks=(8192, 8192)))


def lzf_filter(f, key, s):
    return _replace(f, key, lambda f, k: f.create_dataset(k, data=s.donor_value, compression="lzf"))


def wrong_shape(f, key, s):
    return _replace(f, key, lambda f, k: f.create_dataset(k, data=np.zeros((2, 2), s.dtype)))


def flipped_byte(f, key, s):
    info = f[key].id.get_chunk_info(0)
    s.flip_at = info.byte_offset + info.size // 2  # applied once the file is closed
    return key


CASES = {
    "external link to a real file": ext_link_file,
    "external link to a FIFO": ext_link_fifo,
    "group external link to a real file": group_ext_link_file,
    "group external link to a FIFO": group_ext_link_fifo,
    "soft link": soft_link,
    "external raw storage in a real file": external_storage_file,
    "external raw storage in a FIFO": external_storage_fifo,
    "virtual dataset over a real file": virtual_file,
    "virtual dataset, unlimited, over a FIFO": virtual_fifo_unlimited,
    "fixed-length string dtype": _typed("S8", b"1.5"),
    "variable-length string dtype": vlen_string,
    "compound dtype": _typed([("re", "f4"), ("im", "f4")], (1.0, 2.0)),
    "opaque dtype": _typed("V4", b"\x00\x00\x80\x3f"),
    "variable-length float dtype": vlen_float,
    "object reference dtype": reference,
    "array-typed elements": array_typed,
    "null dataspace": null_space,
    "declared shape (50000, 50000)": huge_declared,
    "gzip bomb: 1 GiB of zeros": gzip_bomb,
    "deflate chunk inflating to 64 MiB": chunk_bomb,
    "chunks of 256 MiB": huge_chunks,
    "non-built-in filter (lzf)": lzf_filter,
    "complex dtype": _typed("c8", 1 + 2j),
    "float64 where float32 is expected": _typed("f8", 1.5),
    "int8 where float32 is expected": _typed("i1", 3),
    "wrong shape (2, 2)": wrong_shape,
    "flipped byte under a fletcher32 checksum": flipped_byte,
}
# Legitimate for a load with no variable to compare with (tf.train.load_variable), or cast
# silently by Keras' load_weights: refused only where an expectation exists.
NEEDS_VARIABLE = {"float64 where float32 is expected", "int8 where float32 is expected", "complex dtype",
                  "wrong shape (2, 2)"}
CAST_BY_KERAS = {"float64 where float32 is expected", "int8 where float32 is expected"}
ENTRY_POINTS = ("Checkpoint.restore", "model.load_weights", "tf.train.load_variable")


def applies(entry, case):
    """Whether `case` is hostile for `entry` (see NEEDS_VARIABLE and CAST_BY_KERAS)."""
    if entry == "tf.train.load_variable" and case in NEEDS_VARIABLE:
        return False
    return not (entry == "model.load_weights" and case in CAST_BY_KERAS)


class Setup:
    """A good file for `entry` under `directory`, a donor copy with other values, a FIFO."""

    def __init__(self, entry, directory):
        self.dir, self.entry, self.flip_at = directory, entry, None
        self.fifo = os.path.join(directory, "fifo")
        os.mkfifo(self.fifo)
        if entry == "model.load_weights":
            self.model = _keras_model()
            self.path = os.path.join(directory, "m.weights.h5")
            self.model.save_weights(self.path)
            self.key = KEY_KERNEL
        else:
            self.model = Net(0)
            # minitf's older HDF5 checkpoint format (restores still read it)
            self.prefix = write_hdf5(tf.train.Checkpoint(model=self.model), os.path.join(directory, "c"))
            self.path = self.prefix + ".h5"
            self.key = KEY_W
        self.donor = os.path.join(directory, "donor.h5")
        shutil.copy(self.path, self.donor)
        with h5py.File(self.donor, "r+") as f:
            f[self.key][...] = 7.0  # loading this would be loading wrongly
            self.donor_value = f[self.key][()]
        self.shape, self.dtype = self.donor_value.shape, self.donor_value.dtype

    def mutate(self, case):
        with h5py.File(self.path, "r+") as f:
            obj = CASES[case](f, self.key, self)
        if self.flip_at is not None:
            with open(self.path, "r+b") as fh:
                fh.seek(self.flip_at)
                byte = fh.read(1)[0]
                fh.seek(self.flip_at)
                fh.write(bytes([byte ^ 0x5A]))
        return obj

    def load(self):
        """Load the file through the entry point, noting the target's variables before and
        after (`before`, `after`) to check that a refused load changed none of them."""
        if self.entry == "Checkpoint.restore":
            target = Net(1)
            variables = [target.b, target.w]
            load = lambda: tf.train.Checkpoint(model=target).restore(self.prefix)  # noqa: E731
        elif self.entry == "model.load_weights":
            target = _keras_model()
            variables = target.weights
            load = lambda: target.load_weights(self.path)  # noqa: E731
        else:
            variables = []
            load = lambda: tf.train.load_variable(self.prefix, KEY_W)  # noqa: E731
        self.before = [v.numpy().copy() for v in variables]
        try:
            load()
        finally:
            self.after = [v.numpy() for v in variables]


def run_case(entry, case, directory):
    """('refused' | 'loaded wrongly' | 'hung' | 'other error', detail) for one case."""
    setup = Setup(entry, directory)
    obj = setup.mutate(case)
    watchdog = FifoWatchdog(setup.fifo)
    start = time.monotonic()
    error = None
    try:
        setup.load()
    except Exception as e:  # classified below
        error = e
    finally:
        watchdog.stop()
    elapsed = time.monotonic() - start
    if watchdog.released or elapsed > TIME_LIMIT_S:
        return "hung", f"{elapsed:.1f}s, FIFO opened: {watchdog.released}"
    if error is None:
        return "loaded wrongly", "no error"
    if not isinstance(error, errors.DataLossError):
        return "other error", f"{type(error).__name__}: {error}"
    message = str(error)
    if os.path.basename(setup.path) not in message or obj not in message:
        return "other error", f"message does not name the file and {obj!r}: {message}"
    changed = [i for i, (a, b) in enumerate(zip(setup.before, setup.after))
               if not np.array_equal(a, b)]
    if changed:
        return "loaded wrongly", f"refused, but variables {changed} were changed (half-load)"
    return "refused", message


def _cases():
    return [(e, c) for e in ENTRY_POINTS for c in CASES if applies(e, c)]


@pytest.mark.parametrize("entry,case", _cases())
def test_hostile_file_is_refused(entry, case, tmp_path):
    outcome, detail = run_case(entry, case, str(tmp_path))
    assert outcome == "refused", detail


@pytest.mark.parametrize("entry", ["Checkpoint.restore", "model.load_weights"])
def test_refused_load_changes_no_variable(entry, tmp_path):
    # Only the kernel is bad; the bias (and the other layer) must not be assigned either.
    setup = Setup(entry, str(tmp_path))
    setup.mutate("wrong shape (2, 2)")
    with pytest.raises(errors.DataLossError):
        setup.load()
    assert len(setup.before) >= 2
    for a, b in zip(setup.before, setup.after):
        np.testing.assert_array_equal(a, b)


def test_refusals_say_checksum_and_where(tmp_path):
    setup = Setup("Checkpoint.restore", str(tmp_path))
    setup.mutate("flipped byte under a fletcher32 checksum")
    with pytest.raises(errors.DataLossError, match=r"c\.h5.*model/w.*Checksum does not match"):
        setup.load()


def test_shape_mismatch_is_both_value_error_and_data_loss(tmp_path):
    setup = Setup("Checkpoint.restore", str(tmp_path))
    setup.mutate("declared shape (50000, 50000)")
    with pytest.raises(ValueError, match=r"\(50000, 50000\)") as info:
        setup.load()
    assert isinstance(info.value, errors.DataLossError)
    assert isinstance(info.value, safe_h5.IncompatibleValueError)


def test_fifo_as_the_file_itself_is_not_opened(tmp_path):
    fifo = str(tmp_path / "c.h5")
    os.mkfifo(fifo)
    watchdog = FifoWatchdog(fifo)
    try:
        with pytest.raises(errors.DataLossError, match="not a regular file"):
            safe_h5.SafeH5(fifo, "Checkpoint file")
        with pytest.raises(errors.NotFoundError):
            tf.train.Checkpoint(v=tf.Variable(1.0)).restore(str(tmp_path / "c"))
    finally:
        watchdog.stop()
    assert not watchdog.released


def test_hard_link_cycle_loads_once(tmp_path):
    src = Net(0)
    prefix = write_hdf5(tf.train.Checkpoint(model=src), str(tmp_path / "c"))
    with h5py.File(prefix + ".h5", "r+") as f:
        f["model/loop"] = f["/"]  # a group that contains itself, through the root
    dst = Net(1)
    tf.train.Checkpoint(model=dst).restore(prefix).expect_partial()
    np.testing.assert_array_equal(dst.w.numpy(), src.w.numpy())
    assert tf.train.list_variables(prefix) == [("_CHECKPOINTABLE_OBJECT_GRAPH", []),
                                               ("model/b/.ATTRIBUTES/VARIABLE_VALUE", [2]),
                                               ("model/w/.ATTRIBUTES/VARIABLE_VALUE", [3, 2])]


def test_written_datasets_carry_checksums_and_old_files_load(tmp_path):
    net = Net(0)
    prefix = write_hdf5(tf.train.Checkpoint(model=net, step=tf.Variable(3)), str(tmp_path / "c"))
    with h5py.File(prefix + ".h5", "r") as f:
        assert f[KEY_W].fletcher32 and not f["step/.ATTRIBUTES/VARIABLE_VALUE"].fletcher32  # 0-d
    model = _keras_model()
    model.save_weights(str(tmp_path / "m.weights.h5"))
    with h5py.File(tmp_path / "m.weights.h5", "r") as f:
        assert f[KEY_KERNEL].fletcher32
    # A file without checksums (older minitf, Keras) still loads.
    with h5py.File(prefix + ".h5", "r+") as f:
        value = f[KEY_W][()]
        del f[KEY_W]
        f.create_dataset(KEY_W, data=value)
    dst = Net(1)
    tf.train.Checkpoint(model=dst, step=tf.Variable(0)).restore(prefix)
    np.testing.assert_array_equal(dst.w.numpy(), net.w.numpy())


def test_legacy_application_weights_refuse_links_and_checksum_errors(tmp_path):
    model = _keras_model()
    path = str(tmp_path / "legacy.h5")
    imagenet_utils.save_legacy_h5_weights(model, path)
    with h5py.File(path, "r") as f:
        group = [k for k in f if f[k].attrs.get("weight_names") is not None and len(f[k].attrs["weight_names"])][0]
        names = [n.decode() for n in f[group].attrs["weight_names"]]
    key = f"{group}/{names[0]}"
    bad = str(tmp_path / "bad.h5")
    shutil.copy(path, bad)
    with h5py.File(bad, "r+") as f:
        del f[key]
        f[key] = h5py.ExternalLink(path, "/" + key)
    with pytest.raises(errors.DataLossError, match="external link"):
        imagenet_utils.load_legacy_h5_weights(_keras_model(), bad)
    with h5py.File(path, "r") as f:
        info = f[key].id.get_chunk_info(0)
    data = bytearray(open(path, "rb").read())
    data[info.byte_offset + 1] ^= 0xFF
    open(path, "wb").write(bytes(data))
    with pytest.raises(errors.DataLossError, match="Checksum does not match"):
        imagenet_utils.load_legacy_h5_weights(_keras_model(), path)


if __name__ == "__main__":
    counts = {}
    for entry, case in _cases():
        with tempfile.TemporaryDirectory() as d:
            outcome, detail = run_case(entry, case, d)
        counts[outcome] = counts.get(outcome, 0) + 1
        print(f"{outcome:15s} {entry:24s} {case}: {detail[:150]}")
    print(f"tried {sum(counts.values())}: {counts}")
    sys.exit(0 if set(counts) == {"refused"} else 1)
