"""Host-side index arithmetic the sparse ops share: orderings, merges, bound checks.

Index bookkeeping is plain numpy on int64 arrays (it never needs a gradient); only the values
travel through minitf's differentiable ops, so gradients reach them without new gradient rules.
"""
import numpy as np

from minitf import backend
from minitf.errors import errors

SORT_HINT = ("Many sparse ops require sorted indices.\n    Use `tf.sparse.reorder` to create a "
             "correctly ordered copy.\n\n")


def host(tensor):
    """The tensor's value as a host numpy array."""
    return np.asarray(backend.to_host(tensor._value))


def index_text(row):
    """An index as TF prints it in messages: `[0,3]`."""
    return "[" + ",".join(str(int(v)) for v in row) + "]"


def lex_order(indices):
    """The stable permutation sorting the rows of `indices` [N, rank] in row-major order."""
    if indices.shape[0] == 0 or indices.shape[1] == 0:
        return np.arange(indices.shape[0], dtype=np.int64)
    return np.lexsort(indices.T[::-1]).astype(np.int64)


def compare_rows(a, b):
    """-1, 0 or 1 as index row `a` comes before, equals or comes after `b` in row-major order."""
    for x, y in zip(a, b):
        if x != y:
            return -1 if x < y else 1
    return 0


def merge(a_idx, b_idx):
    """TF's two-pointer merge of two index lists, as SparseAdd and SparseSparseMaximum walk them.

    Returns (indices, from_a, from_b): for each output entry the position in a and in b that
    feeds it, or -1. Like TF, unsorted inputs are merged as they come (no reordering).
    """
    i = j = 0
    na, nb = a_idx.shape[0], b_idx.shape[0]
    out, fa, fb = [], [], []
    while i < na and j < nb:
        c = compare_rows(a_idx[i], b_idx[j])
        if c < 0:
            out.append(a_idx[i]), fa.append(i), fb.append(-1)
            i += 1
        elif c > 0:
            out.append(b_idx[j]), fa.append(-1), fb.append(j)
            j += 1
        else:
            out.append(a_idx[i]), fa.append(i), fb.append(j)
            i += 1
            j += 1
    for k in range(i, na):
        out.append(a_idx[k]), fa.append(k), fb.append(-1)
    for k in range(j, nb):
        out.append(b_idx[k]), fa.append(-1), fb.append(k)
    rank = a_idx.shape[1]
    indices = np.asarray(out, dtype=np.int64).reshape(len(out), rank)
    return indices, np.asarray(fa, dtype=np.int64), np.asarray(fb, dtype=np.int64)


def check_same_shape(a_shape, b_shape, op_name):
    """TF's InvalidArgumentError when two sparse operands' dense shapes differ."""
    if len(a_shape) != len(b_shape):
        raise errors.invalid_argument(
            op_name, f"Operands' shapes do not match: got ranks {len(a_shape)} and {len(b_shape)} "
                     f"({list(a_shape)} vs. {list(b_shape)}); both SparseTensors need one dense_shape")
    for d, (x, y) in enumerate(zip(a_shape, b_shape)):
        if x != y:
            raise errors.invalid_argument(
                op_name, f"Operands' shapes do not match: got {x} and {y} for dimension {d}")


def check_same_dtype(a, b, op_name, position):
    """TF's InvalidArgumentError when the second operand's values differ in dtype."""
    if a.dtype != b.dtype:
        raise errors.invalid_argument(
            op_name, f"cannot compute {op_name} as input #{position}(zero-based) was expected to be a "
                     f"{short_dtype(a.dtype)} tensor but is a {short_dtype(b.dtype)} tensor; cast one operand's "
                     f"values with tf.cast")


def short_dtype(dtype):
    """The dtype as TF's kernel messages name it (float32 is 'float')."""
    # TF's messages say "float"/"double" for float32/float64
    return {"float32": "float", "float64": "double"}.get(dtype.name, dtype.name)


def validate_for_dense(indices, shape, op_name):
    """TF's SparseToDense checks: each index in bounds, strictly after the previous one."""
    dims = np.asarray(shape, dtype=np.int64)
    for n in range(indices.shape[0]):
        row = indices[n]
        if np.any(row < 0) or np.any(row >= dims):
            raise errors.invalid_argument(
                op_name, f"indices[{n}] = {index_text(row)} is out of bounds: need 0 <= index < "
                         f"{index_text(dims)}")
        if n:
            c = compare_rows(indices[n - 1], row)
            if c == 0:
                raise errors.invalid_argument(op_name, f"indices[{n}] = {index_text(row)} is repeated")
            if c > 0:
                raise errors.invalid_argument(
                    op_name, f"indices[{n}] = {index_text(row)} is out of order. {SORT_HINT}")


def check_in_bounds(indices, shape, op_name):
    """InvalidArgumentError naming the first index outside `shape` (ops that allow any order)."""
    dims = np.asarray(shape, dtype=np.int64)
    bad = np.nonzero(np.any((indices < 0) | (indices >= dims), axis=1))[0] if indices.size else []
    if len(bad):
        n = int(bad[0])
        raise errors.invalid_argument(
            op_name, f"indices[{n}] = {index_text(indices[n])} is out of bounds: need 0 <= index < "
                     f"{index_text(dims)}")


def normalize_axes(axis, rank, op_name):
    """Reduction axes as sorted non-negative ints; None means all."""
    if axis is None:
        return list(range(rank))
    axes = np.asarray(axis, dtype=np.int64).reshape(-1).tolist()
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise errors.invalid_argument(
                op_name, f"Invalid reduction dimension {a}, for input with {rank} dimensions.")
        out.append(a % rank)
    return sorted(set(out))
