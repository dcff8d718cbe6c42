"""Diagonals of batched matrices: tf.linalg.diag, diag_part and set_diag (TF's MatrixDiagV3,
MatrixDiagPartV3 and MatrixSetDiagV3), with one diagonal or a band of them, alignment, padding
and explicit output sizes, and their gradients (each is the adjoint of another)."""
from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.ops._core import Op, Tensor, Variable, REAL, thread_state, array_module, as_tensor, binary, record
from minitf.api_export import export

__all__ = ["diag", "diag_part", "set_diag"]

_KERNEL_DTYPES = REAL + ("complex64", "complex128", "bool")
DIAG = Op("MatrixDiagV3", batchable=True, dtypes=_KERNEL_DTYPES)
DIAG_PART = Op("MatrixDiagPartV3", batchable=True, dtypes=_KERNEL_DTYPES)
SET_DIAG = Op("MatrixSetDiagV3", batchable=True, dtypes=_KERNEL_DTYPES)
_ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


# -- argument checks ---------------------------------------------------------------------------

def _int32_operand(value, op, what, index):
    """`value` as an int32 tensor, as TF's wrapper converts k, num_rows and num_cols."""
    if isinstance(value, (Tensor, Variable)) and value.dtype != dtypes.int32:
        raise op.invalid(f"cannot compute {op.name} as input #{index}(zero-based) was expected to be a "
                         f"int32 tensor but is a {value.dtype.name} tensor ({what}); cast it with tf.cast")
    return as_tensor(value, dtype=dtypes.int32)


def _diag_index(k, op):
    """(lower, upper) from `k`: an int or a (low, high) pair, lower <= upper."""
    t = _int32_operand(k, op, "k", 1)
    v = t._value
    if v.ndim > 1:
        raise op.invalid(f"diag_index must be a scalar or vector, received shape: {list(t.shape)}; "
                         f"k is one offset or a (low, high) pair")
    if v.size == 0:
        raise op.invalid("Expected diag_index to have at least 1 element; k is one offset or a (low, high) pair")
    if v.size > 2:
        raise op.invalid(f"diag_index must have only one or two elements, received {v.size} elements "
                         f"(k={v.tolist()}); k is one offset or a (low, high) pair")
    flat = [int(e) for e in v.reshape(-1).tolist()]
    lower, upper = flat[0], flat[-1]
    return lower, upper


def _check_order(lower, upper, op):
    if lower > upper:
        raise op.invalid(f"lower_diag_index must not be larger than upper_diag_index: {lower} > {upper}; "
                         f"pass k as (low, high)")


def _check_align(align):
    if not isinstance(align, str):
        raise TypeError(f"Expected string for argument 'align' not {align!r}.")
    if align not in _ALIGNS:
        raise errors.InvalidArgumentError(
            None, None, f"Value for attr 'align' of \"{align}\" is not in the list of allowed values: "
                        f"\"LEFT_RIGHT\", \"RIGHT_LEFT\", \"LEFT_LEFT\", \"RIGHT_RIGHT\"")


def _check_kernel(x, op):
    if x.dtype == dtypes.string:
        raise errors.NotFoundError(None, None, f"Could not find device for node: {op.name}[T=DT_STRING]: "
                                               f"{op.name} has no kernel for strings")
    op.check_dtype(x)


def _padding(value, x, op, index):
    """The padding value as a 0-d array of `x`'s dtype (TF converts it to the input's dtype)."""
    if isinstance(value, (Tensor, Variable)) and value.dtype != x.dtype:
        raise op.invalid(f"cannot compute {op.name} as input #{index}(zero-based) was expected to be a "
                         f"{x.dtype.name} tensor but is a {value.dtype.name} tensor (padding_value); "
                         f"cast it with tf.cast")
    p = as_tensor(value, dtype=x.dtype)
    if p._value.ndim != 0:
        raise op.invalid(f"padding_value must be a scalar, received shape {list(p.shape)}")
    return array_module(x._value).asarray(p._value)


def _bool_padding(x, padding_value):
    # TF's wrapper turns the padding into a bool for a bool input (0 is not a bool otherwise)
    dt = getattr(x, "dtype", None)
    try:
        is_bool = dt is not None and dtypes.as_dtype(dt) == dtypes.bool
    except (TypeError, ValueError):
        is_bool = False
    return bool(padding_value) if is_bool and not isinstance(padding_value, (Tensor, Variable)) else padding_value


# -- the index arithmetic shared by the three ops (raw arrays of one array module) -------------

def _right_aligned(d, align):
    """Whether diagonal `d` (an index array) is aligned right: the first word of `align` is for
    the superdiagonals (d >= 0), the second for the subdiagonals (d <= 0)."""
    sup, sub = align.split("_")
    return ((d >= 0) & (sup == "RIGHT")) | ((d <= 0) & (sub == "RIGHT"))


def _band_positions(rows, cols, lower, upper, max_len, align, xp):
    """For each cell of a [rows, cols] matrix: whether it lies in the band, and the index of its
    value in the flattened [num_diags, max_len] diagonals."""
    m = xp.arange(rows)[:, None]
    n = xp.arange(cols)[None, :]
    d = n - m
    in_band = (d >= lower) & (d <= upper)
    diag_len = xp.minimum(rows + xp.minimum(d, 0), cols - xp.maximum(d, 0))
    offset = xp.where(_right_aligned(d, align), max_len - diag_len, 0)
    flat = (upper - d) * max_len + n - xp.maximum(d, 0) + offset
    return in_band, xp.where(in_band, flat, 0)


def _scatter(diagonals, batch, rows, cols, lower, upper, max_len, align, fill):
    """[batch..., rows, cols]: the band from `diagonals` ([batch..., num_diags * max_len]) and
    `fill` (a scalar or a [batch..., rows, cols] array) elsewhere."""
    xp = array_module(diagonals)
    in_band, flat = _band_positions(rows, cols, lower, upper, max_len, align, xp)
    if diagonals.shape[-1] == 0 or not bool(in_band.any()):
        return xp.array(xp.broadcast_to(fill, batch + (rows, cols)))
    values = xp.take(diagonals, flat, axis=-1)
    return xp.where(in_band, values, fill)


def _max_diag_len(rows, cols, lower, upper):
    return max(0, min(rows + min(upper, 0), cols - max(lower, 0)))


def _check_bounds(rows, cols, lower, upper, op):
    for label, k in (("lower", lower), ("upper", upper)):
        if not (-rows < k < cols or k == 0):
            raise op.invalid(f"{label}_diag_index is out of bound: {k}. It must be between {-rows} and {cols} "
                             f"for matrices of shape [{rows}, {cols}]")
    _check_order(lower, upper, op)


# -- the ops -----------------------------------------------------------------------------------

@export("linalg.diag")
@dispatch.add_dispatch_support
def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Batched matrices with `diagonal` on diagonal(s) `k` and `padding_value` elsewhere.

    Args:
      diagonal: [..., L] for one diagonal, or [..., num_diags, L] for a band k=(low, high)
        (num_diags = high - low + 1, the highest diagonal first).
      k: the diagonal's offset (positive: above the main diagonal), or a (low, high) pair.
      num_rows, num_cols: the output's matrix size; -1 infers the smallest that fits (square
        when both are -1).
      padding_value: the scalar everywhere outside the band.
      align: how diagonals shorter than L sit in their row of `diagonal`: "RIGHT_LEFT" (default:
        superdiagonals right-aligned, subdiagonals left-aligned), "LEFT_RIGHT", "LEFT_LEFT" or
        "RIGHT_RIGHT".
      name: ignored (TF's op name).

    Returns:
      [..., num_rows, num_cols] of `diagonal`'s dtype.

    Raises:
      InvalidArgumentError: a bad k, sizes too small or inconsistent with the diagonals, a
        non-scalar padding_value or size, an unknown alignment.
    """
    d = as_tensor(diagonal)
    pad = _padding(_bool_padding(diagonal, padding_value), d, DIAG, 4)
    _check_kernel(d, DIAG)
    lower, upper = _diag_index(k, DIAG)
    rows, cols = _size(num_rows, "num_rows", 2), _size(num_cols, "num_cols", 3)
    _check_align(align)
    v = d._value
    if v.ndim < 1:
        raise DIAG.invalid(f"diagonal must be at least 1-dim, received shape: {list(d.shape)}")
    _check_order(lower, upper, DIAG)
    num_diags = upper - lower + 1
    band = lower != upper
    if band and (v.ndim < 2 or v.shape[-2] != num_diags):
        raise DIAG.invalid(f"The number of diagonals provided in the input does not match the "
                           f"lower_diag_index and upper_diag_index range: k=({lower}, {upper}) needs "
                           f"diagonal of shape [..., {num_diags}, max_diag_len], got {list(d.shape)}")
    max_len = v.shape[-1]
    min_rows, min_cols = max_len - min(upper, 0), max_len + max(lower, 0)
    if rows != -1 and rows < min_rows:
        raise DIAG.invalid(f"The number of rows is too small: num_rows={rows}, the diagonals need {min_rows}")
    if cols != -1 and cols < min_cols:
        raise DIAG.invalid(f"The number of columns is too small: num_cols={cols}, the diagonals need {min_cols}")
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    if rows != min_rows and cols != min_cols:
        raise DIAG.invalid(f"The number of rows or columns is not consistent with the specified d_lower, "
                           f"d_upper, and diagonal: num_rows={rows}, num_cols={cols}; one of them must be "
                           f"the smallest that fits ({min_rows} rows or {min_cols} columns)")
    batch = tuple(v.shape[:-2] if band else v.shape[:-1])
    out = _scatter(v.reshape(batch + (num_diags * max_len,)), batch, rows, cols, lower, upper, max_len,
                   align, pad)
    y = Tensor(out)
    if thread_state.active:
        # as TF's rule: an empty diagonal with k outside the output's bounds raises here too
        record(DIAG, (d,), (y,), lambda g: diag_part(g, k=(lower, upper), align=align))
    return y


def _size(value, label, index):
    """num_rows/num_cols as an int: an int32 scalar (TF's InvalidArgumentError otherwise)."""
    t = _int32_operand(value, DIAG, label, index)
    if t._value.ndim != 0:
        raise DIAG.invalid(f"{label} must be a scalar, received shape {list(t.shape)}")
    return int(t._value)


@export("linalg.diag_part")
@dispatch.add_dispatch_support
def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002
    """Diagonal(s) `k` of the last two dimensions: [..., M, N] -> [..., L] for one diagonal,
    [..., num_diags, L] for a band k=(low, high), highest first; L is the longest diagonal in
    the band and shorter ones are padded with `padding_value` on the side `align` says.

    Raises:
      InvalidArgumentError: rank < 2, k outside (-M, N) or low > high, a non-scalar padding
        value, an unknown alignment.
    """
    x = as_tensor(input)
    pad = _padding(_bool_padding(input, padding_value), x, DIAG_PART, 2)
    _check_kernel(x, DIAG_PART)
    lower, upper = _diag_index(k, DIAG_PART)
    _check_align(align)
    v = x._value
    if v.ndim < 2:
        raise DIAG_PART.invalid(f"input must be at least 2-dim, received shape: {list(x.shape)}")
    rows, cols = v.shape[-2:]
    _check_bounds(rows, cols, lower, upper, DIAG_PART)
    xp = array_module(v)
    num_diags, max_len = upper - lower + 1, _max_diag_len(rows, cols, lower, upper)
    batch = tuple(v.shape[:-2])
    d = upper - xp.arange(num_diags)[:, None]
    p = xp.arange(max_len)[None, :]
    diag_len = xp.minimum(rows + xp.minimum(d, 0), cols - xp.maximum(d, 0))
    offset = xp.where(_right_aligned(d, align), max_len - diag_len, 0)
    r, c = p + xp.maximum(-d, 0) - offset, p + xp.maximum(d, 0) - offset
    inside = (r >= 0) & (r < rows) & (c >= 0) & (c < cols)
    if rows * cols == 0 or num_diags * max_len == 0:
        out = xp.array(xp.broadcast_to(pad, batch + (num_diags, max_len)))
    else:
        values = xp.take(v.reshape(batch + (rows * cols,)), xp.where(inside, r * cols + c, 0), axis=-1)
        out = xp.where(inside, values, pad)
    if num_diags == 1:
        out = out[..., 0, :]
    y = Tensor(out)
    if thread_state.active:
        record(DIAG_PART, (x,), (y,),
               lambda g: diag(g, k=(lower, upper), num_rows=rows, num_cols=cols, align=align))
    return y


@export("linalg.set_diag")
@dispatch.add_dispatch_support
def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002
    """`input` [..., M, N] with diagonal(s) `k` replaced by `diagonal`: [..., L] for one diagonal,
    [..., num_diags, L] for a band k=(low, high), laid out as tf.linalg.diag_part returns them.

    Raises:
      InvalidArgumentError: rank < 2, k outside (-M, N) or low > high, a diagonal whose shape is
        not diag_part's for this k, dtypes that differ, an unknown alignment.
    """
    x, d = binary(input, diagonal, SET_DIAG)
    _check_kernel(x, SET_DIAG)
    lower, upper = _diag_index(k, SET_DIAG)
    _check_align(align)
    v, dv = x._value, d._value
    if v.ndim < 2:
        raise SET_DIAG.invalid(f"input must be at least 2-dim, received shape: {list(x.shape)}")
    rows, cols = v.shape[-2:]
    _check_bounds(rows, cols, lower, upper, SET_DIAG)
    num_diags, max_len = upper - lower + 1, _max_diag_len(rows, cols, lower, upper)
    batch = tuple(v.shape[:-2])
    expected = batch + ((num_diags,) if num_diags > 1 else ()) + (max_len,)
    if tuple(dv.shape) != expected:
        raise SET_DIAG.invalid(
            f"Either first dimensions of diagonal don't match input.shape[:-2], or diagonal.shape[:-1] is "
            f"not equal to the longests diagonal in range [lower_diag_index:upper_diag_index].\n"
            f"Input shape: {list(x.shape)}\nDiagonal shape: {list(d.shape)}\nExpected diagonal shape: "
            f"{list(expected)}")
    y = Tensor(_scatter(dv.reshape(batch + (num_diags * max_len,)), batch, rows, cols, lower, upper,
                        max_len, align, v))
    if thread_state.active:
        def grad(g):
            xp = array_module(g._value)
            in_band, _ = _band_positions(rows, cols, lower, upper, max_len, align, xp)
            keep = Tensor(xp.asarray(~in_band, dtype=g._value.dtype))
            return g * keep, diag_part(g, k=(lower, upper), align=align)
        record(SET_DIAG, (x, d), (y,), grad)
    return y
