"""The one way minitf reads HDF5 files: checked before a byte of data is read.

Checkpoints, '.weights.h5' files and Keras application weight files can come from anywhere, so
an HDF5 file is treated as hostile until shown otherwise. Opening one (`SafeH5`) walks every
link without following any and refuses, with DataLossError naming the file, the object and the
problem:
  * soft links, external links and user-defined links (an external link can point at another
    file, a device or a FIFO that blocks forever);
  * datasets whose raw data lives in other files (external storage) or that are views of other
    files (virtual datasets), checked before the dataset's extent is asked for, since working
    out a virtual dataset's extent opens its source files;
  * chunks far larger than the dataset, storage that reaches past the end of the file, and
    filters other than HDF5's built-in deflate, shuffle, fletcher32, n-bit and scale-offset.
Reading a dataset then checks its declared shape and dtype against what the caller expects
(the variable being restored) before reading; a read with no expectation must fit in a budget
set by the file's size, so a small file cannot make minitf allocate gigabytes. Deflated chunks
are inflated once with a bounded buffer before HDF5 reads them, since HDF5's own inflate grows
its buffer for as long as the stream goes on. A fletcher32 mismatch is "Checksum does not
match". Callers check everything they need first and assign only afterwards.

Writing: `create_dataset` adds a fletcher32 checksum to every dataset that can carry one
(all but 0-d ones, which HDF5 cannot chunk).
"""
import os
import stat
import zlib

import h5py
import numpy as np

from minitf.errors import errors

__all__ = ["SafeH5", "Entry", "IncompatibleValueError", "create_dataset", "refusal", "join"]

_NOWHERE = b"/nonexistent-minitf-refuses-outside-files/"
# HDF5's built-in filters; anything else would need a plugin loaded on the file's say-so.
_FILTERS = {h5py.h5z.FILTER_DEFLATE: "deflate", h5py.h5z.FILTER_SHUFFLE: "shuffle",
            h5py.h5z.FILTER_FLETCHER32: "fletcher32", h5py.h5z.FILTER_NBIT: "nbit",
            h5py.h5z.FILTER_SCALEOFFSET: "scaleoffset"}
_CHUNK_FLOOR = 4 << 20       # chunks up to this size are fine whatever the dataset's size
_BUDGET_FLOOR = 64 << 20     # reads with no expected shape: this much plus...
_BUDGET_PER_FILE_BYTE = 16   # ...this many bytes per byte of file
_ATTR_LIMIT = 16 << 20
_NUMERIC = "biufc"


class IncompatibleValueError(errors.DataLossError, ValueError):
    """A stored value whose declared shape or dtype is not the one the variable needs.

    A ValueError, as TF and Keras raise for a mismatched restore, and a DataLossError, as
    minitf raises for every file it refuses to read.
    """


def refusal(kind, filepath, obj, what, cls=errors.DataLossError):
    """The error for refusing `obj` (a path inside the file; '' for the file itself)."""
    where = f", object {'/' + obj!r}" if obj else ""
    return cls(None, None, f"{kind} {filepath!r}{where}: {what}")


def join(group, name):
    """The path of `name` inside group path `group` ('' is the root)."""
    return f"{group}/{name}" if group else name


def create_dataset(group, name, data):
    """Write `data` as dataset `name` of `group`, with a fletcher32 checksum unless 0-d."""
    array = np.asarray(data)
    if array.ndim == 0:
        return group.create_dataset(name, data=array)
    return group.create_dataset(name, data=array, fletcher32=True)


class Entry:
    """One dataset found by the walk: its path, declared shape and dtype (nothing read yet)."""

    __slots__ = ("path", "shape", "dtype", "nbytes", "filters", "layout", "_id")

    def __init__(self, path, dataset_id, shape, dtype, filters, layout):
        self.path, self._id = path, dataset_id
        self.shape, self.dtype, self.filters, self.layout = shape, dtype, filters, layout
        self.nbytes = int(np.prod(shape, dtype=object)) * dtype.itemsize

    @property
    def numeric(self):
        """Whether the dataset holds plain numbers (no strings, records, references)."""
        return (self.dtype.kind in _NUMERIC and self.dtype.names is None
                and self.dtype.subdtype is None)

    @property
    def checksummed(self):
        """Whether HDF5 verifies a fletcher32 checksum when reading it."""
        return h5py.h5z.FILTER_FLETCHER32 in self.filters


def _native(dtype):
    return dtype.newbyteorder("=") if dtype.byteorder not in "=|" else dtype


class SafeH5:
    """An HDF5 file opened for reading after a walk that refuses what minitf will not read.

    `entries` maps each dataset's path to its `Entry`; `groups` is the set of group paths ('' is
    the root); `members(group)` lists a group's link names. Use as a context manager.
    """

    def __init__(self, filepath, kind="HDF5 file"):
        self.filepath, self.kind = os.fspath(filepath), kind
        self.entries, self.groups, self._members, self._gids = {}, set(), {}, {}
        self._budget = None
        try:
            st = os.stat(self.filepath)
        except OSError as e:
            raise errors.NotFoundError(None, None, f"{kind} {self.filepath!r} cannot be "
                                       f"found: {e.strerror}.") from None
        if not stat.S_ISREG(st.st_mode):
            # A FIFO or device would block or stream forever; only regular files are read.
            raise self._refuse("", "is not a regular file; minitf reads weights and "
                               "checkpoints only from regular files.")
        self.size = st.st_size
        self._budget = _BUDGET_FLOOR + _BUDGET_PER_FILE_BYTE * self.size
        try:
            self._file = h5py.File(self.filepath, "r")
        except Exception as e:  # h5py raises OSError, sometimes other types, for bad files
            raise self._refuse("", f"is truncated or corrupt and cannot be opened as HDF5: "
                               f"{e}") from None
        self._dapl = h5py.h5p.create(h5py.h5p.DATASET_ACCESS)
        # Belt and braces: even if some path asked HDF5 to open an outside file, it finds none.
        self._dapl.set_efile_prefix(_NOWHERE)
        self._dapl.set_virtual_prefix(_NOWHERE)
        try:
            self._walk(h5py.h5g.open(self._file.id, b"/"), "", set())
        except errors.DataLossError:
            self.close()
            raise
        except Exception as e:
            self.close()
            raise self._refuse("", f"has a damaged structure: {e}") from None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Close the file (entries can no longer be read)."""
        f, self._file = getattr(self, "_file", None), None
        if f is not None:
            f.close()

    def _refuse(self, obj, what, cls=errors.DataLossError):
        return refusal(self.kind, self.filepath, obj, what, cls)

    # -- the walk -------------------------------------------------------------------------
    def _walk(self, gid, path, seen):
        address = h5py.h5o.get_info(gid).addr
        if address in seen:
            return  # the same group linked twice (or a cycle): walked once is enough
        seen.add(address)
        self.groups.add(path)
        self._gids[path] = gid
        names = []
        for raw in gid:
            name = raw.decode("utf-8", "surrogateescape")
            child = join(path, name)
            names.append(name)
            link = gid.links.get_info(raw).type
            if link == h5py.h5l.TYPE_SOFT:
                raise self._refuse(child, "is a soft link; minitf does not follow links.")
            if link == h5py.h5l.TYPE_EXTERNAL:
                raise self._refuse(child, "is an external link to another file; minitf never "
                                   "follows links out of the file it was asked to read.")
            if link != h5py.h5l.TYPE_HARD:
                raise self._refuse(child, f"is a user-defined link (type {link}); minitf does "
                                   "not follow links.")
            kind = h5py.h5o.get_info(gid, raw).type
            if kind == h5py.h5o.TYPE_GROUP:
                self._walk(h5py.h5g.open(gid, raw), child, seen)
            elif kind == h5py.h5o.TYPE_DATASET:
                self.entries[child] = self._dataset(h5py.h5d.open(gid, raw, self._dapl), child)
        self._members[path] = names

    def _dataset(self, did, path):
        dcpl = did.get_create_plist()
        layout = dcpl.get_layout()
        # Both checks come before anything asks for the extent (get_space), because a virtual
        # dataset's extent is worked out by opening its source files.
        if layout == h5py.h5d.VIRTUAL:
            raise self._refuse(path, "is a virtual dataset (a view of other files); minitf reads "
                               "only data stored in the file itself.")
        if dcpl.get_external_count() > 0:
            raise self._refuse(path, "keeps its raw data in external files; minitf reads only "
                               "data stored in the file itself.")
        filters = []
        for i in range(dcpl.get_nfilters()):
            code = dcpl.get_filter(i)[0]
            if code not in _FILTERS:
                raise self._refuse(path, f"uses HDF5 filter {code}, which minitf does not read "
                                   f"(it reads {sorted(_FILTERS.values())}).")
            filters.append(code)
        space = did.get_space()
        if space.get_simple_extent_type() not in (h5py.h5s.SIMPLE, h5py.h5s.SCALAR):
            raise self._refuse(path, "has an empty (null) dataspace, not a tensor.")
        shape = tuple(int(n) for n in space.shape)
        try:
            dtype = _native(did.dtype)
        except Exception as e:
            raise self._refuse(path, f"has an HDF5 datatype with no numpy equivalent: {e}") from None
        entry = Entry(path, did, shape, dtype, filters, layout)
        self._check_storage(entry, dcpl)
        return entry

    def _check_storage(self, entry, dcpl):
        did, path = entry._id, entry.path
        stored = did.get_storage_size()
        if stored > self.size:
            raise self._refuse(path, f"claims {stored} bytes of storage in a file of "
                               f"{self.size} bytes.")
        if entry.layout == h5py.h5d.CONTIGUOUS:
            offset = did.get_offset()
            if offset is not None and offset + stored > self.size:
                raise self._refuse(path, f"has data at bytes {offset}..{offset + stored}, past the "
                                   f"end of the {self.size}-byte file (truncated).")
            if stored and stored != entry.nbytes:
                raise self._refuse(path, f"declares {entry.nbytes} bytes ({entry.shape}, "
                                   f"{entry.dtype}) but stores {stored}.")
        elif entry.layout == h5py.h5d.CHUNKED:
            chunk = dcpl.get_chunk()
            chunk_bytes = int(np.prod(chunk, dtype=object)) * entry.dtype.itemsize
            if chunk_bytes > max(_CHUNK_FLOOR, 2 * entry.nbytes):
                raise self._refuse(path, f"has chunks of {chunk_bytes} bytes for {entry.nbytes} "
                                   "bytes of data; refusing to allocate them.")

    # -- attributes -----------------------------------------------------------------------
    def members(self, group):
        """The link names in group path `group` (None if there is no such group)."""
        return self._members.get(group)

    def attr_names(self, group):
        """The attribute names of group `group` (none for a missing group)."""
        gid = self._gids.get(group)
        if gid is None:
            return []
        names = []
        h5py.h5a.iterate(gid, lambda name, *_: names.append(name.decode("utf-8", "replace")))
        return names

    def attr(self, group, name):
        """Attribute `name` of group `group`: text for strings, a list of text for string
        arrays, numpy values otherwise; None if absent. Refuses oversized or odd attributes."""
        gid = self._gids.get(group)
        raw = name.encode()
        if gid is None or not h5py.h5a.exists(gid, raw):
            return None
        obj = join(group, f"@{name}")
        try:
            aid = h5py.h5a.open(gid, raw)
            dtype, shape = aid.dtype, aid.shape
            count = int(np.prod(shape, dtype=object)) if shape is not None else 0
            # (Variable-length strings live in the file's heap: their size is bounded by it.)
            if count * dtype.itemsize > _ATTR_LIMIT:
                raise self._refuse(obj, f"is an attribute of {count} x {dtype.itemsize} bytes; "
                                   "refusing one that large.")
            string = h5py.check_string_dtype(dtype) is not None or dtype.kind in "SU"
            if not string and (dtype.kind not in _NUMERIC or dtype.names or dtype.subdtype):
                raise self._refuse(obj, f"is an attribute of dtype {dtype}, not text or numbers.")
            value = h5py.AttributeManager(h5py.Group(gid))[name]
        except errors.DataLossError:
            raise
        except Exception as e:
            raise self._refuse(obj, f"is an attribute that cannot be read: {e}") from None
        return _as_text(value) if string else value

    # -- reading --------------------------------------------------------------------------
    def check_value(self, entry, shape=None, dtype=None, cast=False):
        """Refuse `entry` unless it is numeric and, when given, of `shape` and `dtype`
        (with `cast`, of any numeric dtype convertible to it). Reads nothing."""
        if not entry.numeric:
            raise self._refuse(entry.path, f"has dtype {entry.dtype}, not a numeric tensor.")
        if shape is not None and tuple(entry.shape) != tuple(shape):
            raise self._refuse(entry.path, f"has shape {entry.shape} where {tuple(shape)} is "
                               "expected; the shapes must match to load it.", IncompatibleValueError)
        if dtype is None:
            return
        dtype = np.dtype(dtype)
        if cast:
            ok = (entry.dtype.kind == "c") == (dtype.kind == "c")
        else:
            ok = entry.dtype == dtype
        if not ok:
            raise self._refuse(entry.path, f"has dtype {entry.dtype} where {dtype} is expected; "
                               "the dtypes must match to load it.", IncompatibleValueError)

    def check_budget(self, entries):
        """Refuse unless `entries`, read with no expected shape, fit the file's read budget."""
        total = sum(e.nbytes for e in entries)
        if total > self._budget:
            worst = max(entries, key=lambda e: e.nbytes)
            raise self._refuse(worst.path, f"declares {worst.nbytes} bytes ({worst.shape}, "
                               f"{worst.dtype}); with the file's other unexpected values that is "
                               f"{total} bytes, more than a {self.size}-byte file can plausibly "
                               "hold. Refusing to read it.")

    def read(self, entry, shape=None, dtype=None, cast=False):
        """Check `entry` (see `check_value`; with no `shape`, against the budget too) and read
        it as a numpy array of `dtype` (default: its own dtype, in native byte order)."""
        self.check_value(entry, shape, dtype, cast)
        if shape is None:
            self.check_budget([entry])
            self._budget -= entry.nbytes
        target = np.dtype(dtype) if dtype is not None else entry.dtype
        try:
            if h5py.h5z.FILTER_DEFLATE in entry.filters:
                self._check_inflation(entry)
            value = np.asarray(h5py.Dataset(entry._id)[()])
        except errors.DataLossError:
            raise
        except Exception as e:
            if entry.checksummed:
                raise self._refuse(entry.path, f"Checksum does not match: the stored data is "
                                   f"corrupt ({e}).") from None
            raise self._refuse(entry.path, f"the stored data cannot be read: {e}") from None
        return value.astype(target, copy=False)

    def _check_inflation(self, entry):
        """Inflate each deflated chunk with a bounded buffer; refuse one that would grow past
        its chunk size (HDF5's own inflate would keep allocating)."""
        did = entry._id
        chunk_bytes = int(np.prod(did.get_create_plist().get_chunk(), dtype=object)) \
            * entry.dtype.itemsize
        order = entry.filters
        deflate_at = order.index(h5py.h5z.FILTER_DEFLATE)
        after = order[deflate_at + 1:]
        if any(code != h5py.h5z.FILTER_FLETCHER32 for code in after):
            raise self._refuse(entry.path, f"applies filters {[_FILTERS[c] for c in after]} after "
                               "deflate; minitf cannot bound what that inflates to.")
        for i in range(did.get_num_chunks()):
            info = did.get_chunk_info(i)
            if info.filter_mask & (1 << deflate_at):
                continue  # stored without deflate
            mask, raw = did.read_direct_chunk(info.chunk_offset)
            if after and not mask & (1 << (deflate_at + 1)):
                raw = raw[:-4]  # the fletcher32 checksum, checked by HDF5 when it reads
            if _inflated_size(raw, chunk_bytes) > chunk_bytes:
                raise self._refuse(entry.path, f"has a deflated chunk at {info.chunk_offset} that "
                                   f"inflates to more than its {chunk_bytes} bytes (a "
                                   "decompression bomb). Refusing to read it.")


def _inflated_size(raw, limit):
    """How many bytes zlib stream `raw` inflates to, counting no further than `limit` + 1."""
    inflater = zlib.decompressobj()
    total, data = 0, bytes(raw)
    while data and total <= limit:
        try:
            out = inflater.decompress(data, min(1 << 20, limit + 1 - total))
        except zlib.error:
            return 0  # not ours to judge: HDF5 reports the corrupt stream when it reads
        total += len(out)
        data = inflater.unconsumed_tail
        if inflater.eof or not out:
            break
    return total


def _as_text(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.ndarray):
        return [_as_text(v) for v in value.reshape(-1).tolist()]
    return str(value)
