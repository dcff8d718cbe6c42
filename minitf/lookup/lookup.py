"""tf.lookup: immutable key -> value tables (StaticHashTable, StaticVocabularyTable) filled by
initializers from tensors (KeyValueTensorInitializer) or text files (TextFileInitializer).

Tables are filled once, when built, as in TF's eager mode. `lookup` keeps the keys' shape and
maps the values of RaggedTensor and SparseTensor keys; inside `tf.function` and `Dataset.map`
it is one node of the graph. StaticVocabularyTable sends unknown keys to
`Fingerprint64(key) % num_oov_buckets + size` (integers hashed as their decimal text), the
buckets TF uses. `export()` lists keys in insertion order (TF's follows its hash map).
"""
import os

from minitf.dtypes import dtypes
from minitf.convert import convert_to_tensor
from minitf.ops import lookup_ops
from minitf.ops.compare import not_equal
from minitf.ops.constant import cast
from minitf.ops.gather import where
from minitf.ops.math import add
from minitf.ops.string_hash import to_hash_bucket_fast
from minitf.ops.string_ops import as_string
from minitf.ragged.ragged_tensor import RaggedTensor
from minitf.sparse.sparse_tensor import SparseTensor
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["KeyValueTensorInitializer", "TextFileIndex", "TextFileInitializer", "StaticHashTable",
           "StaticVocabularyTable"]


def _check_table_dtypes(table, key_dtype, value_dtype):
    if key_dtype.base_dtype != table.key_dtype:
        raise TypeError(f"Invalid key dtype for table, expected {table.key_dtype} but got {key_dtype}.")
    if value_dtype.base_dtype != table.value_dtype:
        raise TypeError(f"Invalid value dtype for table, expected {table.value_dtype} but got "
                        f"{value_dtype}.")


def _composite_values(keys):
    """The dense tensor of keys to look up: the values of a RaggedTensor or SparseTensor."""
    return keys.values if isinstance(keys, (SparseTensor, RaggedTensor)) else keys


def _rebuild(keys, values):
    """`values` in the structure of `keys` (sparse, ragged or dense)."""
    if isinstance(keys, SparseTensor):
        return SparseTensor(keys.indices, values, keys.dense_shape)
    if isinstance(keys, RaggedTensor):
        return keys.with_values(values)
    return values


class _TableInitializerBase:
    """What an initializer shares: the key and value dtypes of the table it fills."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)

    @property
    def key_dtype(self):
        """The dtype of the keys this initializer provides."""
        return self._key_dtype

    @property
    def value_dtype(self):
        """The dtype of the values this initializer provides."""
        return self._value_dtype

    def initialize(self, table):
        """Fill `table` (raises NotImplementedError here; subclasses fill)."""
        raise NotImplementedError


@export("lookup.KeyValueTensorInitializer")
class KeyValueTensorInitializer(_TableInitializerBase):
    """Fills a table from a tensor of keys and a tensor of values of the same shape."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        # minitf's convert_to_tensor does not take a range; TF's does (the text tutorial passes one)
        keys, values = (list(v) if isinstance(v, range) else v for v in (keys, values))
        self._keys = convert_to_tensor(keys, dtype=key_dtype)
        self._values = convert_to_tensor(values, dtype=value_dtype)
        self._name = name if name is not None else "key_value_init"
        super().__init__(self._keys.dtype, self._values.dtype)

    def initialize(self, table):
        """Put every key with its value into `table` (TypeError when the dtypes differ)."""
        _check_table_dtypes(table, self._keys.dtype, self._values.dtype)
        lookup_ops.import_key_values(table._data, self._keys, self._values)


@export("lookup.TextFileIndex")
class TextFileIndex:
    """Which part of a line a TextFileInitializer reads: WHOLE_LINE (-2), LINE_NUMBER (-1), or a
    column index >= 0 of the line split at the delimiter."""
    WHOLE_LINE = -2
    LINE_NUMBER = -1


@export("lookup.TextFileInitializer")
class TextFileInitializer(_TableInitializerBase):
    """Fills a table with one entry per line of a text file; `key_index` and `value_index` pick
    the whole line, the line number or a column (see TextFileIndex)."""

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index, vocab_size=None,
                 delimiter="\t", name=None, value_index_offset=0):
        if not isinstance(filename, Tensor) and not filename:
            raise ValueError("`filename` argument required for tf.lookup.TextFileInitializer")
        key_dtype, value_dtype = dtypes.as_dtype(key_dtype), dtypes.as_dtype(value_dtype)
        for what, index, dtype in (("key", key_index, key_dtype), ("value", value_index, value_dtype)):
            if index < -2:
                raise ValueError(f"`{what}_index` should be >= -2, received: {index}.")
            if index == TextFileIndex.LINE_NUMBER and dtype != dtypes.int64:
                link = "if" if what == "key" else "for"  # TF words the two messages apart
                raise ValueError(f"`{what}_dtype` must be int64 {link} `{what}_index`{' is' * (what == 'key')} "
                                 f"{TextFileIndex.LINE_NUMBER}, received: {dtype}")
            if index == TextFileIndex.WHOLE_LINE and not dtype.is_integer and dtype != dtypes.string:
                raise ValueError(f"`{what}_dtype` should be either integer or string for `{what}_index` "
                                 f"{TextFileIndex.WHOLE_LINE}, received: {dtype}")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"`vocab_size` should be > 0, received: {vocab_size}")
        self._filename = filename
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size, self._delimiter = vocab_size, delimiter
        self._name, self._offset = name, value_index_offset
        super().__init__(key_dtype, value_dtype)

    def initialize(self, table):
        """Read the file into `table` (TypeError when the dtypes differ)."""
        _check_table_dtypes(table, self.key_dtype, self.value_dtype)
        filename = self._filename
        if isinstance(filename, Tensor):
            filename = filename.numpy()
        filename = os.fsdecode(filename)
        lookup_ops.import_text_file(table._data, filename, self._key_index, self._value_index,
                                    self._vocab_size, self._delimiter, self._offset)


class _LookupInterface:
    """A table's dtypes and `table[keys]`."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)

    @property
    def key_dtype(self):
        """The dtype of the table's keys."""
        return self._key_dtype

    @property
    def value_dtype(self):
        """The dtype of the table's values."""
        return self._value_dtype

    def __getitem__(self, keys):
        """`self.lookup(keys)`."""
        return self.lookup(keys)

    def _check_keys(self, keys):
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, received: {keys.dtype}")


@export("lookup.StaticHashTable")
class StaticHashTable(_LookupInterface):
    """An immutable key -> value table, filled by `initializer`; absent keys give `default_value`."""

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        super().__init__(initializer.key_dtype, initializer.value_dtype)
        self._initializer = initializer
        self._name = name or "hash_table"
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        if self._default_value.shape.rank != 0:
            raise ValueError(f"Shapes {self._default_value.shape} and () are not compatible")
        self._data = lookup_ops.HashTableData(self._key_dtype, self._value_dtype)
        initializer.initialize(self)

    @property
    def name(self):
        """The table's graph name; None for an eagerly created table, as in TF."""
        return None

    @property
    def default_value(self):
        """The value given for keys that are not in the table."""
        return self._default_value

    @property
    def resource_handle(self):
        """The table's contents (minitf has no resource tensors)."""
        return self._data

    def size(self, name=None):
        """The number of keys in the table, an int64 scalar."""
        return lookup_ops.lookup_table_size(self._data)

    def lookup(self, keys, name=None):
        """The value of each key (a Tensor, RaggedTensor or SparseTensor of key_dtype), with the
        keys' structure; `default_value` where a key is absent."""
        self._check_keys(keys)
        values = lookup_ops.lookup_table_find(self._data, _composite_values(keys), self._default_value)
        return _rebuild(keys, values)

    def export(self, name=None):
        """`(keys, values)`: two tensors holding every key and its value."""
        return lookup_ops.lookup_table_export(self._data)


@export("lookup.StaticVocabularyTable")
class StaticVocabularyTable(_LookupInterface):
    """A vocabulary: keys of `initializer` map to their int64 ids, any other key to one of
    `num_oov_buckets` buckets after them, `Fingerprint64(key) % num_oov_buckets + size`."""

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous=False):
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        if name:
            name = name.rstrip("/")
        if initializer:
            lookup_key_dtype = initializer.key_dtype if lookup_key_dtype is None else dtypes.as_dtype(
                lookup_key_dtype)
            supported = (dtypes.int64, dtypes.string)
            if initializer.key_dtype not in supported:
                raise TypeError(f"Invalid `key_dtype`, expected one of {supported}, but got "
                                f"{initializer.key_dtype}.")
            if initializer.key_dtype.is_integer != lookup_key_dtype.is_integer:
                raise TypeError(f"Invalid `key_dtype`, expected "
                                f"{'integer' if lookup_key_dtype.is_integer else 'non-integer'} but got "
                                f"{initializer.key_dtype}.")
            if initializer.value_dtype != dtypes.int64:
                raise TypeError(f"Invalid `value_dtype`, expected {dtypes.int64} but got "
                                f"{initializer.value_dtype}.")
            self._table = StaticHashTable(initializer, default_value=-1)
        else:
            lookup_key_dtype = dtypes.string
            self._table = None
            name = name or "hash_bucket"
        if not lookup_key_dtype.is_integer and lookup_key_dtype != dtypes.string:
            raise TypeError(f"Invalid `key_dtype`, expected integer or string, got {lookup_key_dtype}")
        self._num_oov_buckets = num_oov_buckets
        self._table_name = name.split("/")[-1] if name else None
        super().__init__(lookup_key_dtype, dtypes.int64)

    @property
    def name(self):
        """The name given to the table (None when none was given and it has an initializer)."""
        return self._table_name

    @property
    def resource_handle(self):
        """The vocabulary's contents, or None for a table of buckets only."""
        return self._table.resource_handle if self._table is not None else None

    def size(self, name=None):
        """The vocabulary size plus the number of OOV buckets, an int64 scalar."""
        size = self._table.size() if self._table else convert_to_tensor(0, dtype=dtypes.int64)
        return add(size, convert_to_tensor(self._num_oov_buckets, dtype=dtypes.int64))

    def lookup(self, keys, name=None):
        """The id of each key, with the keys' structure (Tensor, RaggedTensor or SparseTensor)."""
        self._check_keys(keys)
        values = _composite_values(keys)
        if self._table is not None and self._table.key_dtype == dtypes.int64:
            values = cast(values, dtypes.int64)
        text = values if values.dtype == dtypes.string else as_string(values)
        buckets = to_hash_bucket_fast(text, num_buckets=self._num_oov_buckets)
        if self._table is not None:
            ids = self._table.lookup(values)
            buckets = add(buckets, self._table.size())
            ids = where(not_equal(ids, self._table.default_value), ids, buckets)
        else:
            ids = buckets
        return _rebuild(keys, ids)
