"""tf.experimental.RowPartition: how a sequence of values splits into rows.

A partition is kept as its row splits (a host int vector: row i is values[splits[i]:splits[i+1]])
and, for partitions whose rows all have one length, that length. The other encodings TF offers
(row lengths, value row ids, row starts and limits) are computed from the splits on request.
Partitions are small integer vectors describing structure, so they live on the host and carry no
gradient, as the row splits of a RaggedTensor do.
"""
import numpy as np

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["RowPartition"]

_SPLIT_DTYPES = (dtypes.int32, dtypes.int64)


def _encoding_dtype(value, dtype, dtype_hint, what):
    """TF's rule: `dtype` if given, else the value's own integer dtype, else the hint (int64)."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
        if dtype not in _SPLIT_DTYPES:
            raise ValueError(f"dtype must be int32 or int64, got {dtype.name} for {what}")
        return dtype
    if isinstance(value, Tensor):
        own = value.dtype
        if own not in _SPLIT_DTYPES:
            raise ValueError(f"{what} must have dtype int32 or int64, got {own.name}; cast it first")
        return own
    return dtypes.as_dtype(dtype_hint) if dtype_hint is not None else dtypes.int64


def _host_ints(value, what, rank):
    """`value` (list, array or integer tensor) as an int64 numpy array of the given rank."""
    arr = np.asarray(value.numpy() if isinstance(value, Tensor) else value)
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError(f"RowPartition: {what} must be integers, got dtype {arr.dtype}; pass int32 "
                        f"or int64 values")
    if arr.ndim != rank:
        raise ValueError(f"Shape {list(arr.shape)} must have rank {rank}: RowPartition takes "
                         f"{'a vector' if rank else 'a scalar'} of {what}")
    return arr.astype(np.int64)


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


@export("experimental.RowPartition")
class RowPartition:
    """How the values of one ragged dimension split into rows; build it with a `from_*` factory.

    Every factory takes `validate` (check the encoding, raising InvalidArgumentError or
    ValueError as TF does), `dtype` (int32 or int64 for the encoding tensors) and `dtype_hint`
    (the dtype used when the input is a Python list, int64 unless given).
    """

    __slots__ = ("_splits", "_uniform", "_dtype", "_nvals_known")

    def __init__(self, row_splits=None, internal=False, uniform_row_length=None, dtype=dtypes.int64,
                 nvals_known=False):
        if not internal:
            raise ValueError("RowPartition constructor is private; please use one of the factory "
                             "methods instead (e.g., RowPartition.from_row_lengths())")
        self._splits = np.asarray(row_splits, dtype=np.int64)
        self._uniform = uniform_row_length
        self._dtype = dtypes.as_dtype(dtype)
        self._nvals_known = nvals_known or uniform_row_length is not None

    # -- factories ----------------------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, row_splits, validate=True, dtype=None, dtype_hint=None):
        """Rows values[row_splits[i]:row_splits[i + 1]]; the splits start at 0 and never decrease."""
        out_dtype = _encoding_dtype(row_splits, dtype, dtype_hint, "row_splits")
        splits = _host_ints(row_splits, "row_splits", 1)
        if splits.size == 0:
            raise ValueError("row_splits must have at least one element (the leading 0); "
                             "from_row_splits got an empty vector")
        if validate:
            if splits[0] != 0:
                raise _invalid(f"Arguments to RowPartition.from_row_splits do not form a valid "
                               f"RowPartition: row_splits must start with 0, got {splits[0]}")
            if (np.diff(splits) < 0).any():
                raise _invalid(f"Arguments to RowPartition.from_row_splits do not form a valid "
                               f"RowPartition: row_splits must be sorted, got {splits.tolist()}")
        return cls(splits, internal=True, dtype=out_dtype)

    @classmethod
    def from_row_lengths(cls, row_lengths, validate=True, dtype=None, dtype_hint=None):
        """Rows of the given non-negative lengths."""
        out_dtype = _encoding_dtype(row_lengths, dtype, dtype_hint, "row_lengths")
        lengths = _host_ints(row_lengths, "row_lengths", 1)
        if validate and (lengths < 0).any():
            raise _invalid(f"Arguments to RowPartition.from_row_lengths do not form a valid "
                           f"RowPartition: row_lengths must be non-negative, got {lengths.tolist()}")
        return cls(np.concatenate([[0], np.cumsum(lengths)]), internal=True, dtype=out_dtype)

    @classmethod
    def from_value_rowids(cls, value_rowids, nrows=None, validate=True, dtype=None, dtype_hint=None):
        """Value i goes to row value_rowids[i] (sorted, non-negative); `nrows` adds empty rows."""
        out_dtype = _encoding_dtype(value_rowids, dtype, dtype_hint, "value_rowids")
        rowids = _host_ints(value_rowids, "value_rowids", 1)
        n = int(rowids[-1]) + 1 if rowids.size else 0
        if nrows is not None:  # checked whether or not `validate` (TF knows eager values statically)
            given = int(_host_ints(nrows, "nrows", 0))
            if given < 0:
                raise ValueError(f"Expected nrows >= 0; got {given}")
            if rowids.size and given < n:
                raise ValueError(f"Expected nrows >= value_rowids[-1] + 1; got nrows={given}, "
                                 f"value_rowids[-1]={n - 1}")
            n = given
        if validate and rowids.size and ((rowids < 0).any() or (np.diff(rowids) < 0).any()):
            raise _invalid(f"Arguments to RowPartition.from_value_rowids do not form a valid "
                           f"RowPartition: value_rowids must be non-negative and sorted, got "
                           f"{rowids.tolist()}")
        lengths = np.bincount(rowids, minlength=n) if rowids.size else np.zeros(n, np.int64)
        return cls(np.concatenate([[0], np.cumsum(lengths)]), internal=True, dtype=out_dtype,
                   nvals_known=True)

    @classmethod
    def from_row_starts(cls, row_starts, nvals, validate=True, dtype=None, dtype_hint=None):
        """Rows starting at `row_starts` (the first is 0); the last row runs to `nvals`."""
        out_dtype = _encoding_dtype(row_starts, dtype, dtype_hint, "row_starts")
        starts = _host_ints(row_starts, "row_starts", 1)
        total = int(_host_ints(nvals, "nvals", 0))
        return cls.from_row_splits(np.concatenate([starts, [total]]), validate=validate, dtype=out_dtype)

    @classmethod
    def from_row_limits(cls, row_limits, validate=True, dtype=None, dtype_hint=None):
        """Rows ending at `row_limits`; the first row starts at 0."""
        out_dtype = _encoding_dtype(row_limits, dtype, dtype_hint, "row_limits")
        limits = _host_ints(row_limits, "row_limits", 1)
        return cls.from_row_splits(np.concatenate([[0], limits]), validate=validate, dtype=out_dtype)

    @classmethod
    def from_uniform_row_length(cls, uniform_row_length, nvals=None, nrows=None, validate=True,
                                dtype=None, dtype_hint=None):
        """`nrows` rows of `uniform_row_length` values each; give `nvals`, `nrows` or both."""
        out_dtype = _encoding_dtype(uniform_row_length, dtype, dtype_hint, "uniform_row_length")
        length = int(_host_ints(uniform_row_length, "uniform_row_length", 0))
        if nvals is None and nrows is None:
            raise ValueError("Either nvals or nrows must be specified")
        if validate and length < 0:
            raise ValueError("uniform_row_length must be >= 0.")
        if nrows is None:
            total = int(_host_ints(nvals, "nvals", 0))
            n = 0 if length == 0 else total // length
        else:
            n = int(_host_ints(nrows, "nrows", 0))
            total = n * length if nvals is None else int(_host_ints(nvals, "nvals", 0))
        if validate and n * length != total:
            raise ValueError(f"uniform_row_length={length} times nrows={n} must equal nvals={total}")
        return cls(np.arange(n + 1, dtype=np.int64) * length, internal=True, uniform_row_length=length,
                   dtype=out_dtype)

    # -- encodings ----------------------------------------------------------------------------
    def _tensor(self, values):
        return Tensor(np.asarray(values, dtype=self._dtype._np))

    @property
    def dtype(self):
        """The dtype of the encoding tensors (int32 or int64)."""
        return self._dtype

    def row_splits(self):
        """The row splits vector: nrows + 1 offsets, starting at 0, ending at nvals."""
        return self._tensor(self._splits)

    def row_lengths(self):
        """The length of each row."""
        return self._tensor(np.diff(self._splits))

    def value_rowids(self):
        """The row of each value."""
        return self._tensor(np.repeat(np.arange(self._splits.size - 1), np.diff(self._splits)))

    def row_starts(self):
        """Where each row starts."""
        return self._tensor(self._splits[:-1])

    def row_limits(self):
        """Where each row ends."""
        return self._tensor(self._splits[1:])

    def nrows(self):
        """The number of rows, a scalar tensor."""
        return self._tensor(self._splits.size - 1)

    def nvals(self):
        """The number of values partitioned, a scalar tensor."""
        return self._tensor(self._splits[-1])

    def uniform_row_length(self):
        """The length of every row for a uniform partition, else None."""
        return None if self._uniform is None else self._tensor(self._uniform)

    def offsets_in_rows(self):
        """For each value, its position inside its row."""
        rowids = np.repeat(np.arange(self._splits.size - 1), np.diff(self._splits))
        return self._tensor(np.arange(rowids.size) - self._splits[:-1][rowids])

    @property
    def static_nrows(self):
        """The number of rows as a Python int."""
        return int(self._splits.size - 1)

    @property
    def static_nvals(self):
        """The number of values as a Python int where TF knows it statically (partitions built
        from value row ids or a uniform row length), else None."""
        return int(self._splits[-1]) if self._nvals_known else None

    @property
    def static_uniform_row_length(self):
        """The uniform row length as a Python int, or None."""
        return self._uniform

    def is_uniform(self):
        """True when the partition was built with a uniform row length."""
        return self._uniform is not None

    def with_dtype(self, dtype):
        """This partition with int32 or int64 encoding tensors."""
        dtype = dtypes.as_dtype(dtype)
        if dtype not in _SPLIT_DTYPES:
            raise ValueError("dtype must be int32 or int64")
        if dtype == self._dtype:
            return self
        return RowPartition(self._splits, internal=True, uniform_row_length=self._uniform, dtype=dtype,
                            nvals_known=self._nvals_known)

    # helpers for the ragged package (host arrays, no tensors)
    def _host_splits(self):
        return self._splits

    def __repr__(self):
        if self._uniform is not None:
            return f"tf.RowPartition(nrows={self.static_nrows}, uniform_row_length={self._uniform})"
        return f"tf.RowPartition(row_splits={np.asarray(self._splits, dtype=self._dtype._np)})"

    __str__ = __repr__
