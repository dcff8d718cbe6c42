"""The kernels behind tf.lookup's tables: building a key -> value map from tensors or a text file
(TF's LookupTableImportV2 and InitializeTableFromTextFileV2, with their errors), and finding keys
in it (LookupTableFindV2). Keys are matched on the host (a dict of Python values); the found
values come back on the array module of the table's values."""
import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.backend import array_module
from minitf.ops._core import Tensor, as_tensor

__all__ = ["HashTableData", "import_key_values", "import_text_file", "lookup_table_find",
           "lookup_table_size", "lookup_table_export"]

# (key dtype, value dtypes) TF 2.21 registers a CPU HashTableV2 kernel for.
_KERNELS = {
    "string": ("string", "int64", "int32", "float32", "float64", "bool"),
    "int64": ("string", "int64", "int32", "float32", "float64"),
    "int32": ("string", "int32", "float32", "float64"),
}
WHOLE_LINE, LINE_NUMBER = -2, -1


def _host_list(t):
    """A tensor's values as a flat Python list (bytes for strings, ints/floats for numbers)."""
    return np.asarray(t.numpy()).reshape(-1).tolist()


class HashTableData:
    """The contents of one immutable hash table: unique keys in insertion order, their values."""

    def __init__(self, key_dtype, value_dtype):
        key_dtype, value_dtype = dtypes.as_dtype(key_dtype), dtypes.as_dtype(value_dtype)
        if value_dtype.name not in _KERNELS.get(key_dtype.name, ()):
            supported = "; ".join(f"key_dtype {k}: value_dtype in {list(v)}" for k, v in _KERNELS.items())
            raise errors.NotFoundError(
                None, None, f"Could not find a HashTableV2 kernel for key_dtype={key_dtype.name}, "
                            f"value_dtype={value_dtype.name}; kernels exist for {supported} "
                            f"[Op:HashTableV2]")
        self.key_dtype, self.value_dtype = key_dtype, value_dtype
        self.index = {}
        self.keys = []
        self.values = []
        self.values_array = None

    def _add(self, key, value, shown_key=None, shown_value=None):
        at = self.index.get(key)
        if at is None:
            self.index[key] = len(self.keys)
            self.keys.append(key)
            self.values.append(value)
        elif self.values[at] != value:
            show = (lambda v: v.decode("utf-8", "replace") if isinstance(v, bytes) else v)
            raise errors.FailedPreconditionError(
                None, None, f"HashTable has different value for same key. Key {show(key)} has "
                            f"{show(self.values[at])} and trying to add value {show(value)}; give "
                            f"each key one value [Op:LookupTableImportV2]")

    def _seal(self, like=None):
        np_dtype = object if self.value_dtype == dtypes.string else self.value_dtype.as_numpy_dtype
        host = np.array(self.values, dtype=np_dtype) if self.values else np.zeros((0,), np_dtype)
        xp = array_module(like) if like is not None and self.value_dtype != dtypes.string else np
        self.values_array = host if xp is np else xp.asarray(host)


def import_key_values(table, keys, values):
    """Fill `table` (a HashTableData) from `keys` and `values` tensors of one shape."""
    if tuple(keys.shape) != tuple(values.shape):
        raise errors.invalid_argument(
            "LookupTableImportV2", f"Expected shape {list(keys.shape)} for value, got "
                                   f"{list(values.shape)}: give one value per key")
    for k, v in zip(_host_list(keys), _host_list(values)):
        table._add(k, v)
    table._seal(values._value)


def _parse(field, dtype, line_number):
    if dtype == dtypes.string:
        return field
    text = field.decode("utf-8", "replace")
    try:
        if dtype.is_integer:
            value = int(text, 10)
            if not dtype.min <= value <= dtype.max:
                raise ValueError(text)
            return value
        return float(text)
    except ValueError:
        raise errors.invalid_argument(
            "InitializeTableFromTextFileV2", f"Field {text} in line {line_number} is not a valid "
                                             f"{dtype.name}.") from None


def _field(line, parts, index, dtype, line_number, offset):
    if index == LINE_NUMBER:
        return line_number + offset
    if index == WHOLE_LINE:
        return _parse(line, dtype, line_number)
    return _parse(parts[index], dtype, line_number)


def import_text_file(table, filename, key_index, value_index, vocab_size, delimiter, offset):
    """Fill `table` from the lines of a text file, as TF's InitializeTableFromTextFileV2."""
    op = "InitializeTableFromTextFileV2"
    if len(delimiter) != 1:
        raise errors.invalid_argument(op, "delimiter should be only 1 char")
    try:
        with open(filename, "rb") as f:
            data = f.read()
    except OSError as e:
        raise errors.NotFoundError(None, None, f"{filename}; {e.strerror} [Op:{op}]") from None
    sep = delimiter.encode("utf-8")
    need = max(key_index, value_index) + 1
    position = line_number = 0
    while position < len(data) and (vocab_size is None or line_number < vocab_size):
        end = data.find(b"\n", position)
        end = len(data) if end < 0 else end
        line = data[position:end]
        position = end + 1
        if line.endswith(b"\r"):
            line = line[:-1]
        if not line:
            raise errors.invalid_argument(
                op, f"Invalid content in {filename}: empty line found at position {position}.")
        parts = line.split(sep) if need > 0 else ()
        if len(parts) < need:
            raise errors.invalid_argument(
                op, f"Invalid number of columns in {filename} line {line_number} "
                    f"({line.decode('utf-8', 'replace')}) : expected at least {need} got {len(parts)}")
        key = _field(line, parts, key_index, table.key_dtype, line_number, 0)
        value = _field(line, parts, value_index, table.value_dtype, line_number, offset)
        table._add(key, value)
        line_number += 1
    if vocab_size is not None and line_number < vocab_size:
        raise errors.invalid_argument(
            op, f"Invalid vocab_size in {filename}: expected {vocab_size} but got {line_number}")
    table._seal()


@dispatch.add_dispatch_support
def lookup_table_find(table, keys, default_value):
    """The value of each key of `keys` in `table` (a HashTableData), `default_value` where absent;
    the result has the shape of `keys`."""
    keys = as_tensor(keys)
    default = as_tensor(default_value)
    xp = array_module(table.values_array) if table.value_dtype != dtypes.string else np
    flat = _host_list(keys)
    found = np.fromiter((table.index.get(k, -1) for k in flat), dtype=np.int64, count=len(flat))
    present = found >= 0
    values = table.values_array
    if values.shape[0] == 0:  # nothing to gather from: every key takes the default
        out = xp.broadcast_to(xp.asarray(default._value, dtype=values.dtype), (len(flat),))
    else:
        gathered = values[xp.asarray(np.where(present, found, 0))]
        out = xp.where(xp.asarray(present), gathered, xp.asarray(default._value, dtype=values.dtype))
    return Tensor(xp.reshape(out, tuple(keys.shape)).copy())


def lookup_table_size(table):
    """The number of keys in `table`, an int64 scalar."""
    return Tensor(np.array(len(table.keys), dtype=np.int64))


def lookup_table_export(table):
    """`(keys, values)`: every key of `table` and its value, in insertion order."""
    np_key = object if table.key_dtype == dtypes.string else table.key_dtype.as_numpy_dtype
    keys = np.array(table.keys, dtype=np_key) if table.keys else np.zeros((0,), np_key)
    return Tensor(keys), Tensor(table.values_array.copy())
