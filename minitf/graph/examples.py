"""Example values for tracing: the eager tensors that stand in for symbolic ones while a node's
op runs once to learn its outputs' dtypes and shapes (see `minitf.graph.func_graph`).

A symbolic tensor with unknown dimensions carries two examples whose unknown sizes differ;
integer and bool tensors, whose values can decide shapes (`tf.range(n)`, masks), carry a second
example with other values. Outputs that differ between the two runs are unknown.
"""
import re

import numpy as np

from minitf import backend
from minitf.dtypes import dtypes
from minitf.symbolic_tensor import SymbolicTensor
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape
from minitf.tensor_spec import TensorSpec
from minitf.variable import Variable

__all__ = ["examples_for", "example_for_spec", "example_leaves", "merged_shape", "values_differ",
           "is_static_error", "graph_dtype_error", "zeros_like_leaf", "gaussian_like_leaf", "unknown_output",
           "unit_sized_leaf", "has_unknown_sizes"]


# Words of errors about dtypes, static shapes and attributes, which TF reports while it builds
# the graph (or on every run, whatever the values): raised while tracing.
_STATIC_ERROR_WORDS = ("dtype", "tf.cast", "attr 'T'", "floating-point", "Incompatible shapes",
                       "must be rank", "Dimensions must be equal", "broadcast", "must be square",
                       "top_paths", "Invalid reduction dimension")


def is_static_error(error):
    """Whether an op's error is one TF reports while building the graph (dtypes, static shapes)."""
    message = str(error)
    return any(word in message for word in _STATIC_ERROR_WORDS)


_INPUT_MISMATCH = re.compile(r"cannot compute (\w+) as input #(\d+)\(zero-based\) was expected to be a (\w+) "
                             r"tensor but is a (\w+) tensor")
_LIST_MISMATCH = re.compile(r"cannot (?:concatenate|stack) tensors of dtypes (\w+) and (\w+).*\[Op:(\w+)\]", re.S)


def graph_dtype_error(error):
    """The TypeError TF raises while building a graph for inputs of one op whose dtypes do not
    match, for an error eager execution reports as InvalidArgumentError; None for other errors."""
    found = _INPUT_MISMATCH.search(str(error))
    if found:
        op, index, wanted, got = found.groups()
        return TypeError(f"Input #{index} of '{op}' Op has type {got} that does not match type {wanted} of the "
                         f"op's other inputs; cast one with tf.cast.")
    found = _LIST_MISMATCH.search(str(error))
    if found:
        first, other, op = found.groups()
        return TypeError(f"Tensors in list passed to 'values' of '{op}' Op have types [{first}, {other}] that "
                         f"don't all match; cast them to one dtype with tf.cast.")
    return None


def zeros_like_leaf(leaf):
    """Zeros of a symbolic leaf's example shape and dtype (other leaves as they are): the probe
    that tells an op's static errors from ones its example values caused."""
    if isinstance(leaf, SymbolicTensor):
        example = leaf.example
        xp = backend.array_module(example._value) if example is not None else backend.default_module()
        if leaf.dtype.name == "string":
            return leaf.example
        return Tensor(xp.zeros(tuple(example.shape.as_list()), dtype=leaf.dtype._np))
    return leaf


def gaussian_like_leaf(leaf):
    """Standard-normal values of a float symbolic leaf's example shape (other leaves as they are):
    a second probe for ops that refuse zeros (a singular matrix), drawn from a fixed seed."""
    if isinstance(leaf, SymbolicTensor) and leaf.dtype.is_floating and leaf.example is not None:
        example = leaf.example
        xp = backend.array_module(example._value)
        values = np.random.default_rng(0).standard_normal(tuple(example.shape.as_list()))
        return Tensor(xp.asarray(values.astype(leaf.dtype._np)))
    return zeros_like_leaf(leaf)


def unit_sized_leaf(leaf):
    """A symbolic leaf's example with each unknown dimension of size 1 (other leaves as they
    are): sizes that broadcast against anything, for ops whose examples of size 2 clash with a
    captured constant where TF's shape inference would accept the unknown size."""
    if not isinstance(leaf, SymbolicTensor):
        return leaf
    if leaf.example is not None and leaf.shape.rank is not None and not leaf.shape.is_fully_defined():
        example = leaf.example._value
        index = tuple(slice(0, 1) if d is None else slice(None) for d in leaf.shape.as_list())
        return Tensor(example[index])
    return leaf.example


def has_unknown_sizes(leaves):
    """Whether some symbolic leaf has an unknown dimension."""
    return any(isinstance(leaf, SymbolicTensor) and not leaf.shape.is_fully_defined() for leaf in leaves)


def unknown_output(leaves):
    """The output spec of a node whose examples could not run: the dtype of its first tensor
    argument (most ops keep it), an unknown shape."""
    for leaf in leaves:
        if isinstance(leaf, (Tensor, Variable)):
            return TensorSpec(None, leaf.dtype)
    return TensorSpec(None, dtypes.float32)


def example_leaves(leaves, which):
    """The leaves with each symbolic tensor replaced by its example `which` (or example A)."""
    out = []
    for leaf in leaves:
        if isinstance(leaf, SymbolicTensor):
            example = getattr(leaf, which)
            leaf = leaf.example if example is None else example
        out.append(leaf)
    return out



def merged_shape(example_a, example_b):
    """The static shape of an output seen as `example_a` and, for other unknown sizes, `example_b`."""
    shape_a = tuple(example_a.shape.as_list())
    if example_b is None:
        return TensorShape(shape_a)
    shape_b = tuple(example_b.shape.as_list())
    if len(shape_a) != len(shape_b):
        return TensorShape(None)
    return TensorShape([a if a == b else None for a, b in zip(shape_a, shape_b)])


def _example_array(shape, dtype):
    np_dtype = dtype._np
    if dtype.name == "string":
        return np.full(shape, b"", dtype=object)
    return np.ones(shape, dtype=np_dtype)


def examples_for(shape, dtype, example=None):
    """(example A, example B) for a placeholder of `shape`: `example` itself (or ones with 2 for
    each unknown dimension) and, when a dimension is unknown, ones with one more there."""
    dtype = dtypes.as_dtype(dtype)
    shape = TensorShape(shape)
    if example is None:
        if shape.rank is None:
            sizes_a = ()
        else:
            sizes_a = tuple(2 if d is None else d for d in shape.as_list())
        example = Tensor(backend.default_module().asarray(_example_array(sizes_a, dtype))
                         if dtype.name != "string" else _example_array(sizes_a, dtype))
    if shape.rank is not None and shape.is_fully_defined():
        return example, _other_values(example)
    sizes_a = tuple(example._value.shape)
    if shape.rank is None:
        sizes_b = sizes_a + (2,)
    else:
        sizes_b = tuple(a + 1 if d is None else a for a, d in zip(sizes_a, shape.as_list()))
    xp = backend.array_module(example._value)
    array_b = _example_array(sizes_b, dtype)
    return example, Tensor(array_b if dtype.name == "string" else xp.asarray(array_b))


def _counts(dtype):
    """Whether values of `dtype` can decide shapes (sizes, counts, masks): integers and bools."""
    return dtype.is_integer or dtype.is_bool


def _other_values(example):
    """A second example of the same shape whose values differ, for integer and bool tensors
    (their values can decide output shapes: `tf.range(n)`, masks), else None."""
    dtype = example.dtype
    if not _counts(dtype):
        return None
    value = example._value
    xp = backend.array_module(value)
    if dtype.is_bool:
        return Tensor(xp.logical_not(value))
    return Tensor((value + xp.asarray(1, dtype=value.dtype)).astype(value.dtype))


def values_differ(example_a, example_b):
    """Whether two examples of an integer or bool output hold different values (then the
    output's value, which may decide later shapes, depends on the unknowns)."""
    if not _counts(example_a.dtype) or example_a.shape != example_b.shape:
        return False
    a, b = example_a._value, example_b._value
    return bool(backend.array_module(a).any(a != b))


def example_for_spec(spec):
    """An example tensor for a TensorSpec (ones, 2 for each unknown dimension)."""
    return examples_for(spec.shape, spec.dtype)[0]
