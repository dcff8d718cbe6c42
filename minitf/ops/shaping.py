"""Shape manipulation: reshape, transpose, broadcast, stack/unstack, concat/split, tile, and the
shape queries (shape, size, rank), with gradients.

The helpers `shape_arg`, `int_list`, `scalar_int` and `batch_ndim` are shared by the sibling
array modules (creation, gather, reorder), which sit above this one.
"""
import numpy as np

from minitf import backend, dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import register_packer
from minitf.ops._core import (Op, Tensor, Variable, thread_state, array_module, as_tensor,
                              check_attr_dtype, normalize_axis, record, graph_call, is_graph_value, tracing)
from minitf.ops.constant import identity
from minitf.ops.arg_checks import converted, int_attr, int_input, named
from minitf.tensor_shape import TensorShape
from minitf.api_export import export, export_value

__all__ = ["reshape", "broadcast_to", "transpose", "stack", "unstack", "newaxis", "expand_dims",
           "squeeze", "concat", "split", "tile", "shape", "size", "rank", "identity_n"]

newaxis = None
export_value("newaxis", "newaxis")


def shape_arg(shape):
    """A tuple of ints from a list, tuple, TensorShape or 1-D integer tensor."""
    if isinstance(shape, Tensor):
        return tuple(int(d) for d in np.asarray(shape.numpy()).reshape(-1))
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(d) if not isinstance(d, Tensor) else int(d.numpy()) for d in shape)


def int_list(value):
    """A list of Python ints from an int, list, tuple, numpy array or integer tensor."""
    if isinstance(value, Tensor):
        value = value.numpy()
    return [int(v) for v in np.asarray(value).reshape(-1)]


def scalar_int(value):
    return int(value.numpy()) if isinstance(value, Tensor) else int(value)


def batch_ndim(g, out_ndim):
    """Leading batch dimensions a cotangent carries beyond the op's output (vectorized jacobians)."""
    return g._value.ndim - out_ndim


def _reshape_sizes(shape):
    """The target of tf.reshape as a tuple of ints, with TF's errors for non-integer or non-1-D sizes."""
    if isinstance(shape, (list, tuple)) and all(type(d) is int for d in shape):
        return tuple(shape)
    if isinstance(shape, (Tensor, Variable)):
        check_attr_dtype(as_tensor(shape), "Reshape", "Tshape", ("int32", "int64"))
        arr = np.asarray(as_tensor(shape).numpy())
    elif isinstance(shape, (list, tuple)) and not any(isinstance(d, (Tensor, Variable)) for d in shape):
        flat = np.ravel(np.asarray(shape, dtype=object)) if shape else ()
        kinds = {bool if isinstance(d, (bool, np.bool_)) else
                 int if isinstance(d, (int, np.integer)) else float for d in flat}
        if bool in kinds and int in kinds:
            raise ValueError(f"Can't convert Python sequence with mixed types to Tensor: reshape sizes "
                             f"{shape!r} mix bools and ints; pass ints")
        arr = np.asarray(shape)
        if arr.dtype.kind not in "iub" and arr.size:
            raise errors.invalid_argument(
                "Reshape", f"Value for attr 'Tshape' of {arr.dtype.name} is not in the list of allowed "
                           f"values: int32, int64; pass integer sizes")
    elif isinstance(shape, (int, np.integer, TensorShape)):
        return shape_arg(shape)
    else:  # the slow path: TF converts the sizes, then Reshape checks their dtype
        arr = int_input(shape, "tf.reshape", "Reshape", "shape", attr="Tshape")
    if arr.ndim > 1:
        raise errors.invalid_argument(
            "Reshape", f"sizes input must be 1-D, not {list(arr.shape)}; pass a flat list of sizes")
    return tuple(int(d) for d in arr.reshape(-1))


def _infer_reshape(size_in, in_shape, shape):
    """TF's Reshape shape inference for targets with negative sizes (which numpy treats loosely)."""
    unknown, product = -1, 1
    for i, d in enumerate(shape):
        if d == -1:
            if unknown != -1:
                raise errors.invalid_argument(
                    "Reshape", f"Only one input size may be -1, not both {unknown} and {i}")
            unknown = i
        elif d < 0:
            raise errors.invalid_argument("Reshape", f"Size {i} must be non-negative, not {d}")
        elif d:
            product *= d
    if unknown == -1:
        return shape
    # when the target has a zero size, TF infers -1 from the input's non-zero sizes alone
    target_has_zero = 0 in shape
    known, skipped_zero = 1, False
    for d in in_shape:
        if d > 0 or not target_has_zero:
            known *= d
        else:
            skipped_zero = True
    missing = known // product
    if not skipped_zero and known != product * missing:
        raise errors.invalid_argument(
            "Reshape", f"Input to reshape is a tensor with {size_in} values, but the requested shape "
                       f"requires a multiple of {product}; check the target shape {list(shape)}")
    return shape[:unknown] + (missing,) + shape[unknown + 1:]


RESHAPE = Op("Reshape", batchable=True)


@export("reshape")
def reshape(tensor, shape, name=None):
    """The values of `tensor`, in row-major order, laid out in a new shape.

    Args:
      tensor: a tensor or anything convertible to one.
      shape: the new sizes (list, tuple, TensorShape or 1-D int32/int64 tensor); one size may
        be -1, inferred from the number of values.
      name: ignored (TF's op name).

    Returns:
      A tensor of `tensor`'s dtype with the new shape. Its gradient reshapes back.

    Raises:
      InvalidArgumentError: the sizes do not hold exactly the input's values, more than one
        size is -1, a size is negative, or the sizes are not integers.
    """
    if tracing[0] and (is_graph_value(tensor) or is_graph_value(shape)):
        return graph_call(reshape, (tensor, shape), {})
    try:
        x = tensor if type(tensor) is Tensor else converted(tensor, "tf.reshape", "tensor")
        shape = _reshape_sizes(shape)
    except (TypeError, ValueError):  # a RaggedTensor, or a DynamicRaggedShape as the shape
        return dispatch.fallback(reshape, (tensor, shape), {})
    if shape and min(shape) < 0:
        shape = _infer_reshape(x._value.size, x._value.shape, shape)
    try:
        y = Tensor(x._value.reshape(shape))
    except ValueError:
        raise RESHAPE.invalid(f"Input to reshape is a tensor with {x._value.size} values, but the "
                              f"requested shape {list(shape)} has {int(np.prod(shape))}; check the "
                              f"target shape") from None
    if thread_state.active:
        in_shape, out_ndim = x._value.shape, y._value.ndim
        record(RESHAPE, (x,), (y,),
               lambda g: reshape(g, g._value.shape[:batch_ndim(g, out_ndim)] + in_shape))
    return y


BROADCAST_TO = Op("BroadcastTo", batchable=True)


@export("broadcast_to")
@dispatch.add_dispatch_support
def broadcast_to(input, shape, name=None):  # noqa: A002
    """`input` broadcast to `shape` with numpy's rules (the gradient sums back)."""
    x = as_tensor(input)
    shape = shape_arg(shape)
    xp = array_module(x._value)
    try:
        y = Tensor(xp.broadcast_to(x._value, shape))
    except ValueError:
        raise BROADCAST_TO.invalid(
            f"Unable to broadcast tensor of shape {list(x.shape)} to shape {list(shape)}") from None
    if thread_state.active:
        record(BROADCAST_TO, (x,), (y,), lambda g: g)
    return y


TRANSPOSE = Op("Transpose", batchable=True)


@export("transpose")
def transpose(a, perm=None, conjugate=False, name="transpose"):
    """`a` with its dimensions permuted: output dimension i is input dimension perm[i].

    Args:
      a: a tensor.
      perm: a permutation of range(rank); None reverses the dimensions.
      conjugate: accepted for TF's signature.
      name: ignored (TF's op name).

    Returns:
      The transposed tensor; its gradient applies the inverse permutation.

    Raises:
      InvalidArgumentError: `perm` is not a permutation of the dimensions.
    """
    if tracing[0] and (is_graph_value(a) or is_graph_value(perm)):
        return graph_call(transpose, (a, perm), {"conjugate": conjugate})
    x = a if type(a) is Tensor else converted(a, "tf.transpose", "a")
    nd = x._value.ndim
    if perm is not None and not (isinstance(perm, (list, tuple)) and all(type(p) is int for p in perm)):
        perm = int_input(perm, "tf.transpose", "Transpose", "perm", rank=1, attr="Tperm")
    perm = tuple(range(nd))[::-1] if perm is None else shape_arg(perm)
    for p in perm:
        if not -nd <= p < nd:
            raise TRANSPOSE.invalid(f"{p} is out of range [0 .. {nd}) in perm {list(perm)} for a "
                                    f"tensor of shape {list(x.shape)}")
    if sorted(p % nd if nd else p for p in perm) != list(range(nd)) or len(perm) != nd:
        raise TRANSPOSE.invalid(f"perm {list(perm)} is not a permutation of the {nd} dimensions of "
                                f"a tensor of shape {list(x.shape)}")
    y = Tensor(x._value.transpose(perm))
    if thread_state.active:
        inverse = tuple(np.argsort(perm))

        def grad(g):
            b = batch_ndim(g, nd)
            return transpose(g, tuple(range(b)) + tuple(p + b for p in inverse))
        record(TRANSPOSE, (x,), (y,), grad)
    return y


PACK = Op("Pack", batchable=True)


@export("stack")
@dispatch.add_dispatch_support
def stack(values, axis=0, name="stack"):
    """Join same-shaped tensors along a new axis.

    Args:
      values: a list of tensors of one shape and dtype (Python values take the tensors' dtype).
      axis: where the new axis goes, in [-(rank + 1), rank + 1).
      name: ignored (TF's op name).

    Returns:
      A tensor of rank one more than the inputs'. Stacking nothing gives an empty float32
      vector, as in TF.

    Raises:
      ValueError: `axis` is outside the result's rank.
      InvalidArgumentError: the inputs differ in shape or dtype.
    """
    if not isinstance(values, (list, tuple)):
        try:
            values = list(values)
        except TypeError:
            raise TypeError(f"tf.stack: `values` must be a list of tensors, not {values!r}") from None
    if type(axis) is not int:
        axis = int_attr(axis, "tf.stack", "axis", floats=True)
    if not values:
        if scalar_int(axis) != 0:  # TF only converts an empty list as a constant for axis 0
            raise IndexError("list index out of range: stack got no values to stack along axis "
                             f"{axis}")
        return Tensor(backend.default_module().zeros((0,), dtype=np.float32))
    like = next((v for v in values if isinstance(v, (Tensor, Variable))), None)
    try:
        tensors = [as_tensor(v) if like is None or isinstance(v, (Tensor, Variable))
                   else as_tensor(v, dtype=like.dtype) for v in values]
    except (TypeError, ValueError) as e:
        raise named(e, "tf.stack", "values") from None
    first = tensors[0]
    nd = first._value.ndim + 1
    axis = scalar_int(axis)
    if not -nd <= axis < nd:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-nd}, {nd}) for stacking tensors of "
                         f"shape {list(first.shape)}")
    for t in tensors[1:]:
        if t._value.dtype != first._value.dtype and like is None:  # TF converts them to one dtype
            raise TypeError(f"tf.stack: cannot convert the values {values!r} to one dtype ("
                            f"{first.dtype.name} and {t.dtype.name}); give them one type")
        if t._value.dtype != first._value.dtype:
            raise PACK.invalid(f"cannot stack tensors of dtypes {first.dtype.name} and "
                               f"{t.dtype.name}; cast them to one dtype")
        if t._value.shape != first._value.shape:
            raise PACK.invalid(f"Shapes of all inputs must match: values[0].shape = {list(first.shape)} "
                               f"!= values[k].shape = {list(t.shape)}")
    axis = normalize_axis(axis, nd, "Pack")
    xp = array_module(first._value)
    y = Tensor(xp.stack([t._value for t in tensors], axis=axis))
    if thread_state.active:
        def grad(g):
            return tuple(unstack(g, axis=axis + batch_ndim(g, nd)))
        record(PACK, tuple(tensors), (y,), grad)
    return y


register_packer(stack)  # tf.convert_to_tensor packs lists holding tensors with stack


UNPACK = Op("Unpack", batchable=True)


@export("unstack")
@dispatch.add_dispatch_support
def unstack(value, num=None, axis=0, name="unstack"):
    """Split a tensor into a list of tensors along `axis`, removing that axis."""
    x = as_tensor(value)
    nd = x._value.ndim
    axis = scalar_int(axis)
    if not -nd <= axis < nd:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-nd}, {nd}) for unstacking a tensor "
                         f"of shape {list(x.shape)}")
    axis = normalize_axis(axis, nd, "Unpack")
    n = x._value.shape[axis]
    if num is not None and num != n:
        raise UNPACK.invalid(f"Input shape axis {axis} must equal {num}, got shape {list(x.shape)}; "
                             f"pass num={n} or leave it out")
    xp = array_module(x._value)
    outs = tuple(Tensor(v) for v in xp.moveaxis(x._value, axis, 0))
    if thread_state.active and outs:
        def grad(*gs):
            return stack(gs, axis=axis + batch_ndim(gs[0], nd - 1))
        record(UNPACK, (x,), outs, grad)
    return list(outs)

@export("expand_dims")
def expand_dims(input, axis, name=None):  # noqa: A002
    """`input` with a new dimension of size 1 inserted at `axis` (negative counts from the end)."""
    if tracing[0] and (is_graph_value(input) or is_graph_value(axis)):
        return graph_call(expand_dims, (input, axis), {})
    x = input if type(input) is Tensor else converted(input, "tf.expand_dims", "input")
    nd = x._value.ndim
    if type(axis) is not int and not isinstance(axis, (Tensor, Variable)):
        dim = int_input(axis, "tf.expand_dims", "ExpandDims", "axis", attr="Tdim")
        if dim.size != 1:
            raise errors.invalid_argument("ExpandDims", f"tf.expand_dims: 'dim' must be a tensor with a "
                                                        f"single value, got axis={axis!r}")
        axis = int(dim.reshape(()))
    axis = scalar_int(axis)
    if not -nd - 1 <= axis <= nd:
        raise errors.invalid_argument(
            "ExpandDims", f"Tried to expand dim index {axis} for tensor with {nd} dimensions "
                          f"(shape {list(x.shape)}); axis must be in [{-nd - 1}, {nd}]")
    axis = axis % (nd + 1)
    shape = x._value.shape
    return reshape(x, shape[:axis] + (1,) + shape[axis:])


@export("squeeze")
def squeeze(input, axis=None, name=None):  # noqa: A002
    """`input` without dimensions of size 1 (only those listed in `axis`, when given)."""
    if tracing[0] and is_graph_value(input):
        return graph_call(squeeze, (input, axis), {})
    x = input if type(input) is Tensor else converted(input, "tf.squeeze", "input")
    shape = x._value.shape
    nd = len(shape)
    if axis is None:
        axes = [i for i, d in enumerate(shape) if d == 1]
    else:
        if type(axis) is not int and not isinstance(axis, (Tensor, Variable)):
            items = [axis] if np.isscalar(axis) else axis
            if not isinstance(items, (list, tuple)):
                raise TypeError(f"tf.squeeze: expected a list of ints for argument `axis`, not {axis!r}")
            axis = [int_attr(a, "tf.squeeze", "axis", floats=True) for a in items]
        axes = []
        for a in ([axis] if isinstance(axis, (int, np.integer)) else int_list(axis)):
            if not -nd <= a < nd:
                raise errors.invalid_argument(
                    "Squeeze", f"Tried to squeeze dim index {a} for tensor with {nd} dimensions "
                               f"(shape {list(shape)})")
            a %= nd
            if shape[a] != 1:
                raise errors.invalid_argument(
                    "Squeeze", f"Can not squeeze dim[{a}], expected a dimension of 1, got {shape[a]} "
                               f"(shape {list(shape)})")
            axes.append(a)
    return reshape(x, tuple(d for i, d in enumerate(shape) if i not in axes))


CONCAT = Op("ConcatV2", batchable=True)


@export("concat")
@dispatch.add_dispatch_support
def concat(values, axis, name="concat"):
    """Join tensors along an existing axis.

    Args:
      values: a list of tensors of one rank and dtype whose sizes agree except along `axis`
        (Python values take the dtype of the first tensor or variable among them).
      axis: the axis to join along (an int or int32/int64 scalar tensor).
      name: ignored (TF's op name).

    Returns:
      The joined tensor. As in TF, a single value comes back unchanged whatever `axis` is.

    Raises:
      TypeError: a float `axis`.
      InvalidArgumentError: no values, scalars, or mismatched dtypes or sizes.
    """
    if isinstance(axis, float) or (isinstance(axis, Tensor) and axis.dtype.name not in ("int32", "int64")):
        raise TypeError(f"concat: cannot convert axis {axis!r} to EagerTensor of dtype int32; "
                        f"pass an integer axis")
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        if type(axis) is not int:  # TF converts the axis even here (and returns the value)
            axis = converted(axis, "tf.concat", "axis",
                             None if isinstance(axis, (Tensor, Variable)) else dtypes.int32)
        if np.ndim(axis.numpy() if isinstance(axis, Tensor) else axis) != 0:
            raise ValueError(f"concat: axis must be a scalar, got {axis!r}")
        return identity(values[0] if isinstance(values[0], (Tensor, Variable))
                        else converted(values[0], "tf.concat", "values"))
    if not values:
        raise errors.invalid_argument(
            "ConcatV2", "ConcatV2 needs at least one tensor (attr 'T' is not set for N=0); "
                        "pass a non-empty list")
    like = next((v for v in values if isinstance(v, (Tensor, Variable))), None)
    try:
        tensors = [as_tensor(v) if like is None or isinstance(v, (Tensor, Variable))
                   else as_tensor(v, dtype=like.dtype) for v in values]
    except (TypeError, ValueError) as e:
        raise named(e, "tf.concat", "values") from None
    first = tensors[0]
    nd = first._value.ndim
    if nd == 0:
        raise errors.invalid_argument("ConcatV2", "Can't concatenate scalars (use tf.stack instead)")
    if type(axis) is not int:
        axis = int(int_input(axis, "tf.concat", "ConcatV2", "axis", rank=0, attr="Tidx"))
    axis = normalize_axis(axis, nd, "ConcatV2")
    for i, t in enumerate(tensors[1:], 1):
        if t._value.dtype != first._value.dtype:
            raise errors.invalid_argument("ConcatV2", f"cannot concatenate tensors of dtypes "
                                                      f"{first.dtype.name} and {t.dtype.name}")
        s0, s1 = first._value.shape, t._value.shape
        if len(s0) != len(s1) or any(a != b for k, (a, b) in enumerate(zip(s0, s1)) if k != axis):
            raise errors.invalid_argument(
                "ConcatV2", f"ConcatOp : Dimension mismatch in values[{i}]: shape {list(s1)} vs. "
                            f"values[0] shape {list(s0)} along axis {axis}; all dimensions but the "
                            "concatenation axis must match")
    xp = array_module(first._value)
    y = Tensor(xp.concatenate([t._value for t in tensors], axis=axis))
    if thread_state.active:
        sizes = [t._value.shape[axis] for t in tensors]

        def grad(g):
            return tuple(split(g, sizes, axis=axis + batch_ndim(g, nd)))
        record(CONCAT, tuple(tensors), (y,), grad)
    return y


SPLIT = Op("Split", batchable=True)


@export("split")
@dispatch.add_dispatch_support
def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Split `value` along `axis` into equal parts (an int) or parts of the given sizes (a list;
    one size may be -1, meaning the rest)."""
    x = value if type(value) is Tensor else converted(value, "tf.split", "value")
    nd = x._value.ndim
    if type(axis) is not int and not isinstance(axis, (Tensor, Variable)):
        axis = int(int_input(axis, "tf.split", "Split", "axis", rank=0, dtype=dtypes.int32))
    axis = normalize_axis(scalar_int(axis), nd, "Split")
    n = x._value.shape[axis]
    if isinstance(num_or_size_splits, (int, np.integer)) or (
            isinstance(num_or_size_splits, Tensor) and num_or_size_splits._value.ndim == 0):
        parts = scalar_int(num_or_size_splits)
        if parts <= 0 or n % parts:
            raise errors.invalid_argument(
                "Split", f"Number of ways to split should evenly divide the split dimension, but got "
                         f"split_dim {axis} (size = {n}) and num_split {parts}")
        sizes = [n // parts] * parts
    else:
        if not (isinstance(num_or_size_splits, (list, tuple)) and all(type(s) is int for s in num_or_size_splits)):
            _check_size_splits(num_or_size_splits)
        sizes = int_list(num_or_size_splits)
        if num is not None and num != len(sizes):
            raise errors.invalid_argument(
                "SplitV", f"tf.split: size of the split_tensor must be 1-D and have the same elements as "
                          f"outputs: num={num} but num_or_size_splits={list(sizes)}")
        if sizes.count(-1) > 1:
            raise errors.invalid_argument("SplitV", f"size_splits {sizes} may contain at most one -1")
        if -1 in sizes:
            sizes[sizes.index(-1)] = n - (sum(sizes) + 1)
        if sum(sizes) != n or any(s < 0 for s in sizes):
            raise errors.invalid_argument(
                "SplitV", f"Determined shape must either match input shape along split_dim exactly if "
                          f"fully specified, or be less than the size of the input along split_dim if "
                          f"not fully specified. Got size_splits {sizes} for dimension {axis} of size {n}")
    # plain slices: the same views numpy.split makes, without its Python-level loop (13 us
    # for four parts, a concatenation's gradient in every Inception block)
    index = [slice(None)] * nd
    parts, start = [], 0
    for size in sizes:
        index[axis] = slice(start, start + size)
        parts.append(Tensor(x._value[tuple(index)]))
        start += size
    outs = tuple(parts)
    if thread_state.active:
        def grad(*gs):
            return concat(gs, axis=axis + batch_ndim(gs[0], nd))
        record(SPLIT, (x,), outs, grad)
    return list(outs)


def _check_size_splits(value):
    """TF's checks of a tf.split size list that is not a list of ints: converted, not a scalar
    (ValueError), integer (Tlen) and 1-D (InvalidArgumentError)."""
    t = converted(value, "tf.split", "num_or_size_splits")
    if t._value.ndim == 0:
        raise ValueError(f"tf.split: Rank-0 tensors are not supported as the num_or_size_splits "
                         f"argument to split. Argument provided: {value!r}; pass an int or a list of sizes")
    int_input(t, "tf.split", "SplitV", "num_or_size_splits", rank=1, attr="Tlen",
              allowed=("int8", "int32", "int64"))


TILE = Op("Tile", batchable=True)
TILE_GRAD = Op("TileGrad", batchable=True)


@export("tile")
@dispatch.add_dispatch_support
def tile(input, multiples, name=None):  # noqa: A002
    """`input` repeated `multiples[i]` times along dimension i."""
    x = input if type(input) is Tensor else converted(input, "tf.tile", "input")
    if not (isinstance(multiples, (list, tuple)) and all(type(m) is int for m in multiples)):
        multiples = int_input(multiples, "tf.tile", "Tile", "multiples", rank=1, attr="Tmultiples")
    reps = int_list(multiples)
    nd = x._value.ndim
    if len(reps) != nd:
        raise errors.invalid_argument(
            "Tile", f"Expected multiples argument to be a vector of length {nd} but got length "
                    f"{len(reps)} (input shape {list(x.shape)})")
    if any(r < 0 for r in reps):
        raise errors.invalid_argument("Tile", f"Expected multiples to be non-negative, got {reps}")
    xp = array_module(x._value)
    y = Tensor(xp.tile(x._value, reps) if nd else x._value)
    if thread_state.active:
        shape = x._value.shape
        record(TILE, (x,), (y,), lambda g: _tile_grad(g, reps, shape))
    return y


def _tile_grad(g, reps, shape):
    """The cotangent of tile: `g` summed over its `reps` copies, back to (batch dims +) `shape`."""
    b = g._value.ndim - len(shape)
    split_shape = g._value.shape[:b] + tuple(v for r, d in zip(reps, shape) for v in (r, d))
    xp = array_module(g._value)
    summed = xp.sum(g._value.reshape(split_shape), axis=tuple(b + 2 * i for i in range(len(shape))))
    y = Tensor(xp.asarray(summed, dtype=g._value.dtype))
    if thread_state.active:
        record(TILE_GRAD, (g,), (y,), lambda u: tile(u, [1] * (u._value.ndim - len(shape)) + reps))
    return y


@export("shape")
@dispatch.add_dispatch_support
def shape(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """The shape of `input` as a 1-D tensor (int32 unless out_type says int64)."""
    x = input if isinstance(input, Tensor) else as_tensor(input)
    return Tensor(np.asarray(x._value.shape, dtype=dtypes.as_dtype(out_type)._np).reshape(-1))


@export("size")
@dispatch.add_dispatch_support
def size(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """The number of elements of `input` as a scalar tensor."""
    x = as_tensor(input)
    return Tensor(np.asarray(x._value.size, dtype=dtypes.as_dtype(out_type)._np))


@export("rank")
@dispatch.add_dispatch_support
def rank(input, name=None):  # noqa: A002
    """The number of dimensions of `input` as an int32 scalar tensor."""
    x = as_tensor(input)
    return Tensor(np.asarray(x._value.ndim, dtype=np.int32))


@export("identity_n")
@dispatch.add_dispatch_support
def identity_n(input, name=None):  # noqa: A002
    """A list of identities of the tensors in `input`."""
    return [identity(t) for t in input]
