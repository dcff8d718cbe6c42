"""Linear algebra: matmul, einsum, tensordot, inverses, determinants, solves and factorizations,
with gradients. The norms live in ops/norms.py and are re-exported here (tf.linalg.norm)."""
import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.ops._core import (Op, Tensor, Variable, thread_state, array_module, as_tensor, binary,
                              check_float, record, graph_call, is_graph_value, tracing)
from minitf.ops.array import broadcast_to, eye, reshape, transpose, where, zeros_like
from minitf.ops.arg_checks import named
from minitf.ops.math import log
from minitf.ops.math_unary import conj_or_self
from minitf.ops.linalg_diag import diag, diag_part  # noqa: F401 (tf.linalg.diag, diag_part)
from minitf.ops.norms import l2_normalize, norm
from minitf.ops.reduce import reduce_sum
from minitf.api_export import export

__all__ = ["matmul", "tensordot", "einsum", "matvec", "matrix_transpose", "adjoint", "eye", "diag",
           "diag_part", "trace", "band_part", "inv", "det", "slogdet", "logdet", "solve", "cholesky",
           "norm", "l2_normalize"]


def _swap(v, xp):
    return xp.swapaxes(v, -1, -2)


MATMUL = Op("MatMul", batchable=True)


def _check_transpose_flags(transpose_a, transpose_b, adjoint_a, adjoint_b):
    """TF's errors for matmul's flags: each a bool, and not both transpose and adjoint of a side."""
    for t, adj, side in ((transpose_a, adjoint_a, "a"), (transpose_b, adjoint_b, "b")):
        for flag, label in ((t, "transpose_"), (adj, "adjoint_")):
            if flag and not isinstance(flag, (bool, np.bool_)):
                raise TypeError(f"tf.matmul: expected a bool for argument `{label}{side}`, not {flag!r}")
        if t and adj:
            raise ValueError(f"tf.matmul: Only one of `transpose_{side}` and `adjoint_{side}` can be True. "
                             f"Received `transpose_{side}`={t}, `adjoint_{side}`={adj}.")


@export("matmul", "linalg.matmul")
def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, name=None):
    """Matrix product over the last two dimensions, broadcasting leading (batch) dimensions.

    Args:
      a, b: tensors of rank >= 2 and one dtype: float, int32/int64 or complex; int16 only with
        batch dimensions; int8/uint8 only with output_type=tf.int32 (TF's CPU kernels).
      transpose_a, transpose_b: transpose that operand's last two dimensions first.
      adjoint_a, adjoint_b: conjugate-transpose that operand first.
      a_is_sparse, b_is_sparse: accepted for TF's signature.
      output_type: the product's dtype (int32 for int8/uint8 operands).
      name: ignored (TF's op name).

    Returns:
      The product, [..., M, K] for a [..., M, N] and b [..., N, K].

    Raises:
      ValueError: both transpose_x and adjoint_x for one operand.
      InvalidArgumentError: rank < 2, inner dimensions that differ, batch dimensions that do
        not broadcast, or a dtype without a kernel.
      NotFoundError: a dtype TF declares but has no CPU kernel for (unsigned integers).
    """
    if tracing[0] and (is_graph_value(a) or is_graph_value(b)):
        return graph_call(matmul, (a, b), dict(transpose_a=transpose_a, transpose_b=transpose_b, adjoint_a=adjoint_a, adjoint_b=adjoint_b, a_is_sparse=a_is_sparse, b_is_sparse=b_is_sparse, output_type=output_type))
    if transpose_a or transpose_b or adjoint_a or adjoint_b:  # (the common call skips the checks)
        _check_transpose_flags(transpose_a, transpose_b, adjoint_a, adjoint_b)
    out_dtype = None if output_type is None else dtypes.as_dtype(output_type)
    if out_dtype is not None:
        a, b = as_tensor(a), as_tensor(b)
        if out_dtype == a.dtype and out_dtype == b.dtype:
            out_dtype = None
    if out_dtype is None:
        if isinstance(a, (Tensor, Variable)) and a.dtype.name not in _MATMUL_KERNELS | {"int16"}:
            # TF looks the kernel up for a's dtype before it checks b against it
            ta_ = as_tensor(a)
            b_rank = len(b.shape) if isinstance(b, (Tensor, Variable)) else np.ndim(b)
            _check_matmul_kernel(ta_, ta_, None, ta_._value.ndim > 2 or b_rank > 2)
        try:
            a, b = binary(a, b, MATMUL, hint=True)
        except (TypeError, ValueError) as e:
            raise named(e, "tf.matmul") from None
    ta, tb = transpose_a or adjoint_a, transpose_b or adjoint_b
    va, vb = a._value, b._value
    _check_matmul_kernel(a, b, out_dtype, va.ndim > 2 or vb.ndim > 2)
    if va.ndim < 2 or vb.ndim < 2:
        raise errors.invalid_argument(
            "MatMul", f"In[0] and In[1] must be at least rank 2 for matmul, got shapes {list(a.shape)} "
                      f"and {list(b.shape)}; use tf.linalg.matvec or tf.tensordot for vectors")
    if out_dtype is not None:  # int8/uint8 operands with an int32 product (BatchMatMulV3)
        va, vb = va.astype(out_dtype._np), vb.astype(out_dtype._np)
    xp = array_module(va)
    if ta:
        va = _swap(va, xp).conj() if adjoint_a else _swap(va, xp)
    if tb:
        vb = _swap(vb, xp).conj() if adjoint_b else _swap(vb, xp)
    if va.shape[-1] != vb.shape[-2]:
        raise errors.invalid_argument(
            "MatMul", f"Matrix size-incompatible: In[0]: {list(a.shape)}, In[1]: {list(b.shape)} "
                      f"(transpose_a={ta}, transpose_b={tb}); the inner dimensions must agree")
    try:
        if va.shape[-1] == 1 and (va.ndim > 2 or vb.ndim > 2):
            # batched outer products: numpy's broadcast matmul is ~7x slower than a multiply here
            c = Tensor(va * vb)
        elif va.dtype == np.float16 and xp is np:
            # no half-precision BLAS in numpy: compute in float32 and round, as TF's CPU kernel does
            c = Tensor(np.matmul(va.astype(np.float32), vb.astype(np.float32)).astype(np.float16))
        else:
            c = Tensor(xp.matmul(va, vb))
    except ValueError:
        raise errors.invalid_argument(
            "BatchMatMulV2", f"Incompatible batch dimensions: In[0]: {list(a.shape)}, "
                             f"In[1]: {list(b.shape)}") from None
    if thread_state.active:
        complex_ = va.dtype.kind == "c"
        record(MATMUL, (a, b), (c,), _matmul_grad(a, b, "H" if adjoint_a and complex_ else "T" if ta else "N",
                                                  "H" if adjoint_b and complex_ else "T" if tb else "N"))
    return c


# dtypes with a CPU kernel (MatMul for matrices, BatchMatMulV2 with batch dimensions) and those
# the op accepts but has no kernel for (NotFoundError rather than InvalidArgumentError)
_MATMUL_KERNELS = frozenset(("float16", "bfloat16", "float32", "float64", "int32", "int64",
                             "complex64", "complex128"))
_UNSIGNED = frozenset(("uint8", "uint16", "uint32", "uint64"))


def _check_matmul_kernel(a, b, out_dtype, batched):
    name = a.dtype.name
    if out_dtype is not None:
        if {a.dtype.name, b.dtype.name} <= {"int8", "uint8"} and out_dtype.name == "int32":
            return
        allowed = _MATMUL_KERNELS | {"int8", "int16", "uint8"}
        if name in allowed and b.dtype.name in allowed:
            raise errors.NotFoundError(
                None, None, f"Could not find a BatchMatMulV3 kernel for {name} x {b.dtype.name} -> "
                            f"{out_dtype.name}; only int8/uint8 inputs take an output_type (int32). "
                            f"[Op:BatchMatMulV3]")
        name = name if name not in allowed else b.dtype.name
        raise errors.invalid_argument(
            "BatchMatMulV3", f"Value for attr 'Ta' of {name} is not in the list of allowed values; "
                             f"cast the operands with tf.cast")
    kernels = _MATMUL_KERNELS | {"int16"} if batched else _MATMUL_KERNELS
    if name in kernels:
        return
    op = "BatchMatMulV2" if batched else "MatMul"
    if name in _UNSIGNED:
        raise errors.NotFoundError(
            None, None, f"Could not find a {op} kernel for T={name} on this device; cast the operands "
                        f"to int32 or a float type with tf.cast. [Op:{op}]")
    raise errors.invalid_argument(
        op, f"Value for attr 'T' of {name} is not in the list of allowed values: "
            f"{', '.join(sorted(kernels | _UNSIGNED))}; cast the operands with tf.cast")


def _matmul_grad(a, b, mode_a, mode_b):
    """Gradient rule for op(a) @ op(b), op "N" (as it is), "T" (transposed) or "H" (adjoint): TF's
    MatMul rule, whose operands are conj(a) for "H" and which conjugates them (TF's convention
    for complex values), its gradient taken back through that conj; each operand's gradient is
    computed only if needed."""
    ta, tb = mode_a != "N", mode_b != "N"

    def grad(g):
        def ca():
            return a if mode_a == "H" else conj_or_self(a)

        def cb():
            return b if mode_b == "H" else conj_or_self(b)
        if not ta and not tb:
            ga, gb = lambda: matmul(g, cb(), transpose_b=True), lambda: matmul(ca(), g, transpose_a=True)
        elif not ta and tb:
            ga, gb = lambda: matmul(g, cb()), lambda: matmul(g, ca(), transpose_a=True)
        elif ta and not tb:
            ga, gb = lambda: matmul(cb(), g, transpose_b=True), lambda: matmul(ca(), g)
        else:
            ga, gb = (lambda: matmul(cb(), g, transpose_a=True, transpose_b=True),
                      lambda: matmul(g, ca(), transpose_a=True, transpose_b=True))
        return (lambda: conj_or_self(ga()) if mode_a == "H" else ga(), lambda: conj_or_self(gb()) if mode_b == "H" else gb())
    return grad


# -- helpers ---------------------------------------------------------------------------------

def _as_float_tensor(x, op_name):
    t = as_tensor(x)
    check_float(t, op_name)
    return t


def _check_square(x, op_name):
    shape = x._value.shape
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise errors.invalid_argument(op_name, f"Input must be a square matrix (or a batch of them), "
                                               f"got shape {list(shape)}")


def _add_axes(t, count):
    """`t` with `count` trailing size-1 axes (so a batched scalar broadcasts against matrices)."""
    return reshape(t, tuple(t._value.shape) + (1,) * count)


# -- tensordot and einsum --------------------------------------------------------------------

TENSORDOT = Op("Tensordot")  # names the op in errors; it records the ops it is built from


@export("tensordot", "linalg.tensordot")
@dispatch.add_dispatch_support
def tensordot(a, b, axes, name=None):
    """Sum of products over the given axes of `a` and `b`.

    `axes` is an int N (the last N axes of a with the first N of b) or a pair of axis lists.
    Built from transpose, reshape and one matmul, so its gradient comes for free.
    """
    a, b = binary(a, b, TENSORDOT)
    na, nb = a._value.ndim, b._value.ndim
    if isinstance(axes, Tensor):
        axes = axes.numpy().tolist()
    if isinstance(axes, int):
        if axes < 0 or axes > min(na, nb):
            raise ValueError(f"tensordot: axes={axes} must be in [0, {min(na, nb)}] for shapes "
                             f"{list(a.shape)} and {list(b.shape)}")
        axes_a, axes_b = list(range(na - axes, na)), list(range(axes))
    else:
        if len(axes) != 2:
            raise ValueError(f"tensordot: axes must be an int or a pair of axis lists, got {axes!r}")
        axes_a, axes_b = ([axes[0]] if isinstance(axes[0], int) else list(axes[0]),
                          [axes[1]] if isinstance(axes[1], int) else list(axes[1]))
        if len(axes_a) != len(axes_b):
            raise ValueError(f"tensordot: different number of contraction axes for a and b: "
                             f"{axes_a} vs {axes_b}")
        axes_a = [ax % na for ax in axes_a]
        axes_b = [ax % nb for ax in axes_b]
    sa, sb = a._value.shape, b._value.shape
    # like TF, only the contracted sizes' products must agree (the operands are reshaped to matrices)
    k_a = int(np.prod([sa[i] for i in axes_a], dtype=np.int64))
    k_b = int(np.prod([sb[j] for j in axes_b], dtype=np.int64))
    if k_a != k_b:
        raise errors.invalid_argument(
            "Tensordot", f"Matrix size-incompatible: a{list(sa)} contracts {k_a} values over axes "
                         f"{axes_a} but b{list(sb)} contracts {k_b} over axes {axes_b}")
    free_a = [i for i in range(na) if i not in axes_a]
    free_b = [i for i in range(nb) if i not in axes_b]
    k = int(np.prod([sa[i] for i in axes_a], dtype=np.int64))
    out_shape = tuple(sa[i] for i in free_a) + tuple(sb[i] for i in free_b)
    ma = reshape(transpose(a, free_a + axes_a), (-1 if free_a else 1, k))
    mb = reshape(transpose(b, axes_b + free_b), (k, -1 if free_b else 1))
    return reshape(matmul(ma, mb), out_shape)


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _parse_einsum(equation, shapes):
    """Explicit subscripts (ellipsis expanded into letters) for inputs and output."""
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, out = eq.split("->")
        explicit = True
    else:
        lhs, out, explicit = eq, "", False
    ins = lhs.split(",")
    if len(ins) != len(shapes):
        raise ValueError(f"einsum: equation {equation!r} names {len(ins)} inputs but "
                         f"{len(shapes)} were given")
    used = set(eq) - set(",.->")
    spare = [c for c in _LETTERS if c not in used]
    ell_rank = 0
    for sub, shape in zip(ins, shapes):
        named = len(sub.replace("...", ""))
        if "..." in sub:
            ell_rank = max(ell_rank, len(shape) - named)
        elif named != len(shape):
            raise ValueError(f"einsum: subscript {sub!r} has {named} labels but its input has "
                             f"rank {len(shape)} (shape {list(shape)})")
    ell = "".join(spare[:ell_rank])
    expanded = []
    for sub, shape in zip(ins, shapes):
        if "..." in sub:
            n = len(shape) - len(sub.replace("...", ""))
            sub = sub.replace("...", ell[ell_rank - n:] if n else "")
        expanded.append(sub)
    if explicit:
        out = out.replace("...", ell)
    else:
        counts = {}
        for sub in expanded:
            for c in sub:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    return expanded, out


@export("einsum", "linalg.einsum")
@dispatch.add_dispatch_support
def einsum(equation, *inputs, **kwargs):
    """Einstein summation: `einsum('ij,jk->ik', a, b)` is a matrix product.

    Args:
      equation: subscripts per input, comma separated, and optionally `->` and the output's;
        `...` stands for broadcast dimensions and a label repeated within one input takes its
        diagonal. Without `->` the output is the labels used once, sorted.
      *inputs: tensors of one dtype (float, int32/int64 or complex).
      **kwargs: accepted for TF's signature (name, optimize).

    Returns:
      The summed product; differentiable in every input.

    Raises:
      ValueError: an equation that does not match the inputs' count or ranks.
      InvalidArgumentError: mixed dtypes or sizes that disagree for one label.
      NotFoundError: a dtype with no Einsum kernel.
    """
    tensors = [as_tensor(t) for t in inputs]
    for t in tensors[1:]:
        if t._value.dtype != tensors[0]._value.dtype:
            raise errors.invalid_argument("Einsum", f"all inputs must have one dtype, got "
                                                    f"{tensors[0].dtype.name} and {t.dtype.name}")
    if tensors and tensors[0].dtype.name not in _MATMUL_KERNELS:
        raise errors.NotFoundError(None, None, f"Could not find an Einsum kernel for T="
                                               f"{tensors[0].dtype.name}; cast the inputs to a float "
                                               f"type, int32 or int64. [Op:Einsum]")
    subs, out = _parse_einsum(equation, [t._value.shape for t in tensors])
    return _einsum(subs, out, tensors)


EINSUM = Op("Einsum", batchable=True)


def _einsum(subs, out, tensors):
    """The Einsum op on explicit subscripts (no ellipsis)."""
    xp = array_module(tensors[0]._value)
    spec = ",".join(subs) + "->" + out
    # numpy's einsum takes `optimize` (contraction order); cupy's has no such keyword
    kwargs = {"optimize": len(tensors) > 1} if xp is np else {}
    try:
        raw = xp.einsum(spec, *[t._value for t in tensors], **kwargs)
    except ValueError as e:
        shapes = ", ".join(str(list(t.shape)) for t in tensors)
        raise errors.invalid_argument("Einsum", f"einsum {spec!r} cannot combine shapes {shapes}: {e}") from None
    y = Tensor(xp.asarray(raw, dtype=tensors[0]._value.dtype))
    if thread_state.active:
        def grad(g):
            return tuple((lambda k=k: _einsum_operand_grad(g, subs, out, tensors, k))
                         for k in range(len(tensors)))
        record(EINSUM, tuple(tensors), (y,), grad)
    return y


def _einsum_operand_grad(g, subs, out, tensors, k):
    """Cotangent of operand k: an einsum of g with the other operands, then broadcast/diagonal."""
    used = set("".join(subs) + out)
    spare = [c for c in _LETTERS if c not in used]
    nbatch = g._value.ndim - len(out)
    batch, spare = "".join(spare[:nbatch]), spare[nbatch:]
    target = subs[k]
    sizes = {}
    for sub, t in zip(subs, tensors):
        sizes.update(zip(sub, t._value.shape))
    unique = "".join(dict.fromkeys(target))
    others = [(batch + out, g)] + [(s, t) for j, (s, t) in enumerate(zip(subs, tensors)) if j != k]
    present = set("".join(s for s, _ in others))
    avail = "".join(c for c in unique if c in present)
    r = _einsum([s for s, _ in others], batch + avail, [t for _, t in others])
    if avail != unique:  # labels summed only inside operand k: their gradient is broadcast
        kept = tuple(sizes[c] if c in avail else 1 for c in unique)
        r = broadcast_to(reshape(r, g._value.shape[:nbatch] + kept),
                         g._value.shape[:nbatch] + tuple(sizes[c] for c in unique))
    if unique != target:  # repeated labels: put the gradient on the diagonal via identities
        renamed, eyes, seen = "", [], set()
        for c in target:
            if c in seen:
                fresh = spare.pop(0)
                renamed += fresh
                eyes.append((c + fresh, Tensor(array_module(g._value).eye(sizes[c], dtype=g._value.dtype))))
            else:
                seen.add(c)
                renamed += c
        r = _einsum([batch + unique] + [s for s, _ in eyes], batch + renamed, [r] + [e for _, e in eyes])
    return r


# -- products with vectors, transposes, diagonals ---------------------------------------------

MATVEC = Op("MatVec")  # names the op in errors; it records a matmul


@export("linalg.matvec")
@dispatch.add_dispatch_support
def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """Matrix-vector product over the last dimensions: a [..., M, N] times b [..., N] gives [..., M]."""
    a, b = binary(a, b, MATVEC)
    if b._value.ndim < 1:
        raise errors.invalid_argument("MatVec", f"b must be at least a vector, got shape {list(b.shape)}")
    col = reshape(b, tuple(b._value.shape) + (1,))
    prod = matmul(a, col, transpose_a=transpose_a, adjoint_a=adjoint_a)
    return reshape(prod, tuple(prod._value.shape[:-1]))


@export("linalg.matrix_transpose")
@dispatch.add_dispatch_support
def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Swap the last two dimensions (conjugating complex values when `conjugate`)."""
    x = as_tensor(a)
    nd = x._value.ndim
    if nd < 2:
        raise ValueError(f"matrix_transpose needs a tensor of rank >= 2, got shape {list(x.shape)}")
    return transpose(x, list(range(nd - 2)) + [nd - 1, nd - 2], conjugate=conjugate)


@export("linalg.adjoint")
@dispatch.add_dispatch_support
def adjoint(matrix, name=None):
    """Conjugate transpose of the last two dimensions."""
    return matrix_transpose(matrix, conjugate=True)


@export("linalg.trace")
@dispatch.add_dispatch_support
def trace(x, name=None):
    """Sum of the main diagonal of the last two dimensions."""
    x = as_tensor(x)
    if x._value.ndim < 2:
        raise errors.invalid_argument(
            "MatrixDiagPartV3", f"input must be at least 2-dim, received shape: {list(x.shape)}; trace "
                                f"sums the diagonal of the last two dimensions")
    return einsum("...ii->...", x)


@export("linalg.band_part")
@dispatch.add_dispatch_support
def band_part(input, num_lower, num_upper, name=None):  # noqa: A002
    """Keep a band of each matrix: `num_lower` sub-diagonals and `num_upper` super-diagonals
    (negative means all); everything else becomes zero."""
    x = as_tensor(input)
    if x._value.ndim < 2:
        raise ValueError(f"band_part needs a tensor of rank >= 2, got shape {list(x.shape)}")
    xp = array_module(x._value)
    m, n = x._value.shape[-2:]
    lo, hi = int(num_lower), int(num_upper)
    offset = xp.arange(n)[None, :] - xp.arange(m)[:, None]  # column minus row
    keep = xp.ones((m, n), dtype=bool)
    if lo >= 0:
        keep &= offset >= -lo
    if hi >= 0:
        keep &= offset <= hi
    return where(Tensor(xp.broadcast_to(keep, x._value.shape)), x, zeros_like(x))


# -- inverse, determinants, solves, cholesky ---------------------------------------------------

MATRIX_INVERSE = Op("MatrixInverse", batchable=True)


@export("linalg.inv")
@dispatch.add_dispatch_support
def inv(input, adjoint=False, name=None):  # noqa: A002
    """Inverse of each square matrix in the last two dimensions."""
    x = _as_float_tensor(input, "MatrixInverse")
    _check_square(x, "MatrixInverse")
    xp = array_module(x._value)
    v = _swap(x._value, xp).conj() if adjoint else x._value
    try:
        if v.dtype == np.float16:  # TF has a half kernel; numpy's linalg has none, so go through float32
            y = Tensor(xp.linalg.inv(v.astype(np.float32)).astype(np.float16))
        else:
            y = Tensor(xp.linalg.inv(v))
    except np.linalg.LinAlgError:
        y = None
    if y is None or (xp is not np and v.size and not bool(xp.isfinite(y._value).all())):
        # numpy raises for a singular matrix; cupy's solver hands back infs and nans instead
        raise errors.invalid_argument("MatrixInverse", f"Input is not invertible (shape "
                                                       f"{list(x.shape)})") from None
    if thread_state.active:
        def grad(g):
            # d(A^-1) = -A^-1 dA A^-1, so dA = -A^-T g A^-T
            ga = -matmul(matmul(y, g, adjoint_a=True), y, adjoint_b=True)
            return matrix_transpose(ga, conjugate=True) if adjoint else ga
        record(MATRIX_INVERSE, (x,), (y,), grad)
    return y


MATRIX_DETERMINANT = Op("MatrixDeterminant", batchable=True)


@export("linalg.det")
@dispatch.add_dispatch_support
def det(input, name=None):  # noqa: A002
    """Determinant of each square matrix in the last two dimensions."""
    x = _as_float_tensor(input, "MatrixDeterminant")
    if x._value.dtype == np.float16:
        raise errors.NotFoundError(None, None, "Could not find a MatrixDeterminant kernel for float16; "
                                               "cast to float32. [Op:MatrixDeterminant]")
    _check_square(x, "MatrixDeterminant")
    xp = array_module(x._value)
    y = Tensor(xp.asarray(xp.linalg.det(x._value), dtype=x._value.dtype))
    if thread_state.active:
        record(MATRIX_DETERMINANT, (x,), (y,),
               lambda g: _add_axes(g * y, 2) * conj_or_self(matrix_transpose(inv(x))))  # TF's: inv(x^H)
    return y


LOG_MATRIX_DETERMINANT = Op("LogMatrixDeterminant", batchable=True)


@export("linalg.slogdet")
@dispatch.add_dispatch_support
def slogdet(input, name=None):  # noqa: A002
    """(sign, log|det|) of each square matrix: the log-determinant without overflow."""
    x = _as_float_tensor(input, "LogMatrixDeterminant")
    _check_square(x, "LogMatrixDeterminant")
    xp = array_module(x._value)
    sign, logabs = xp.linalg.slogdet(x._value)
    dt = x._value.dtype
    s, la = Tensor(xp.asarray(sign, dtype=dt)), Tensor(xp.asarray(logabs, dtype=dt))
    if thread_state.active:
        record(LOG_MATRIX_DETERMINANT, (x,), (s, la),
               lambda gs, gl: _add_axes(gl, 2) * conj_or_self(matrix_transpose(inv(x))))
    return s, la


@export("linalg.logdet")
@dispatch.add_dispatch_support
def logdet(matrix, name=None):
    """log(det(matrix)) of Hermitian positive-definite matrices, via the Cholesky factor."""
    chol = cholesky(matrix)
    return 2.0 * reduce_sum(log(diag_part(chol)), axis=-1)


MATRIX_SOLVE = Op("MatrixSolve", batchable=True)


@export("linalg.solve")
@dispatch.add_dispatch_support
def solve(matrix, rhs, adjoint=False, name=None):
    """X with matrix @ X = rhs (or adjoint(matrix) @ X = rhs), for [..., M, M] and [..., M, K]."""
    a = _as_float_tensor(matrix, "MatrixSolve")
    a, b = binary(a, rhs, MATRIX_SOLVE)
    _check_square(a, "MatrixSolve")
    if b._value.ndim < 2 or b._value.shape[-2] != a._value.shape[-1]:
        raise errors.invalid_argument("MatrixSolve", f"Input matrix and right-hand side must have "
                                                     f"matching rows: {list(a.shape)} vs {list(b.shape)}")
    xp = array_module(a._value)
    av = _swap(a._value, xp).conj() if adjoint else a._value
    try:
        x = Tensor(xp.linalg.solve(av, b._value))
    except np.linalg.LinAlgError:
        raise errors.invalid_argument("MatrixSolve", "Input matrix is not invertible.") from None
    if thread_state.active:
        def grad(g):
            gb = solve(a, g, adjoint=not adjoint)

            def ga():
                out = -matmul(gb, x, adjoint_b=True)
                return matrix_transpose(out, conjugate=True) if adjoint else out
            return ga, gb
        record(MATRIX_SOLVE, (a, b), (x,), grad)
    return x


CHOLESKY = Op("Cholesky", batchable=True)


@export("linalg.cholesky")
@dispatch.add_dispatch_support
def cholesky(input, name=None):  # noqa: A002
    """Lower-triangular L with L @ L^T = input, for symmetric positive-definite matrices."""
    x = _as_float_tensor(input, "Cholesky")
    _check_square(x, "Cholesky")
    xp = array_module(x._value)
    try:
        y = Tensor(xp.linalg.cholesky(x._value))
    except np.linalg.LinAlgError:
        y = None
    if y is None or (xp is not np and x._value.size and not bool(xp.isfinite(y._value).all())):
        # numpy raises for a matrix that is not positive definite; cupy's solver hands back nans
        raise errors.invalid_argument("Cholesky", "Cholesky decomposition was not successful. The "
                                                  "input might not be valid (it must be symmetric "
                                                  "positive definite).") from None
    if thread_state.active:
        record(CHOLESKY, (x,), (y,), lambda g: _cholesky_grad(y, g))
    return y


def _cholesky_grad(chol, g):
    """Symmetric gradient of the Cholesky factor (Murray 2016), built from differentiable ops."""
    xp = array_module(chol._value)
    n = chol._value.shape[-1]
    dt = chol._value.dtype
    lower_half = Tensor((xp.tril(xp.ones((n, n), dtype=dt)) - 0.5 * xp.eye(n, dtype=dt)))
    l_inv = inv(chol)
    phi = matmul(chol, g, adjoint_a=True) * lower_half
    s = matmul(matmul(l_inv, phi, adjoint_a=True), l_inv)
    return 0.5 * (s + matrix_transpose(s, conjugate=True))
