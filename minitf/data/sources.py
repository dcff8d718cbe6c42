"""Source nodes of tf.data pipelines: slices of tensors, one tensor structure, a range, a Python
generator, and the combinations `zip` and `concatenate` of other pipelines.

Each class is a `pipeline.Node`; `Dataset.from_tensor_slices`, `Dataset.range`, ... wrap them.
"""
import numpy as np

from minitf import backend
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.data import composite_elements as composite, structure as st
from minitf.data.pipeline import INFINITE_CARDINALITY as _INF, UNKNOWN_CARDINALITY as _UNK, Node
from minitf.function import TensorSpec
from minitf.tensor import Tensor

__all__ = ["SliceDataset", "TensorsDataset", "RangeDataset", "GeneratorDataset", "ZipDataset",
           "ConcatenateDataset"]


class SliceDataset(Node):
    """Slices of a tensor structure along the first dimension, one element per row."""

    def __init__(self, tensors):
        super().__init__()
        if isinstance(tensors, list) and any(isinstance(t, dict) for t in tensors):
            tensors = tuple(tensors)
        if tensors is None:  # TF's ValueError for an empty structure
            raise ValueError("from_tensor_slices: invalid `element`: `element` should not be empty (got None)")
        try:
            self._tensors = st.map_leaves(st.to_tensor, tensors)  # a list is one tensor here
        except (TypeError, ValueError) as e:
            if type(e) not in (TypeError, ValueError):
                raise
            raise type(e)(f"from_tensor_slices: {e}") from None
        leaves = st.flatten(self._tensors)
        for t in leaves:
            if composite.rank_of(t) == 0:
                raise ValueError(f"Unbatching a tensor is only supported for rank >= 1, but "
                                 f"from_tensor_slices got a scalar component {t!r}.")
        sizes = {composite.leading_size(t) for t in leaves}
        if len(sizes) > 1:
            shapes = [tuple(t.shape.as_list()) for t in leaves]
            raise ValueError(f"from_tensor_slices: all components must have the same size in the "
                             f"first dimension, got shapes {shapes}.")
        self._n = sizes.pop() if sizes else 0

    def _generate(self, ctx):
        leaves = st.flatten(self._tensors)
        if all(type(t) is Tensor for t in leaves):
            raws = [t._value for t in leaves]
            for i in range(self._n):
                # r[i, ...] stays an array (a 0-d one for a string row), where r[i] of an object
                # array would be a bare bytes object
                yield st.pack(self._tensors, [Tensor(r[i, ...]) for r in raws])
            return
        rows = [composite.rows_of(t) for t in leaves]  # SparseTensor or RaggedTensor leaves
        for i in range(self._n):
            yield st.pack(self._tensors, [r[i] for r in rows])

    def _cardinality(self):
        return self._n

    def _compute_spec(self):
        return st.spec_without_leading(st.spec_of(self._tensors, exact=True))


class TensorsDataset(Node):
    """A single element: the whole tensor structure."""

    def __init__(self, tensors):
        super().__init__()
        self._tensors = st.map_leaves(st.to_tensor, tensors)

    def _generate(self, ctx):
        yield self._tensors

    def _cardinality(self):
        return 1

    def _compute_spec(self):
        return st.spec_of(self._tensors, exact=True)


class RangeDataset(Node):
    """Scalars of `output_type` counting like Python's `range(*args)`."""

    def __init__(self, args, output_type):
        super().__init__()
        if not 1 <= len(args) <= 3:
            raise ValueError(f"Invalid arguments to Dataset.range: {args}; expected 1 to 3.")
        self._range = range(*[int(a) for a in args])
        self._dtype = dtypes.as_dtype(output_type)

    def _generate(self, ctx):
        np_dtype = self._dtype._np
        xp = backend.default_module()
        for i in self._range:
            yield Tensor(xp.asarray(i, dtype=np_dtype))

    def _cardinality(self):
        return len(self._range)

    def _compute_spec(self):
        return TensorSpec([], self._dtype)


class GeneratorDataset(Node):
    """Elements yielded by `generator(*args)`, checked against and cast to a declared spec."""

    def __init__(self, generator, output_types, output_shapes, args, output_signature):
        super().__init__()
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        if output_signature is not None:
            if output_types is not None or output_shapes is not None:
                raise TypeError("The `output_types` and `output_shapes` arguments cannot be used "
                                "together with the `output_signature` argument.")
            if isinstance(output_signature, list):
                output_signature = tuple(output_signature)
            self._spec = st.map_leaves(st.signature_leaf, output_signature)
        elif output_types is not None:
            if isinstance(output_types, list):
                output_types = tuple(output_types)
            if isinstance(output_shapes, list) and isinstance(output_types, tuple):
                output_shapes = tuple(output_shapes)
            self._spec = st.spec_from_types(output_types, output_shapes)
        else:
            raise TypeError("To specify the output signature you need to provide either the "
                            "`output_signature` argument or the `output_types` argument.")
        self._generator = generator
        self._args = () if args is None else tuple(args)

    def _generate(self, ctx):
        specs = st.flatten(self._spec)
        nested = st.is_nested(self._spec)
        for value in self._generator(*self._args):
            if nested and not st.same_structure(self._spec, value):
                # as TF: a list is not a tuple here, and the error surfaces while iterating
                types = st.map_leaves(lambda s: s.dtype, self._spec)
                raise errors.InvalidArgumentError(
                    None, None, f"from_generator: `generator` yielded an element that did not match the "
                                f"expected structure. The expected structure was {types!r}, but the yielded "
                                f"element was {value!r}.")
            leaves = st.flatten(value) if nested else [value]
            yield st.pack(self._spec, [_convert_yielded(leaf, spec) for leaf, spec in zip(leaves, specs)])

    def _cardinality(self):
        return _UNK

    def _compute_spec(self):
        return self._spec


def _convert_yielded(leaf, spec):
    """One yielded value as a tensor of `spec`, converted as TF's from_generator does: numpy's
    conversion to the declared dtype (ints to floats, floats truncated to ints, out-of-range ints
    wrapped), then a shape check."""
    value = leaf.numpy() if isinstance(leaf, Tensor) else leaf
    try:
        if spec.dtype == dtypes.string:
            arr = np.asarray(value, dtype=object)
            if not all(isinstance(v, (bytes, str, np.bytes_, np.str_)) for v in arr.reshape(-1).tolist()):
                raise TypeError("not a string")
            arr = np.vectorize(lambda v: v.encode() if isinstance(v, str) else bytes(v), otypes=[object])(arr) \
                if arr.size else arr
        else:
            try:
                arr = np.asarray(value, dtype=spec.dtype._np)
            except OverflowError:  # numpy 2 refuses to wrap Python ints; TF's conversion wraps them
                arr = np.asarray(value).astype(spec.dtype._np)
    except (TypeError, ValueError, OverflowError):
        raise errors.InvalidArgumentError(
            None, None, f"from_generator: `generator` yielded an element that could not be converted to the "
                        f"expected type. The expected type was {spec.dtype.name}, but the yielded element was "
                        f"{value!r}.") from None
    if not spec.shape.is_compatible_with(arr.shape):
        raise errors.InvalidArgumentError(
            None, None, f"from_generator: `generator` yielded an element of shape {tuple(arr.shape)} where an "
                        f"element of shape {tuple(spec.shape.as_list()) if spec.shape.rank is not None else None} "
                        f"was expected.")
    return st.to_tensor(arr, dtype=spec.dtype)


class ZipDataset(Node):
    """Elements of several pipelines paired up; `nodes` is a (nested) structure of nodes."""

    def __init__(self, nodes):
        super().__init__(st.flatten(nodes))
        self._structure = nodes

    def _generate(self, ctx):
        iterators = [d._generate(ctx) for d in self._inputs]
        while True:
            elements = []
            for it in iterators:
                try:
                    elements.append(next(it))
                except StopIteration:
                    return
            yield st.pack(self._structure, elements)

    def _cardinality(self):
        cards = [d._cardinality() for d in self._inputs]
        finite = [c for c in cards if c >= 0]
        if finite:
            return min(finite) if _UNK not in cards or min(finite) == 0 else _UNK
        return _UNK if _UNK in cards else _INF

    def _compute_spec(self):
        return st.pack(self._structure, [d.element_spec for d in self._inputs])


class ConcatenateDataset(Node):
    """The elements of `first`, then those of `second` (same structure and dtypes)."""

    def __init__(self, first, second):
        a, b = first.element_spec, second.element_spec
        if not st.same_structure(a, b):
            raise TypeError(f"Incompatible dataset elements:\n  {a}\nvs.\n  {b}")
        for x, y in zip(st.flatten(a), st.flatten(b)):
            if x.dtype != y.dtype:
                raise TypeError(f"Incompatible dataset elements: dtypes {x.dtype.name} and "
                                f"{y.dtype.name} differ:\n  {a}\nvs.\n  {b}")
        super().__init__((first, second))

    def _generate(self, ctx):
        for d in self._inputs:
            yield from d._generate(ctx)

    def _cardinality(self):
        a, b = (d._cardinality() for d in self._inputs)
        if _INF in (a, b):
            return _INF
        if _UNK in (a, b):
            return _UNK
        return a + b

    def _compute_spec(self):
        return st.relax_spec(self._inputs[0].element_spec, self._inputs[1].element_spec)
