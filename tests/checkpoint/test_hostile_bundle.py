"""Hostile TF-format checkpoints: every one is refused with DataLossError, quickly, changing
nothing, and nothing outside the checkpoint's own files is read.

Each case takes a good checkpoint written by minitf ('c.index' + 'c.data-00000-of-00001') and
damages it: truncated or bit-flipped files, symlinks (to /dev/zero, to another checkpoint's
files), FIFOs, directories, sparse files of gigabytes, and index tables rebuilt with valid
checksums around lying entries (offsets past the data, sizes that disagree with the shape,
huge shapes, wrong or unknown dtypes, other shards, slices, malformed protos, headers from the
future) or broken object graphs. The cases run through Checkpoint.restore and
tf.train.load_variable. A watchdog process opens each FIFO for writing when a reader blocks on
it (which would release it), and the case then counts as hung. Run this file as a script for the
counts (tried / refused / loaded wrongly / hung / other error).
"""
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

import minitf as tf
from minitf.errors import errors
from minitf.checkpoint import proto_wire, protos, sstable, tensor_bundle

KEY_W = "model/w/.ATTRIBUTES/VARIABLE_VALUE"
KEY_B = "model/b/.ATTRIBUTES/VARIABLE_VALUE"
GRAPH = "_CHECKPOINTABLE_OBJECT_GRAPH"
DATA = ".data-00000-of-00001"
TIME_LIMIT_S = 10.0


class Net(tf.Module):
    """Two float32 variables: w gets the hostile value, b stays good."""

    def __init__(self, seed):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.b = tf.Variable(rng.normal(size=2).astype(np.float32))
        self.w = tf.Variable(rng.normal(size=(3, 2)).astype(np.float32))


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
    os.close(fd)
"""


class FifoWatchdog:
    """A process that releases any reader blocked on FIFO `path` and records that it did."""

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


# -- editing files ---------------------------------------------------------------------------

def _items(s):
    with open(s.prefix + ".index", "rb") as f:
        return sstable.read_table(f.read(), 10**6)


def _write_index(s, items, sort=True):
    if sort:
        items = sorted(items)
    with open(s.prefix + ".index", "wb") as f:
        f.write(sstable.build_table(items))


def _edit_entry(key, **changes):
    """Rebuild the index (valid checksums) with entry `key`'s fields changed."""
    def mutate(s):
        items = []
        for k, v in _items(s):
            if k == key.encode():
                e = protos.decode_entry(v)
                fields = dict(dtype=e.dtype_enum, shape=e.shape, shard=e.shard_id, offset=e.offset,
                              size=e.size, crc=e.crc32c)
                fields.update(changes)
                v = protos.encode_entry(fields["dtype"], fields["shape"], fields["shard"],
                                        fields["offset"], fields["size"], fields["crc"])
                v += changes.get("extra", b"")
            items.append((k, v))
        _write_index(s, items)
        return key
    return mutate


def _raw_entry(key, value):
    def mutate(s):
        _write_index(s, [(k, value if k == key.encode() else v) for k, v in _items(s)])
        return key
    return mutate


def _header(**fields):
    def mutate(s):
        version = proto_wire.field_varint(1, 1)
        if "min_consumer" in fields:
            version += proto_wire.field_varint(2, fields["min_consumer"])
        header = proto_wire.field_varint(1, fields.get("num_shards", 1))
        if "endianness" in fields:
            header += proto_wire.field_varint(2, fields["endianness"])
        header += proto_wire.field_bytes(3, version)
        _write_index(s, [(k, header if k == b"" else v) for k, v in _items(s)])
        return ".index"
    return mutate


def _no_header(s):
    _write_index(s, [(k, v) for k, v in _items(s) if k != b""])
    return ".index"


def _unsorted(s):
    items = _items(s)
    _write_index(s, [items[0]] + list(reversed(items[1:])), sort=False)
    return ".index"


def _graph(nodes, named=GRAPH):
    """Replace the object graph by `nodes` (protos.ObjectNode list), entry and data kept valid;
    the refusal must name `named`."""
    def mutate(s):
        raw = protos.encode_object_graph(nodes(s) if callable(nodes) else nodes)
        _replace_string(s, GRAPH, raw)
        return named
    return mutate


def _replace_string(s, key, raw, lengths=None):
    """Append a string tensor holding `raw` to the data file and point `key` at it."""
    pieces, crc, size = tensor_bundle._tensor_bytes(tensor_bundle.BundleValue([raw], "string", ()))
    if lengths is not None:
        pieces[0] = lengths
        size = sum(len(p) for p in pieces)
    data_file = s.prefix + DATA
    offset = os.path.getsize(data_file)
    with open(data_file, "ab") as f:
        for piece in pieces:
            f.write(piece)
    _edit_entry(key, offset=offset, size=size, crc=tensor_bundle._mask(crc))(s)


def _good_graph_nodes(s):
    with tensor_bundle.BundleReader(s.prefix) as r:
        return protos.decode_object_graph(r.read_strings(r.entries[GRAPH])[0], 100)


def _graph_edit(edit, named=GRAPH):
    def nodes(s):
        graph = _good_graph_nodes(s)
        edit(graph)
        return graph
    return _graph(nodes, named)


def _file_op(suffix, op):
    def mutate(s):
        path = s.prefix + suffix
        op(s, path)
        return os.path.basename(path)
    return mutate


def _truncate(fraction):
    return lambda s, path: os.truncate(path, int(os.path.getsize(path) * fraction))


def _flip(offset_of):
    def op(s, path):
        data = bytearray(open(path, "rb").read())
        data[offset_of(s, data)] ^= 0x20
        open(path, "wb").write(bytes(data))
    return op


def _entry_offset(key):
    def at(s, data):
        with tensor_bundle.BundleReader(s.prefix) as r:
            e = r.entries[key]
            return e.offset + e.size // 2
    return at


def _symlink_to(target):
    def op(s, path):
        os.remove(path)
        os.symlink(target(s) if callable(target) else target, path)
    return op


def _fifo(s, path):
    os.remove(path)
    os.mkfifo(path)
    s.fifos.append(path)


def _directory(s, path):
    os.remove(path)
    os.mkdir(path)


def _sparse(size):
    def op(s, path):
        with open(path, "r+b") as f:
            f.truncate(size)
    return op


def _huge_w_in_sparse_data(s):
    data_file = s.prefix + DATA
    offset = os.path.getsize(data_file)
    with open(data_file, "r+b") as f:
        f.truncate(offset + (8 << 30))  # 8 GiB that occupy no disk
    return _edit_entry(KEY_W, shape=[1 << 30, 2], offset=offset, size=8 << 30)(s)


def _extra_sparse_value(s):
    """An extra 8 GiB value no variable takes (a restore would read it for later use)."""
    data_file = s.prefix + DATA
    offset = os.path.getsize(data_file)
    with open(data_file, "r+b") as f:
        f.truncate(offset + (8 << 30))
    items = _items(s)
    items.append((b"model/zzz/.ATTRIBUTES/VARIABLE_VALUE",
                  protos.encode_entry(1, [1 << 31], 0, offset, 8 << 30, 0)))
    _write_index(s, items)
    return "model/zzz/.ATTRIBUTES/VARIABLE_VALUE"


def _donor_data(s):
    return s.donor + DATA


def _donor_index(s):
    return s.donor + ".index"


CASES = {
    "data file truncated to half": _file_op(DATA, _truncate(0.5)),
    "data file empty": _file_op(DATA, _truncate(0)),
    "data file missing": _file_op(DATA, lambda s, p: os.remove(p)),
    "bit flipped in w's bytes": _file_op(DATA, _flip(_entry_offset(KEY_W))),
    "data file a symlink to another checkpoint's data": _file_op(DATA, _symlink_to(_donor_data)),
    "data file a symlink to /dev/zero": _file_op(DATA, _symlink_to("/dev/zero")),
    "data file a FIFO": _file_op(DATA, _fifo),
    "data file a directory": _file_op(DATA, _directory),
    "index truncated to half": _file_op(".index", _truncate(0.5)),
    "index empty": _file_op(".index", _truncate(0)),
    "bit flipped in the index's data block": _file_op(".index", _flip(lambda s, d: 20)),
    "bit flipped in the index footer magic": _file_op(".index", _flip(lambda s, d: len(d) - 3)),
    "index a symlink to another checkpoint's index": _file_op(".index", _symlink_to(_donor_index)),
    "index a symlink to /dev/zero": _file_op(".index", _symlink_to("/dev/zero")),
    "index a FIFO": _file_op(".index", _fifo),
    "index a sparse 3 GiB file": _file_op(".index", _sparse(3 << 30)),
    "keys out of order (checksums valid)": _unsorted,
    "no bundle header": _no_header,
    "header: 0 shards": _header(num_shards=0),
    "header: 1,000,000 shards": _header(num_shards=10**6),
    "header: big-endian": _header(endianness=1),
    "header: version from the future": _header(min_consumer=7),
    "w's offset past the data": _edit_entry(KEY_W, offset=1 << 40),
    "w's offset negative": _edit_entry(KEY_W, offset=-8),
    "w's size larger than its shape": _edit_entry(KEY_W, size=48),
    "w's size negative": _edit_entry(KEY_W, size=-24),
    "w's crc32c wrong": _edit_entry(KEY_W, crc=12345),
    "w pointing at b's bytes": _edit_entry(KEY_W, offset=0, size=8, shape=[1, 2]),
    "w declared (50000, 50000) in a sparse 8 GiB data file": _huge_w_in_sparse_data,
    "an extra 8 GiB value in a sparse data file": _extra_sparse_value,
    "w declared float64": _edit_entry(KEY_W, dtype=2, size=48),
    "w declared int8": _edit_entry(KEY_W, dtype=6, size=6),
    "w declared complex64": _edit_entry(KEY_W, dtype=8, size=48),
    "w declared a string": _edit_entry(KEY_W, dtype=7),
    "w with unknown dtype enum 99": _edit_entry(KEY_W, dtype=99),
    "w in shard 3 of 1": _edit_entry(KEY_W, shard=3),
    "w a slice of a partitioned variable": _edit_entry(KEY_W, extra=proto_wire.field_bytes(7, b"")),
    "w's entry proto truncated": _raw_entry(KEY_W, b"\x08\x01\x12\x08\x12"),
    "w's entry proto with an overlong varint": _raw_entry(KEY_W, b"\x20" + b"\xff" * 11),
    "w's shape of rank 300": _edit_entry(KEY_W, shape=[1] * 300),
    "object graph: a child id out of range": _graph_edit(
        lambda g: g[0].children.append(("evil", 10**6))),
    "object graph: a key that is not stored": _graph_edit(
        lambda g: g[-1].attributes.__setitem__(0, ("VARIABLE_VALUE", "x", "no/such/key")), "no/such/key"),
    "object graph: not a proto": lambda s: (_replace_string(s, GRAPH, b"\xff" * 64), GRAPH)[1],
    "object graph: string lengths lie": lambda s: (
        _replace_string(s, GRAPH, b"abc", lengths=proto_wire.varint(1 << 40)), GRAPH)[1],
    "object graph: w's node holds b's key": _graph_edit(
        lambda g: [n.attributes.__setitem__(0, ("VARIABLE_VALUE", "x", KEY_B)) for n in g
                   if n.attributes and n.attributes[0][2] == KEY_W], KEY_B),
}
# Cases hostile only where a variable sets the expectation (tf.train.load_variable of w reads
# what the file declares); graph cases concern restores only.
NEEDS_VARIABLE = {"w declared float64", "w declared int8", "w declared complex64",
                  "w pointing at b's bytes", "object graph: a child id out of range",
                  "object graph: a key that is not stored", "object graph: not a proto",
                  "object graph: string lengths lie", "object graph: w's node holds b's key",
                  "an extra 8 GiB value in a sparse data file"}
ENTRY_POINTS = ("Checkpoint.restore", "tf.train.load_variable")


def applies(entry, case):
    """Whether `case` is hostile for `entry` (see NEEDS_VARIABLE)."""
    return not (entry == "tf.train.load_variable" and case in NEEDS_VARIABLE)


class Setup:
    """A good checkpoint under `directory`, a donor checkpoint with other values."""

    def __init__(self, directory):
        self.dir, self.fifos = directory, []
        self.model = Net(0)
        self.prefix = tf.train.Checkpoint(model=self.model).write(os.path.join(directory, "c"))
        donor = Net(0)
        donor.w.assign(np.full((3, 2), 7.0, np.float32))  # loading this would be loading wrongly
        self.donor = tf.train.Checkpoint(model=donor).write(os.path.join(directory, "donor"))

    def load(self, entry):
        """Load through `entry`, noting the target's variables before and after."""
        if entry == "Checkpoint.restore":
            target = Net(1)
            variables = [target.b, target.w]
            load = lambda: tf.train.Checkpoint(model=target).restore(self.prefix)  # noqa: E731
        else:
            variables = []
            load = lambda: tf.train.load_variable(self.prefix, KEY_W)  # noqa: E731
        self.before = [v.numpy().copy() for v in variables]
        try:
            return load()
        finally:
            self.after = [v.numpy() for v in variables]


def run_case(entry, case, directory):
    """('refused' | 'loaded wrongly' | 'hung' | 'other error', detail) for one case."""
    setup = Setup(directory)
    named = CASES[case](setup)
    watchdogs = [FifoWatchdog(p) for p in setup.fifos]
    start = time.monotonic()
    error = None
    try:
        setup.load(entry)
    except Exception as e:  # classified below
        error = e
    finally:
        for w in watchdogs:
            w.stop()
    elapsed = time.monotonic() - start
    if any(w.released for w in watchdogs) or elapsed > TIME_LIMIT_S:
        return "hung", f"{elapsed:.1f}s"
    if error is None:
        return "loaded wrongly", "no error"
    if not isinstance(error, errors.DataLossError):
        return "other error", f"{type(error).__name__}: {error}"
    message = str(error)
    if "c.index" not in message and "c.data" not in message or named not in message:
        return "other error", f"message does not name the file and {named!r}: {message}"
    changed = [i for i, (a, b) in enumerate(zip(setup.before, setup.after)) if not np.array_equal(a, b)]
    if changed:
        return "loaded wrongly", f"refused, but variables {changed} were changed (half-load)"
    return "refused", message


def _cases():
    return [(e, c) for e in ENTRY_POINTS for c in CASES if applies(e, c)]


@pytest.mark.parametrize("entry,case", _cases())
def test_hostile_bundle_is_refused(entry, case, tmp_path):
    outcome, detail = run_case(entry, case, str(tmp_path))
    assert outcome == "refused", detail


def test_a_good_checkpoint_loads_and_cycles_in_its_graph_do_not_hang(tmp_path):
    setup = Setup(str(tmp_path))
    _graph_edit(lambda g: g[1].children.append(("loop", 0)))(setup)  # model/loop -> the root
    target = Net(1)
    tf.train.Checkpoint(model=target).read(setup.prefix).assert_existing_objects_matched()
    np.testing.assert_array_equal(target.w.numpy(), setup.model.w.numpy())
    assert tf.train.load_variable(setup.prefix, KEY_W).tobytes() == setup.model.w.numpy().tobytes()


def test_shape_mismatch_is_both_value_error_and_data_loss(tmp_path):
    setup = Setup(str(tmp_path))
    CASES["w declared (50000, 50000) in a sparse 8 GiB data file"](setup)
    with pytest.raises(ValueError, match=r"1073741824, 2") as info:
        setup.load("Checkpoint.restore")
    assert isinstance(info.value, errors.DataLossError)


if __name__ == "__main__":
    counts = {}
    for entry, case in _cases():
        with tempfile.TemporaryDirectory() as d:
            outcome, detail = run_case(entry, case, d)
        counts[outcome] = counts.get(outcome, 0) + 1
        print(f"{outcome:15s} {entry:24s} {case}: {detail[:150]}")
    print(f"tried {sum(counts.values())}: {counts}")
    sys.exit(0 if set(counts) == {"refused"} else 1)
