"""tf.data's CSV readers: `tf.data.experimental.CsvDataset` (one tuple of scalars per record)
and `make_csv_dataset` (batches of column dicts, with TF's column type inference)."""
import collections
import csv
import glob
import os

import numpy as np

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.data.dataset import Dataset
from minitf.data.files import TextLineNode
from minitf.data.pipeline import AUTOTUNE, Node, call_with_element
from minitf.data.transformations import MapDataset
from minitf.dtypes.dtypes import DType
from minitf.function import TensorSpec
from minitf.ops.csv_ops import field_value
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["CsvDataset", "make_csv_dataset"]

_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)
_TYPE_WORDS = {dtypes.int32: "int32", dtypes.int64: "int64", dtypes.float32: "float",
               dtypes.float64: "double"}


def _record_default(value, i):
    """(dtype, default value or None when the field is required) of one record default."""
    if isinstance(value, DType):
        dtype, tensor = value, None
    else:
        tensor = convert_to_tensor(value)
        dtype = tensor.dtype
    if dtype not in _TYPES:
        raise TypeError(f"CsvDataset: record_defaults[{i}] has dtype {dtype.name}; a CSV column must be one of "
                        f"float32, float64, int32, int64 or string.")
    if tensor is None or int(np.size(tensor.numpy())) == 0:
        return dtype, None
    if int(np.size(tensor.numpy())) != 1:
        raise ValueError(f"CsvDataset: record_defaults[{i}] must have at most one element, got shape "
                         f"{tuple(tensor.shape.as_list())}.")
    return dtype, np.asarray(tensor.numpy(), dtype=object).reshape(-1)[0]


def _parse(field, dtype, default, column):
    """One field as a scalar tensor of `dtype` (the default when the field is empty / NA)."""
    if field is None:
        if default is None:
            raise errors.InvalidArgumentError(None, None, f"Field {column} is required but missing in record! "
                                                          f"(CsvDataset; give a default in record_defaults)")
        value = default
    elif dtype == dtypes.string:
        value = field.encode("utf-8", "surrogateescape")
    else:
        value = field_value(field.encode("utf-8", "surrogateescape"), dtype)  # TF's number reading, as decode_csv
        if value is None:
            raise errors.InvalidArgumentError(None, None, f"Field {column} in record is not a valid "
                                                          f"{_TYPE_WORDS[dtype]}: {field}")
    if dtype == dtypes.string:
        return Tensor(np.asarray(value if isinstance(value, bytes) else str(value).encode(), dtype=object))
    return Tensor(np.asarray(value, dtype=dtype._np))


class CsvNode(Node):
    """The records of CSV files, file after file: a tuple of scalar tensors per record."""

    def __init__(self, filenames, record_defaults, compression_type, header, field_delim, use_quote_delim,
                 na_value, select_cols, exclude_cols):
        super().__init__()
        self._lines = TextLineNode(filenames, compression_type)
        self._defaults = [_record_default(v, i) for i, v in enumerate(record_defaults)]
        if select_cols is not None and exclude_cols is not None:
            raise ValueError("CsvDataset: `select_cols` and `exclude_cols` cannot both be given.")
        cols = None if select_cols is None else [int(c) for c in np.asarray(select_cols).reshape(-1)]
        if cols is not None:
            if any(b <= a for a, b in zip(cols, cols[1:])) or (cols and cols[0] < 0):
                raise errors.InvalidArgumentError(None, None, f"CsvDataset: select_cols must be non-negative and "
                                                              f"strictly increasing, got {cols}.")
            if len(cols) != len(self._defaults):
                raise errors.InvalidArgumentError(
                    None, None, f"CsvDataset: expected {len(cols)} record_defaults, one per column of select_cols "
                                f"{cols}, got {len(self._defaults)}.")
        self._select = cols
        self._exclude = None if exclude_cols is None else set(int(c) for c in exclude_cols)
        self._header = bool(header)
        self._delim = field_delim
        self._quoting = csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE
        self._na = na_value

    def _columns(self, row):
        if self._select is not None:
            if len(row) <= self._select[-1]:
                raise errors.InvalidArgumentError(None, None, f"Expect at least {self._select[-1] + 1} fields but "
                                                              f"have {len(row)} in record")
            return [row[c] for c in self._select]
        if self._exclude is not None:
            row = [f for i, f in enumerate(row) if i not in self._exclude]
        if len(row) != len(self._defaults):
            raise errors.InvalidArgumentError(None, None, f"Expect {len(self._defaults)} fields but have {len(row)} "
                                                          f"in record")
        return row

    def _generate(self, ctx):
        for path in self._lines._paths:
            lines = (line.decode("utf-8", "surrogateescape") for line in self._lines._lines(path))
            for n, row in enumerate(csv.reader(lines, delimiter=self._delim, quoting=self._quoting)):
                if (n == 0 and self._header) or not row:
                    continue
                fields = [None if f in ("", self._na) else f for f in self._columns(row)]
                yield tuple(_parse(f, dtype, default, i)
                            for i, (f, (dtype, default)) in enumerate(zip(fields, self._defaults)))

    def _compute_spec(self):
        return tuple(TensorSpec([], dtype) for dtype, _ in self._defaults)


@export("data.experimental.CsvDataset")
class CsvDataset(Dataset):
    """A dataset of the records of CSV files: each element a tuple of scalar tensors, one per
    column (`tf.data.experimental.CsvDataset`).

    Args:
      filenames: a path, a list of paths or a string tensor; read in order.
      record_defaults: one entry per (selected) column: a dtype (float32, float64, int32, int64
        or string) for a required column, or a value (or one-element tensor) whose dtype is the
        column's and which replaces empty or `na_value` fields.
      compression_type: None, '', 'GZIP' or 'ZLIB'.
      buffer_size: accepted for TF compatibility.
      header: skip the first line of each file.
      field_delim, use_quote_delim: the field separator; whether double quotes quote fields.
      na_value: a field equal to it counts as missing.
      select_cols, exclude_cols: the (increasing) column indices to keep, or to leave out.

    Raises:
      InvalidArgumentError: (while iterating) a required field is missing, a record has the
        wrong number of fields, or a field does not parse as its column's dtype.
      NotFoundError: (while iterating) a file does not exist.
    """

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None, header=False,
                 field_delim=",", use_quote_delim=True, na_value="", select_cols=None, exclude_cols=None,
                 name=None):
        super().__init__(CsvNode(filenames, record_defaults, compression_type, header, field_delim,
                                 use_quote_delim, na_value, select_cols, exclude_cols))


class _ColumnsToFeatures(MapDataset):
    """The map from batched columns to feature dicts; its spec comes from the batch spec (the
    function only rearranges), so the batch dimension stays unknown as in TF."""

    def _compute_spec(self):
        return call_with_element(self._fn, self._input.element_spec)


def _file_names(file_pattern):
    patterns = file_pattern if isinstance(file_pattern, list) else [file_pattern]
    if not patterns:
        raise ValueError("Argument `file_pattern` should not be empty.")
    names = [name for p in patterns for name in glob.glob(os.fsdecode(p))]
    if not names:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    return sorted(names)


def _csv_rows(filenames, field_delim, use_quote_delim, header, encoding):
    quoting = csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE
    for name in filenames:
        with open(name, encoding=encoding, newline="") as f:
            reader = csv.reader(f, delimiter=field_delim, quoting=quoting)
            if header:
                next(reader, None)
            yield from reader


def _infer_type(value, na_value, previous):
    """TF's inference: the least permissive of int32, int64, float32, float64, string that fits
    this value and every earlier one of the column."""
    if value in ("", na_value):
        return previous
    order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64, dtypes.string]
    start = 0 if previous is None else order.index(previous)
    for dtype in order[start:]:
        try:
            if dtype.is_integer:
                parsed = int(value)
                info = np.iinfo(dtype._np)
                if not info.min <= parsed <= info.max:
                    continue
            elif dtype.is_floating:
                with np.errstate(over="ignore"):
                    if not np.asarray(float(value), dtype=dtype._np) < np.inf:
                        continue
            return dtype
        except (ValueError, OverflowError):
            continue
    return dtypes.string


def _infer_defaults(filenames, num_cols, select, field_delim, use_quote_delim, na_value, header,
                    num_rows, encoding):
    columns = range(num_cols) if select is None else select
    types = [None] * len(columns)
    rows = _csv_rows(filenames, field_delim, use_quote_delim, header, encoding)
    for i, row in enumerate(rows):
        if num_rows is not None and i >= num_rows:
            break
        if len(row) != num_cols:
            raise ValueError(f"Problem inferring types: CSV row {i + 1 + bool(header)} has {len(row)} number of "
                             f"fields. Expected: {num_cols}.")
        for j, c in enumerate(columns):
            types[j] = _infer_type(row[c], na_value, types[j])
    return [convert_to_tensor([""] if t in (None, dtypes.string) else [0], dtype=t or dtypes.string)
            for t in types]


def _select_indices(select_columns, column_names):
    index = {n: i for i, n in enumerate(column_names)}
    out = []
    for v in select_columns:
        if isinstance(v, int):
            if not 0 <= v < len(column_names):
                raise ValueError(f"Column index {v} specified in `select_columns` should be > 0  and <= "
                                 f"{len(column_names)}, which is the number of columns.")
            out.append(v)
        elif v not in index:
            raise ValueError(f"Column {v} specified in `select_columns` must be of one of the columns: "
                             f"{index.keys()}.")
        else:
            out.append(index[v])
    if len(set(out)) != len(out):
        raise ValueError(f"The `select_columns` argument contains duplicate columns: {select_columns}.")
    return sorted(out)


@export("data.experimental.make_csv_dataset")
def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None, label_name=None,
                     select_columns=None, field_delim=",", use_quote_delim=True, na_value="", header=True,
                     num_epochs=None, shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False, num_rows_for_inference=100,
                     compression_type=None, ignore_errors=False, encoding="utf-8"):
    """Batches of CSV records as (OrderedDict of column tensors, label) pairs, or column dicts
    when `label_name` is None, built as TF builds them: files matching `file_pattern` (sorted,
    shuffled when `shuffle`), read in turn by CsvDataset, shuffled with `shuffle_buffer_size`,
    repeated `num_epochs` times (forever when None, then the last smaller batch is dropped),
    batched with `batch_size`.

    Column names come from `column_names` or the header line; column types from
    `column_defaults` (a dtype makes a required column, a value a default) or else are inferred
    from the first `num_rows_for_inference` rows: int32, int64, float32, float64 or string,
    the least permissive that fits every value. `select_columns` (names or indices) keeps some
    columns. `ignore_errors` and `sloppy` are accepted for TF compatibility.

    Raises:
        ValueError: no file matches, no column names, duplicate or unknown columns, a
            `label_name` that is not a column, or a row with the wrong number of fields while
            inferring types.
    """
    filenames = _file_names(file_pattern)
    dataset = Dataset.from_tensor_slices(np.array([os.fsencode(f) for f in filenames], dtype=object))
    if shuffle:
        dataset = dataset.shuffle(len(filenames), shuffle_seed)
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` arguments. Neither is provided.")
        column_names = next(_csv_rows(filenames[:1], field_delim, use_quote_delim, False, encoding), None)
        if column_names is None:
            raise ValueError(f"Failed when reading the header line of {filenames[0]}. Is it an empty file?")
    column_names = list(column_names)
    if len(set(column_names)) != len(column_names):
        dups = {n for n in column_names if column_names.count(n) > 1}
        raise ValueError(f"Either `column_names` argument or CSV header row contains duplicate column names: {dups}.")
    select = None if select_columns is None else _select_indices(select_columns, column_names)
    if column_defaults is not None:
        defaults = [convert_to_tensor([], dtype=d) if isinstance(d, DType) else d for d in column_defaults]
    else:
        defaults = _infer_defaults(filenames, len(column_names), select, field_delim, use_quote_delim, na_value,
                                   header, num_rows_for_inference, encoding)
    if select is not None and len(defaults) != len(select):
        raise ValueError(f"If specified, `column_defaults` and `select_columns` must have the same length: "
                         f"`column_defaults` has length {len(defaults)}, `select_columns` has length {len(select)}.")
    if select is not None and len(column_names) > len(select):
        column_names = [column_names[i] for i in select]
    if label_name is not None and label_name not in column_names:
        raise ValueError(f"`label_name` provided must be one of the columns: {column_names}. Received: {label_name}.")

    def to_dataset(filename):
        return CsvDataset(filename.numpy(), defaults, compression_type=compression_type, header=header,
                          field_delim=field_delim, use_quote_delim=use_quote_delim, na_value=na_value,
                          select_cols=select)

    def to_features(*columns):
        features = collections.OrderedDict(zip(column_names, columns))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label

    dataset = dataset.interleave(to_dataset, cycle_length=num_parallel_reads or 1)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=num_epochs is None)
    dataset = dataset._then(_ColumnsToFeatures(dataset._node, to_features, None))
    return dataset.prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)
