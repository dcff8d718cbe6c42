"""RaggedTensor: rows of different lengths, stored as flat values plus row partitions.

A RaggedTensor holds `values` (a Tensor, or another RaggedTensor for deeper raggedness) and
`row_splits` (int64): row i is `values[row_splits[i]:row_splits[i + 1]]`. Every op on a ragged
tensor is an op on its `flat_values` Tensor, so GradientTape differentiates through ragged code
the way it does through dense code; the partitions are plain integers and carry no gradient.
"""
import numpy as np

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.ops._core import Op, Tensor, thread_state, as_tensor, record
from minitf.ops.gather import gather, gather_nd
from minitf.ops.shaping import concat, reshape
from minitf.sparse.sparse_tensor import SparseTensor
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["RaggedTensor", "is_ragged"]

TO_TENSOR = Op("RaggedTensorToTensor")


@export("ragged.is_ragged")
def is_ragged(value):
    """True for a RaggedTensor."""
    return isinstance(value, RaggedTensor)


def _int_array(value, what, op_name):
    """An int64 numpy vector from a list, array or integer tensor (TypeError for floats)."""
    arr = np.asarray(value.numpy() if isinstance(value, Tensor) else value)
    if arr.size == 0:
        return arr.astype(np.int64).reshape(-1)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{op_name}: {what} must be integers, got dtype {arr.dtype}; pass int32 or "
                        f"int64 values")
    if arr.ndim != 1:
        raise ValueError(f"Shape {list(arr.shape)} must have rank 1: {op_name} takes a vector of {what}")
    return arr.astype(np.int64)


def _fail(op_name, condition, what, detail):
    """TF's InvalidArgumentError for partition arguments that do not form a ragged tensor."""
    return errors.InvalidArgumentError(
        None, None, f"Arguments to {op_name} do not form a valid {what}\n{condition}\n{detail}")


def _check_splits(splits, nvals, op_name, what="RaggedTensor"):
    if splits.size == 0:
        raise ValueError(f"{op_name}: row_splits must have at least one element (the leading 0)")
    if splits[0] != 0:
        raise _fail(op_name, "Condition x == y did not hold.", what + ":zero",
                    f"First 1 elements of x:\n[{splits[0]}]\nFirst 1 elements of y:\n[0]\n"
                    f"row_splits must start at 0")
    steps = np.diff(splits)
    if (steps < 0).any():
        raise _fail(op_name, "Condition x >= 0 did not hold element-wise:", what + ":monotonic.",
                    f"x = row_splits[1:] - row_splits[:-1] = {steps.tolist()}; row_splits must not decrease")
    if splits[-1] != nvals:
        raise _fail("_from_row_partition", "Condition x == y did not hold.", "RaggedTensor",
                    f"First 1 elements of x:\n[{splits[-1]}]\nFirst 1 elements of y:\n[{nvals}]\n"
                    f"({op_name}: the last row split must equal the number of values, {nvals})")


def _as_values(values, dtype=None):
    if isinstance(values, RaggedTensor):
        return values
    return as_tensor(values, dtype=dtype) if dtype is not None else as_tensor(values)


@export("RaggedTensor", "ragged.RaggedTensor")
class RaggedTensor:
    """A tensor whose rows may differ in length; build one with a `from_*` factory or
    `tf.ragged.constant`, never with the constructor."""

    __slots__ = ("_values", "_row_splits", "_splits_np", "_uniform_row_length", "__weakref__")

    def __init__(self, values, row_splits, internal=False, uniform_row_length=None, row_splits_dtype=None):
        if not internal:
            raise ValueError("RaggedTensor constructor is private; please use one of the factory methods "
                             "instead (e.g., RaggedTensor.from_row_lengths())")
        self._values = values
        self._splits_np = np.asarray(row_splits, dtype=np.int64)
        # the partitions compute in int64 on the host; int32 (TF's other choice) shows in row_splits
        splits_np_dtype = np.int32 if row_splits_dtype == dtypes.int32 else np.int64
        self._row_splits = Tensor(self._splits_np.astype(splits_np_dtype))
        self._uniform_row_length = uniform_row_length

    # -- factories ---------------------------------------------------------------------------
    @classmethod
    def _make(cls, values, splits, uniform_row_length=None, row_splits_dtype=None):
        return cls(values, splits, internal=True, uniform_row_length=uniform_row_length,
                   row_splits_dtype=row_splits_dtype)

    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """Rows `values[row_splits[i]:row_splits[i + 1]]`; row_splits starts at 0, never decreases
        and ends at len(values)."""
        values = _as_values(values)
        splits = _int_array(row_splits, "row_splits", "from_row_splits")
        if validate:
            _check_splits(splits, _nrows(values), "from_row_splits")
        return cls._make(values, splits)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """Rows of the given (non-negative) lengths, which must add up to len(values)."""
        values = _as_values(values)
        lengths = _int_array(row_lengths, "row_lengths", "from_row_lengths")
        if validate and (lengths < 0).any():
            raise _fail("from_row_lengths", "Condition x >= 0 did not hold element-wise:", "RowPartition.",
                        f"x = row_lengths = {lengths.tolist()}; lengths must be non-negative")
        splits = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        if validate:
            _check_splits(splits, _nrows(values), "from_row_lengths")
        return cls._make(values, splits)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """Value i goes to row value_rowids[i] (sorted, non-negative); `nrows` adds empty rows."""
        values = _as_values(values)
        rowids = _int_array(value_rowids, "value_rowids", "from_value_rowids")
        if rowids.size != _nrows(values):
            raise ValueError(f"Shapes ({_nrows(values)},) and ({rowids.size},) are incompatible: "
                             f"from_value_rowids needs one row id per value")
        if validate and rowids.size and ((rowids < 0).any() or (np.diff(rowids) < 0).any()):
            raise _fail("from_value_rowids", "Condition x >= 0 did not hold element-wise:", "RowPartition.",
                        f"x = value_rowids = {rowids.tolist()}; row ids must be non-negative and sorted")
        n = int(rowids[-1]) + 1 if rowids.size else 0
        if nrows is not None:
            nrows = int(nrows.numpy() if isinstance(nrows, Tensor) else nrows)
            if validate and nrows < n:
                raise _fail("from_value_rowids", "Condition x <= y did not hold.", "RowPartition.",
                            f"nrows={nrows} is smaller than the largest row id + 1 ({n})")
            n = nrows
        lengths = np.bincount(rowids, minlength=n) if rowids.size else np.zeros(n, np.int64)
        return cls._make(values, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64))

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        """Rows starting at `row_starts` (first 0); the last row runs to the end of `values`."""
        values = _as_values(values)
        starts = _int_array(row_starts, "row_starts", "from_row_starts")
        if validate and starts.size and starts[0] != 0:
            raise _fail("from_row_starts", "Condition x == y did not hold.", "RaggedTensor",
                        f"First 1 elements of x:\n[{starts[0]}]\nFirst 1 elements of y:\n[0]\n"
                        f"row_starts must start at 0")
        splits = np.concatenate([starts, [_nrows(values)]]).astype(np.int64)
        if validate:
            _check_splits(splits, _nrows(values), "from_row_starts")
        return cls._make(values, splits)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        """Rows ending at `row_limits` (the last one is len(values)); the first starts at 0."""
        values = _as_values(values)
        limits = _int_array(row_limits, "row_limits", "from_row_limits")
        splits = np.concatenate([[0], limits]).astype(np.int64)
        if validate:
            _check_splits(splits, _nrows(values), "from_row_limits")
        return cls._make(values, splits)

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length, nrows=None, validate=True, name=None):
        """Rows of one length each (the shape keeps that length instead of None)."""
        values = _as_values(values)
        length = int(uniform_row_length.numpy() if isinstance(uniform_row_length, Tensor)
                     else uniform_row_length)
        nvals = _nrows(values)
        if length < 0 or (length and nvals % length) or (not length and nrows is None):
            raise errors.InvalidArgumentError(
                None, None, f"Arguments to from_uniform_row_length do not form a valid RowPartition: "
                            f"{nvals} values do not split into rows of length {length}")
        n = nvals // length if length else int(nrows)
        return cls._make(values, np.arange(n + 1, dtype=np.int64) * length, uniform_row_length=length)

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
        """Ragged dimensions built from the outermost splits vector inwards."""
        if isinstance(nested_row_splits, (Tensor, np.ndarray)):
            raise TypeError("nested_row_splits must be a list of Tensors")
        result = _as_values(flat_values)
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None, validate=True):
        """Ragged dimensions built from the outermost row_lengths vector inwards."""
        result = _as_values(flat_values)
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    @classmethod
    def from_nested_value_rowids(cls, flat_values, nested_value_rowids, nested_nrows=None, name=None,
                                 validate=True):
        """Ragged dimensions built from the outermost value_rowids vector inwards."""
        nested_nrows = [None] * len(nested_value_rowids) if nested_nrows is None else nested_nrows
        result = _as_values(flat_values)
        for rowids, n in reversed(list(zip(nested_value_rowids, nested_nrows))):
            result = cls.from_value_rowids(result, rowids, n, validate=validate)
        return result

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None,
                    row_splits_dtype=dtypes.int64):
        """The rows of a dense tensor, cut to `lengths`, or with trailing `padding` dropped (without
        either, every row keeps the full length and the shape keeps it too).

        The values are gathered from `tensor`, so gradients flow back to it.
        """
        t = as_tensor(tensor)
        if t.shape.rank is not None and t.shape.rank < ragged_rank + 1:
            raise ValueError(f"ragged_rank must be smaller than rank of tensor: from_tensor got a rank-"
                             f"{t.shape.rank} tensor and ragged_rank={ragged_rank}")
        if lengths is not None and padding is not None:
            raise ValueError("Specify argument `lengths` or `padding`, but not both.")
        if ragged_rank > 1:  # the inner dimensions become uniform ragged rows first
            b, n = t.shape[0], t.shape[1]
            inner = cls.from_tensor(reshape(t, (-1,) + tuple(t.shape[2:])), ragged_rank=ragged_rank - 1)
            if lengths is not None or padding is not None:
                raise NotImplementedError("from_tensor: lengths/padding with ragged_rank > 1 are not "
                                          "supported; build the inner rows with from_row_lengths")
            return cls._make(inner, np.arange(b + 1, dtype=np.int64) * n, uniform_row_length=n)
        raw = np.asarray(t.numpy())
        nrows, width = raw.shape[0], raw.shape[1]
        if lengths is not None:
            lens = np.minimum(_int_array(lengths, "lengths", "from_tensor"), width)
        elif padding is not None and raw.size == 0:
            lens = np.zeros(nrows, dtype=np.int64)
        elif padding is not None:
            pad = np.asarray(as_tensor(padding, dtype=t.dtype).numpy())
            same = raw == pad
            same = same.reshape(nrows, width, -1).all(axis=2)
            # the length is where the run of trailing padding starts
            keep = ~same
            last = np.where(keep.any(axis=1), width - np.argmax(keep[:, ::-1], axis=1), 0)
            lens = last.astype(np.int64)
        else:
            lens = np.full(nrows, width, dtype=np.int64)
        rows = np.repeat(np.arange(nrows), lens)
        cols = np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens, lens)
        idx = np.stack([rows, cols], axis=1).astype(np.int64)
        values = gather_nd(t, Tensor(idx.reshape(-1, 2)))
        uniform = width if lengths is None and padding is None else None  # TF keeps the length known
        return cls._make(values, np.concatenate([[0], np.cumsum(lens)]).astype(np.int64), uniform)

    # -- structure ---------------------------------------------------------------------------
    @property
    def values(self):
        """The concatenated rows (a Tensor, or a RaggedTensor when ragged_rank > 1)."""
        return self._values

    @property
    def row_splits(self):
        """int64 vector: row i is values[row_splits[i]:row_splits[i + 1]]."""
        return self._row_splits

    @property
    def flat_values(self):
        """The innermost values Tensor, under every ragged dimension."""
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v._values
        return v

    @property
    def nested_row_splits(self):
        """The row_splits of every ragged dimension, outermost first."""
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt._row_splits)
            rt = rt._values
        return tuple(out)

    @property
    def ragged_rank(self):
        """How many partitioned (ragged) dimensions this tensor has."""
        return 1 + (self._values.ragged_rank if isinstance(self._values, RaggedTensor) else 0)

    @property
    def dtype(self):
        """The dtype of the values."""
        return self.flat_values.dtype

    @property
    def row_splits_dtype(self):
        """The dtype of the row partitions (int64, or int32 where it was asked for)."""
        return self._row_splits.dtype

    @property
    def shape(self):
        """Static shape: [nrows, None for each ragged dimension..., inner dimensions]."""
        inner = self._values.shape
        return TensorShape([self.nrows_int(), self._uniform_row_length] + list(inner)[1:])

    def get_shape(self):
        """The same as `shape`."""
        return self.shape

    @property
    def ndim(self):
        """The rank (number of dimensions)."""
        return self.shape.rank

    def nrows_int(self):
        """The number of rows as a Python int."""
        return self._splits_np.size - 1

    def nrows(self, out_type=None, name=None):
        """The number of rows, as a scalar int64 tensor."""
        return Tensor(np.asarray(self.nrows_int(), dtype=_out_type(out_type)))

    def _lengths_np(self):
        return np.diff(self._splits_np)

    def row_lengths(self, axis=1, name=None):
        """The length of each row (axis=1), or of each row of a deeper ragged dimension."""
        if axis in (1, -self.ndim + 1 if self.ndim else 1):
            return Tensor(self._lengths_np())
        if axis == 0:
            raise ValueError("axis=0 has no row lengths; use nrows()")
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.row_lengths(axis - 1))
        raise ValueError(f"row_lengths: axis {axis} is not a ragged dimension of a tensor with "
                         f"ragged_rank {self.ragged_rank}")

    def nested_row_lengths(self, name=None):
        """The row_lengths of every ragged dimension, outermost first."""
        return tuple(Tensor(np.diff(s.numpy())) for s in self.nested_row_splits)

    def value_rowids(self, name=None):
        """The row index of each value."""
        return Tensor(np.repeat(np.arange(self.nrows_int(), dtype=np.int64), self._lengths_np()))

    def row_starts(self, name=None):
        """Where each row starts in `values`."""
        return Tensor(self._splits_np[:-1].copy())

    def row_limits(self, name=None):
        """Where each row ends in `values`."""
        return Tensor(self._splits_np[1:].copy())

    def bounding_shape(self, axis=None, name=None, out_type=None):
        """The smallest dense shape that holds this tensor (int64)."""
        dims = _dense_dims(self)
        out = np.asarray(dims, dtype=_out_type(out_type))
        return Tensor(out if axis is None else out[axis])

    def with_values(self, new_values):
        """This tensor's outermost partition over new `values` (as many rows)."""
        new_values = _as_values(new_values)
        if _nrows(new_values) != _nrows(self._values):
            raise ValueError(f"with_values: the new values have {_nrows(new_values)} rows but the "
                             f"partition expects {_nrows(self._values)}")
        return RaggedTensor._make(new_values, self._splits_np, self._uniform_row_length, self.row_splits_dtype)

    def with_flat_values(self, new_values):
        """This tensor's partitions over new flat values (as many rows as flat_values)."""
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    # -- conversion --------------------------------------------------------------------------
    def to_tensor(self, default_value=None, name=None, shape=None):
        """A dense tensor, rows padded with `default_value` (zero/empty by default) and cut to
        `shape` where it is given (None entries keep the bounding size). Differentiable in the
        flat values."""
        flat = self.flat_values
        coords = flat_coords(self)
        dims = _dense_dims(self)
        if shape is not None:
            wanted = list(shape.as_list() if isinstance(shape, TensorShape) else
                          (shape.numpy().tolist() if isinstance(shape, Tensor) else shape))
            if len(wanted) != len(dims):
                raise ValueError(f"to_tensor: shape {wanted} must have rank {len(dims)} like the ragged "
                                 f"tensor (bounding shape {dims})")
            dims = [d if w is None or w == -1 else int(w) for d, w in zip(dims, wanted)]
        k = len(coords)
        keep = np.ones(coords[0].size, dtype=bool)
        for c, d in zip(coords, dims[:k]):
            keep &= c < d
        inner = list(flat.shape)[1:]
        if dims[k:] != inner:
            raise ValueError(f"to_tensor: shape {dims} does not match the inner dimensions {inner} "
                             f"of the flat values")
        raw = np.asarray(flat.numpy())
        if default_value is None:
            fill = b"" if flat.dtype == dtypes.string else 0
        else:
            fill = np.asarray(as_tensor(default_value, dtype=flat.dtype).numpy())
        out = np.empty(dims, dtype=raw.dtype)
        out[...] = fill
        key = tuple(c[keep] for c in coords)
        out[key] = raw[keep]
        y = Tensor(out)
        if thread_state.active and raw.dtype.kind in "fc":
            record(TO_TENSOR, (flat,), (y,), lambda g: _to_tensor_grad(g, key, keep, raw.shape))
        return y

    def to_list(self):
        """The rows as nested Python lists (strings as bytes)."""
        return _to_list(self)

    def numpy(self):
        """A numpy array: rows of one length stack, rows of different lengths give an object array
        of row arrays (TF's rule, applied level by level)."""
        vals = self._values.numpy()
        s = self._splits_np
        rows = [vals[s[i]:s[i + 1]] for i in range(s.size - 1)]
        if not rows:
            return np.zeros((0, 0) + tuple(np.shape(vals))[1:], dtype=vals.dtype)
        if any(len(r) != len(rows[0]) for r in rows):
            out = np.empty(len(rows), dtype=object)
            for i, r in enumerate(rows):
                out[i] = r
            return out
        return np.array(rows)

    def to_sparse(self, name=None):
        """A SparseTensor with an entry per value, shaped like bounding_shape()."""
        coords = flat_coords(self)
        flat = self.flat_values
        inner = list(flat.shape)[1:]
        raw = np.asarray(flat.numpy())
        if inner:  # one entry per element of the uniform inner dimensions too
            grid = np.indices(inner).reshape(len(inner), -1).T
            n = grid.shape[0]
            coords = [np.repeat(c, n) for c in coords] + [np.tile(grid[:, j], raw.shape[0])
                                                         for j in range(len(inner))]
            raw = raw.reshape(-1)
        indices = np.stack(coords, axis=1) if coords[0].size else np.zeros((0, len(coords)), np.int64)
        return SparseTensor(indices.astype(np.int64), Tensor(raw), np.asarray(_dense_dims(self), np.int64))

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype=dtypes.int64):
        """The rows of a 2-D SparseTensor (indices in row-major order, each row filled from column 0)."""
        indices = np.asarray(st_input.indices.numpy())
        shape = np.asarray(st_input.dense_shape.numpy()).tolist()
        if len(shape) != 2:
            raise ValueError(f"rank(st_input) must be 2: from_sparse got a SparseTensor of shape {shape}")
        rowids, cols = indices[:, 0], indices[:, 1]
        order_ok = rowids.size == 0 or (np.diff(rowids) >= 0).all()
        starts = np.searchsorted(rowids, rowids, side="left")
        if not order_ok or ((np.arange(rowids.size) - starts) != cols).any():
            raise errors.InvalidArgumentError(
                None, None, "SparseTensor is not right-ragged: its indices must be in row-major order and "
                            "fill each row from column 0 without gaps")
        return cls.from_value_rowids(st_input.values, rowids, nrows=shape[0])

    def _tf_conversion_error(self):
        """TF's ValueError for converting a ragged tensor to a dense one (convert_to_tensor)."""
        return ValueError(f"TypeError: object of type 'RaggedTensor' has no len(): {self!r} does not "
                          f"convert to a Tensor; use its .to_tensor() (padded) or .flat_values")

    def __repr__(self):
        # TF prints numpy(): nested arrays, elements separated by ", " at every level
        with np.printoptions(formatter={"all": _formatter}):
            text = _formatter(self.numpy())
        return f"<tf.RaggedTensor {text}>"

    __str__ = __repr__

    def __bool__(self):
        raise TypeError("RaggedTensor may not be used as a boolean; reduce it first "
                        "(tf.reduce_any / tf.reduce_all)")

    def __hash__(self):
        raise TypeError("RaggedTensor is unhashable.")

    def __iter__(self):
        for i in range(self.nrows_int()):
            yield self[i]

    def __tf_tracing_type__(self, context=None):  # marks the class as a composite for tf.function
        return ("RaggedTensor", self.dtype, self.ragged_rank)


def _formatter(x):
    if isinstance(x, np.ndarray):
        return np.array2string(x, separator=", ") if x.size else repr(x.tolist())
    return str(x)


def _out_type(out_type):
    return np.int64 if out_type is None else dtypes.as_dtype(out_type)._np


def _nrows(values):
    if isinstance(values, RaggedTensor):
        return values.nrows_int()
    if values.shape.rank == 0:
        raise ValueError(f"values must have rank >= 1 to be partitioned into rows, got a scalar {values!r}")
    return values.shape[0]


def _dense_dims(rt):
    """The bounding shape: rows, the longest row of each ragged dimension, then inner dims."""
    dims = [rt.nrows_int()]
    v = rt
    while isinstance(v, RaggedTensor):
        lens = v._lengths_np()
        dims.append(int(lens.max()) if lens.size else 0)
        v = v._values
    return dims + list(v.shape)[1:]


def flat_coords(rt):
    """For each flat value, its index along every ragged dimension (a list of int64 arrays)."""
    levels = []
    v = rt
    while isinstance(v, RaggedTensor):
        levels.append(v._splits_np)
        v = v._values
    idx = np.arange(v.shape[0], dtype=np.int64)
    coords = []
    for splits in reversed(levels):
        rowids = np.repeat(np.arange(splits.size - 1, dtype=np.int64), np.diff(splits))
        r = rowids[idx]
        coords.insert(0, idx - splits[r])
        idx = r
    coords.insert(0, idx)
    return coords


def _to_tensor_grad(g, key, keep, flat_shape):
    gv = np.asarray(g.numpy())
    out = np.zeros(flat_shape, dtype=gv.dtype)
    out[keep] = gv[key]
    return Tensor(out)


def _to_list(value):
    if isinstance(value, RaggedTensor):
        inner = _to_list(value._values)
        s = value._splits_np
        return [inner[s[i]:s[i + 1]] for i in range(s.size - 1)]
    return np.asarray(value.numpy()).tolist()


def gather_rows(value, idx):
    """Rows `idx` (int64 numpy vector) of a Tensor or RaggedTensor; differentiable in the values."""
    idx = np.asarray(idx, dtype=np.int64)
    if not isinstance(value, RaggedTensor):
        return gather(value, Tensor(idx))
    s = value._splits_np
    lens = s[1:][idx] - s[:-1][idx]
    starts = s[:-1][idx]
    offsets = np.concatenate([[0], np.cumsum(lens)])[:-1]
    inner = np.repeat(starts - offsets, lens) + np.arange(lens.sum())
    return RaggedTensor._make(gather_rows(value._values, inner.astype(np.int64)),
                              np.concatenate([[0], np.cumsum(lens)]).astype(np.int64))


def concat_axis0(parts):
    """Tensors or ragged tensors (one ragged_rank) joined along their rows."""
    if not isinstance(parts[0], RaggedTensor):
        return concat(list(parts), axis=0)
    splits, offset = [np.zeros(1, np.int64)], 0
    for p in parts:
        splits.append(p._splits_np[1:] + offset)
        offset += int(p._splits_np[-1])
    return RaggedTensor._make(concat_axis0([p.values for p in parts]), np.concatenate(splits))
