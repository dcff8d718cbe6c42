"""tf.io.decode_csv, and the CSV field reading it shares with tf.data's CsvDataset: how one
record splits into fields (TF's DecodeCSV kernel, RFC 4180 quotes) and how one field reads as
int32, int64, float, double or string (TF's safe_strto32/64 and safe_strtof/d: ASCII blanks
around the number, an optional sign, decimal integers; floats also in hex, inf and nan). String
tensors live on the host, so this runs there, as TF's kernel does; it is not differentiable."""
import re

import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.ops._core import Tensor, thread_state, is_graph_value
from minitf.ops.decode_raw import strings
from minitf.tensor_spec import TensorSpec
from minitf.api_export import export

__all__ = ["decode_csv", "field_value", "split_record"]

_OP = "DecodeCSV"
_TYPES = {dtypes.float32: "float", dtypes.float64: "double", dtypes.int32: "int32", dtypes.int64: "int64",
          dtypes.string: "string"}
_BLANKS = b" \t\n\v\f\r"  # absl's ascii_isspace
_INT = re.compile(rb"[+-]?[0-9]+\Z")
_DECIMAL = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_HEX = re.compile(rb"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?\Z")
_SPECIAL = re.compile(rb"[+-]?(?:inf(?:inity)?|nan(?:\([0-9a-zA-Z_]*\))?)\Z", re.IGNORECASE)


def _float(text):
    """A Python float of a number TF's strtod accepts, or None."""
    if text[:2] == b"+-":  # absl takes one '+' before the number, never '+-'
        return None
    if _DECIMAL.match(text):
        return float(text)  # overflows to inf, as TF
    if _HEX.match(text):
        try:
            return float.fromhex(text.decode("ascii"))
        except OverflowError:
            return -np.inf if text[:1] == b"-" else np.inf
    if _SPECIAL.match(text):
        return float(text.split(b"(")[0])
    return None


def field_value(field, dtype):
    """The value of one non-empty CSV field (bytes) as a numpy scalar of `dtype` (int32, int64,
    float32, float64) or bytes (string), or None when TF would not read it as that type."""
    if dtype == dtypes.string:
        return field
    text = field.strip(_BLANKS)
    if dtype.is_integer:
        if not _INT.match(text):
            return None
        value = int(text)
        info = np.iinfo(dtype._np)
        return dtype._np.type(value) if info.min <= value <= info.max else None
    value = _float(text)
    if value is None:
        return None
    with np.errstate(over="ignore", under="ignore"):
        return dtype._np.type(value)  # float32: out of range becomes inf, as TF's strtof


def _fail(message):
    raise errors.invalid_argument(_OP, message)


def _quoted(record, i, delim, include):
    """The body of the quoted field whose opening quote precedes index i, and the index after it."""
    n, parts = len(record), []
    while i < n - 1 and not (record[i] == 34 and record[i + 1] == delim):
        if record[i] != 34:
            j = record.find(b'"', i, n - 1)
            j = n - 1 if j < 0 else j
            if include:
                parts.append(record[i:j])
            i = j
        else:
            if record[i + 1] != 34:
                _fail("Quote inside a string has to be escaped by another quote")
            if include:
                parts.append(b'"')
            i += 2
    if not (i < n and record[i] == 34 and (i == n - 1 or record[i + 1] == delim)):
        _fail("Quoted field has to end with quote followed by delim or end")
    return b"".join(parts), i + 2


def split_record(record, delim=b",", use_quote_delim=True, select_cols=None):
    """The fields of one CSV record (bytes), as TF's DecodeCSV kernel reads them: newlines before
    a field are skipped, a field starting with '"' is quoted ('""' inside is one quote), unquoted
    fields may hold no quote (with use_quote_delim) and no CR/LF, a trailing delimiter ends with
    an empty field. With select_cols (increasing indices), only those fields, stopping after the
    last. Raises TF's InvalidArgumentError for malformed quoting."""
    delim_byte = delim[0]
    fields, parsed, chosen, n, i = [], 0, 0, len(record), 0
    if not n:
        return fields
    bad = (b'"', b"\n", b"\r") if use_quote_delim else (b"\n", b"\r")
    while i < n:
        if record[i] in (10, 13):
            i += 1
            continue
        include = select_cols is None or select_cols[chosen] == parsed
        if use_quote_delim and record[i] == 34:
            field, i = _quoted(record, i + 1, delim_byte, include)
        else:
            end = record.find(delim, i)
            end = n if end < 0 else end
            field = record[i:end]
            if any(b in field for b in bad):
                _fail("Unquoted fields cannot have quotes/CRLFs inside")
            i = end + 1
        parsed += 1
        if include:
            fields.append(field)
            chosen += 1
            if select_cols is not None and chosen == len(select_cols):
                return fields
    if (select_cols is None or select_cols[chosen] == parsed) and record[-1] == delim_byte:
        fields.append(b"")
    return fields


def _defaults(record_defaults):
    """(dtype, default or None for a required column) per column, checked as TF checks them."""
    tensors = [convert_to_tensor(d) for d in record_defaults]
    if not tensors:
        _fail("Length for attr 'OUT_TYPE' of 0 must be at least minimum 1; give one default per column")
    for t in tensors:
        if t.dtype not in _TYPES:
            _fail(f"Value for attr 'OUT_TYPE' of {t.dtype.name} is not in the list of allowed values: float, "
                  f"double, int32, int64, string")
    out = []
    for i, t in enumerate(tensors):
        if t.shape.rank > 1:
            _fail("Each record default should be at most rank 1")
        size = int(np.prod(t.shape.as_list()))
        if size >= 2:
            _fail(f"There should only be 1 default per field but field {i} has {size}")
        value = np.asarray(t.numpy(), dtype=object).reshape(-1)[0] if size else None
        if t.dtype == dtypes.string and value is not None and not isinstance(value, bytes):
            value = str(value).encode()
        out.append((t.dtype, value))
    return out


def _traced(records, record_defaults, kwargs):
    """One DecodeCSV node of the graph being traced. Its outputs have the records' static shape
    and the defaults' dtypes (TF's shape function): the node is not run on examples, whose empty
    strings are no records."""
    shape = records.shape if is_graph_value(records) else convert_to_tensor(records, dtypes.string).shape
    out = [d.dtype if is_graph_value(d) else convert_to_tensor(d).dtype for d in record_defaults]
    for dtype in out:
        if dtype not in _TYPES:
            _fail(f"Value for attr 'OUT_TYPE' of {dtype.name} is not in the list of allowed values: float, "
                  f"double, int32, int64, string")
    specs = [TensorSpec(shape, dtype) for dtype in out]
    return thread_state.graph.call(decode_csv, (records, list(record_defaults)), kwargs, abstract=lambda *a, **k: specs,
                             op_type=_OP)


@export("io.decode_csv")
@dispatch.add_dispatch_support
def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, na_value="", select_cols=None,
               name=None):
    """Read CSV records into one tensor per column (tf.io.decode_csv).

    Args:
      records: a string tensor of any shape; each element one record (a line of CSV).
      record_defaults: one entry per (selected) column, each a scalar or a tensor of at most
        one element whose dtype (float32, float64, int32, int64 or string) is the column's: a
        value replaces empty or `na_value` fields; an empty one (`[]`) makes the column required.
      field_delim: the one-character field separator.
      use_quote_delim: whether '"' quotes fields (RFC 4180); if False it is an ordinary character.
      na_value: a field equal to it counts as missing.
      select_cols: increasing, non-negative column indices to read (one default each).
      name: ignored.

    Returns:
      A list of tensors, one per column, each of `records`' shape and its default's dtype.

    Raises:
      ValueError: select_cols not strictly increasing, negative, or not one per default.
      InvalidArgumentError: a record with the wrong number of fields or malformed quotes, a field
        that does not read as its column's type (numbers may have blanks around them), a missing
        required field, a default of another dtype or with more than one element, a field_delim
        of other than one character, or records that are not strings.
    """
    if select_cols is not None and any(select_cols[i] >= select_cols[i + 1] for i in range(len(select_cols) - 1)):
        raise ValueError("select_cols is not strictly increasing.")
    if select_cols is not None and select_cols[0] < 0:
        raise ValueError("select_cols contains negative values.")
    if select_cols is not None and len(select_cols) != len(record_defaults):
        raise ValueError("Length of select_cols and record_defaults do not match.")
    if thread_state.graph is not None and (is_graph_value(records) or is_graph_value(list(record_defaults))):
        return _traced(records, record_defaults, dict(field_delim=field_delim, use_quote_delim=use_quote_delim,
                                                      na_value=na_value, select_cols=select_cols, name=name))
    data = strings(records, _OP, "records")
    columns = _defaults(record_defaults)
    delim = field_delim.encode() if isinstance(field_delim, str) else bytes(field_delim)
    if len(delim) != 1:
        _fail(f"field_delim should be only 1 char, got {field_delim!r}")
    na = na_value.encode() if isinstance(na_value, str) else bytes(na_value)
    select = None if select_cols is None else [int(c) for c in select_cols]
    flat = data.reshape(-1)
    outputs = [np.empty(len(flat), dtype=object if d == dtypes.string else d._np) for d, _ in columns]
    for r, record in enumerate(flat):
        fields = split_record(record, delim, bool(use_quote_delim), select)
        if len(fields) != len(columns):
            _fail(f"Expect {len(columns)} fields but have {len(fields)} in record {r}")
        for f, (field, (dtype, default), out) in enumerate(zip(fields, columns, outputs)):
            if not field or field == na:
                if default is None:
                    _fail(f"Field {f} is required but missing in record {r}! (give the column a default in "
                          f"record_defaults)")
                out[r] = default
                continue
            value = field_value(field, dtype)
            if value is None:
                _fail(f"Field {f} in record {r} is not a valid {_TYPES[dtype]}: {field.decode('utf-8', 'replace')}")
            out[r] = value
    return [Tensor(out.reshape(data.shape)) for out in outputs]
