"""Element structures of tf.data: tuples and dicts nest, everything else (lists too) is a leaf.

tf.data treats a Python list as one tensor (`from_tensor_slices([1, 2, 3])` slices a vector),
unlike tf.nest, so datasets use these helpers instead of `minitf.nest`.
"""
import numpy as np

from minitf.dtypes import dtypes
from minitf.convert import convert_to_tensor
from minitf.function import TensorSpec
from minitf.ragged.ragged_spec import RaggedTensorSpec
from minitf.ragged.ragged_tensor import RaggedTensor
from minitf.sparse.sparse_tensor import SparseTensor, SparseTensorSpec
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape
from minitf.api_export import export


def is_dataset(value):
    """True for a tf.data.Dataset (an element of `window`'s output is a structure of them)."""
    return getattr(type(value), "_is_tf_dataset", False)


@export("data.DatasetSpec")
class DatasetSpec:
    """The spec of a dataset-valued element (as TF's `tf.data.DatasetSpec`): the element spec of
    the inner dataset and the shape of the dataset value (a scalar)."""

    def __init__(self, element_spec, dataset_shape=()):
        self._element_spec = element_spec
        self._dataset_shape = TensorShape(dataset_shape)

    @property
    def element_spec(self):
        """The element spec of the datasets this spec describes."""
        return self._element_spec

    @property
    def shape(self):
        """The shape of the dataset value itself (scalar: `TensorShape([])`)."""
        return self._dataset_shape

    def __eq__(self, other):
        return (isinstance(other, DatasetSpec) and self._element_spec == other._element_spec
                and self._dataset_shape == other._dataset_shape)

    def __hash__(self):
        return hash(repr(self))

    def __repr__(self):
        return f"DatasetSpec({self._element_spec!r}, {self._dataset_shape!r})"


def is_nested(value):
    """True for tuples (named too) and dicts."""
    return isinstance(value, (tuple, dict))


def _keys(d):
    return sorted(d, key=lambda k: (type(k).__name__, k))


def flatten(value):
    """The leaves of `value`, depth first, dict entries in sorted key order."""
    if isinstance(value, dict):
        return [leaf for k in _keys(value) for leaf in flatten(value[k])]
    if isinstance(value, tuple):
        return [leaf for item in value for leaf in flatten(item)]
    return [value]


def pack(template, leaves):
    """Rebuild `template`'s structure with `leaves` (an iterable consumed in order)."""
    it = iter(leaves)

    def build(t):
        if isinstance(t, dict):
            built = {k: build(t[k]) for k in _keys(t)}
            return type(t)((k, built[k]) for k in t)
        if isinstance(t, tuple):
            items = [build(x) for x in t]
            return type(t)(*items) if hasattr(t, "_fields") else tuple(items)
        return next(it)

    return build(template)


def map_leaves(fn, value):
    """`value` with `fn` applied to every leaf."""
    return pack(value, [fn(leaf) for leaf in flatten(value)])


def same_structure(a, b):
    """True when `a` and `b` nest the same way (types of tuples/dicts and dict keys included)."""
    if isinstance(a, dict) != isinstance(b, dict) or isinstance(a, tuple) != isinstance(b, tuple):
        return False
    if isinstance(a, dict):
        return set(a) == set(b) and all(same_structure(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same_structure(x, y) for x, y in zip(a, b))
    return True


def to_tensor(value, dtype=None):
    """One leaf as a Tensor (lists are stacked into one tensor, as tf.data does); a SparseTensor
    or RaggedTensor stays one leaf."""
    if isinstance(value, (SparseTensor, RaggedTensor)) or is_dataset(value):
        return value
    return convert_to_tensor(value, dtype=dtype)


def normalize(value):
    """A user value as an element: lists at the top become tuples, leaves become Tensors."""
    if isinstance(value, list):
        value = tuple(value)
    return map_leaves(to_tensor, value)


def spec_of(element, exact=False):
    """The TensorSpec structure describing `element` (a structure of Tensors).

    With `exact` (the spec of given values: from_tensors, from_tensor_slices) a SparseTensor's
    or RaggedTensor's spec has its full static shape, as TF's. Otherwise (an element a function
    computed, standing for all of them) a SparseTensor's spec keeps only its rank and a
    RaggedTensor's leaves its row count unknown, as they may change from element to element.
    """

    def spec(t):
        if isinstance(t, SparseTensor):
            return SparseTensorSpec(t.shape if exact else [None] * len(t._dims), t.dtype)
        if isinstance(t, RaggedTensor):
            found = RaggedTensorSpec.from_value(t)
            if exact:
                return found
            return RaggedTensorSpec([None] + found.shape.as_list()[1:], t.dtype, t.ragged_rank,
                                    t.row_splits_dtype)
        if is_dataset(t):
            return DatasetSpec(t.element_spec)
        return TensorSpec(t.shape, t.dtype)

    return map_leaves(spec, element)


def relax_spec(a, b):
    """A spec structure compatible with both `a` and `b`: differing dims become None."""

    def merge(x, y):
        if x.dtype != y.dtype:
            raise TypeError(f"Incompatible dtypes {x.dtype.name} and {y.dtype.name} in dataset elements.")
        if isinstance(x, RaggedTensorSpec) or isinstance(y, RaggedTensorSpec):
            common = x.most_specific_common_supertype([y]) if isinstance(x, RaggedTensorSpec) else None
            if common is None:
                raise TypeError(f"Incompatible dataset elements: {x!r} and {y!r}.")
            return common
        if x.shape.rank is None or y.shape.rank is None or x.shape.rank != y.shape.rank:
            return TensorSpec(None, x.dtype)
        dims = [d1 if d1 == d2 else None for d1, d2 in zip(x.shape.as_list(), y.shape.as_list())]
        return TensorSpec(dims, x.dtype)

    return pack(a, [merge(x, y) for x, y in zip(flatten(a), flatten(b))])


def spec_with_leading(spec, dim):
    """Each TensorSpec in `spec` with a new leading dimension `dim` (None for unknown)."""

    def add(s):
        if isinstance(s, (RaggedTensorSpec, SparseTensorSpec)):
            return s._batch(dim)
        cls = TensorSpec
        if s.shape.rank is None:
            return cls(None, s.dtype)
        return cls([dim] + s.shape.as_list(), s.dtype)

    return map_leaves(add, spec)


def spec_without_leading(spec):
    """Each TensorSpec in `spec` with its leading dimension removed."""

    def drop(s):
        if isinstance(s, (RaggedTensorSpec, SparseTensorSpec)):
            return s._unbatch()
        cls = TensorSpec
        if s.shape.rank is None:
            return cls(None, s.dtype)
        if s.shape.rank == 0:
            raise ValueError("Cannot unbatch an input with scalar components; every component "
                             "needs rank >= 1.")
        return cls(s.shape.as_list()[1:], s.dtype)

    return map_leaves(drop, spec)


def to_numpy(element):
    """`element` with every Tensor leaf replaced by its numpy value."""
    return map_leaves(lambda t: t.numpy() if isinstance(t, Tensor) else t, element)


def signature_leaf(spec):
    """Validate one leaf of an output_signature."""
    if not isinstance(spec, TensorSpec):
        raise TypeError(f"`output_signature` must contain objects that are subclass of `tf.TypeSpec` "
                        f"but found {type(spec)} which is not (use tf.TensorSpec(shape, dtype)).")
    return spec


def spec_from_types(types, shapes):
    """TensorSpecs from from_generator's legacy output_types / output_shapes."""
    if shapes is None:
        return map_leaves(lambda t: TensorSpec(None, dtypes.as_dtype(t)), types)
    type_leaves = flatten(types)
    shape_leaves = _shape_leaves(shapes, len(type_leaves))
    return pack(types, [TensorSpec(s, dtypes.as_dtype(t)) for t, s in zip(type_leaves, shape_leaves)])


def _shape_leaves(shapes, n):
    # shapes nest like types, but a shape itself may be a list/tuple of ints
    if n == 1 and not (isinstance(shapes, tuple) and shapes and _is_shape(shapes[0])):
        return [TensorShape(shapes)]
    if isinstance(shapes, dict):
        return [TensorShape(shapes[k]) for k in _keys(shapes)]
    out = []
    for s in shapes:
        out.extend([TensorShape(s)] if _is_shape(s) else _shape_leaves(s, len(flatten(s))))
    return out


def _is_shape(s):
    return s is None or isinstance(s, (TensorShape, list)) or (
        isinstance(s, tuple) and all(d is None or isinstance(d, (int, np.integer)) for d in s))
