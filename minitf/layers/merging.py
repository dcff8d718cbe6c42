"""Layers that combine a list of inputs: Add, Subtract, Multiply, Average, Maximum, Minimum,
Concatenate, and their functional forms add(), concatenate(), ..."""
from minitf.layers.layer_utils import promote_inputs
from minitf.layers.base import Layer
from minitf.ops import array as array_ops
from minitf.ops import math as math_ops
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate",
           "add", "subtract", "multiply", "average", "maximum", "minimum", "concatenate"]


def _elementwise_shape(a, b):
    """Keras' merge rule for two shapes without their batch axis: right-aligned, 1 or None
    broadcasts, the longer shape's extra leading dims kept; None when they cannot merge."""
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return list(a)
    out = list(a[:len(a) - len(b)])
    for x, y in zip(a[len(a) - len(b):], b):
        if x is None or y is None:
            out.append(None)
        elif x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        else:
            return None
    return out


class _Merge(Layer):
    """Elementwise merge of a list of inputs, with Keras 3's rules: one input comes back as it
    is, the batch sizes (first dims) must agree, the other dims broadcast from the right, and
    inputs of lower rank are expanded at axis 1 (after the batch axis) until the ranks match."""

    exact_inputs = None

    def _check(self, shapes):
        if not isinstance(shapes, (list, tuple)) or not shapes or \
                not all(isinstance(s, (list, tuple, TensorShape)) for s in shapes):
            raise ValueError(f"A merge layer {self.name!r} should be called on a list of inputs. "
                             f"Received: input_shape={shapes} (not a list of shapes)")
        lists = [TensorShape(s).as_list() for s in shapes]
        batch_sizes = {s[0] for s in lists if s} - {None}
        if len(batch_sizes) > 1:
            raise ValueError(f"Cannot merge tensors with different batch sizes in layer "
                             f"{self.name!r}. Received tensors with shapes "
                             f"{[tuple(s) for s in lists]}; give every input the same first "
                             f"dimension.")
        if self.exact_inputs is not None and len(lists) != self.exact_inputs:
            raise ValueError(f"A `{type(self).__name__}` layer should be called on exactly "
                             f"{self.exact_inputs} inputs. Received: {len(lists)} inputs.")
        out = lists[0][1:]
        for s in lists[1:]:
            merged = _elementwise_shape(out, s[1:])
            if merged is None:
                raise ValueError(f"Inputs have incompatible shapes in layer {self.name!r}. "
                                 f"Received shapes {[tuple(x) for x in lists]}: without the "
                                 f"batch axis they must broadcast from the right.")
            out = merged
        batch = next(iter(batch_sizes)) if batch_sizes else None
        return [batch] + out

    def build(self, input_shape):
        self._check(input_shape)
        self.built = True

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f"A merge layer {self.name!r} should be called on a list of "
                             f"inputs. Received: inputs={inputs} (not a list of tensors)")
        self._check([x.shape for x in inputs])
        inputs = promote_inputs(inputs)
        ranks = [x.shape.rank for x in inputs]
        if len(set(ranks)) > 1:
            expanded = []
            for x, rank in zip(inputs, ranks):
                if rank == 0:
                    raise ValueError(f"Layer {self.name!r} cannot expand a 0-d input at axis 1 "
                                     f"to match inputs of rank {max(ranks)}: axis 1 is out of "
                                     f"bounds for an array with dimension 1. Give the input a "
                                     f"batch axis.")
                for _ in range(max(ranks) - rank):
                    x = array_ops.expand_dims(x, axis=1)
                expanded.append(x)
            inputs = expanded
        out = inputs[0]
        for x in inputs[1:]:
            out = self._merge(out, x)
        return self._finish(out, len(inputs))

    def _finish(self, out, n):
        return out

    def compute_output_shape(self, input_shape):
        """The merged shape: the common batch size, then the broadcast of the other dims."""
        return TensorShape(self._check(input_shape))


@export("layers.Add", "keras.layers.Add")
class Add(_Merge):
    """Sum of the inputs."""

    def _merge(self, a, b):
        return a + b


@export("layers.Subtract", "keras.layers.Subtract")
class Subtract(_Merge):
    """inputs[0] - inputs[1] (exactly two inputs)."""

    exact_inputs = 2

    def _merge(self, a, b):
        return a - b


@export("layers.Multiply", "keras.layers.Multiply")
class Multiply(_Merge):
    """Elementwise product of the inputs."""

    def _merge(self, a, b):
        return a * b


@export("layers.Average", "keras.layers.Average")
class Average(_Merge):
    """Elementwise mean of the inputs."""

    def _merge(self, a, b):
        return a + b

    def _finish(self, out, n):
        return out / n


@export("layers.Maximum", "keras.layers.Maximum")
class Maximum(_Merge):
    """Elementwise maximum of the inputs."""

    def _merge(self, a, b):
        return math_ops.maximum(a, b)


@export("layers.Minimum", "keras.layers.Minimum")
class Minimum(_Merge):
    """Elementwise minimum of the inputs."""

    def _merge(self, a, b):
        return math_ops.minimum(a, b)


@export("layers.Concatenate", "keras.layers.Concatenate")
class Concatenate(Layer):
    """Joins the inputs along `axis`; the other dimensions must match."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def _check(self, shapes):
        if not isinstance(shapes, (list, tuple)) or len(shapes) < 1:
            raise ValueError(f"A `Concatenate` layer should be called on a list of at least 1 "
                             f"input. Received: input_shape={shapes}")
        lists = [TensorShape(s).as_list() for s in shapes]
        if any(not s for s in lists):
            raise ValueError(f"A `Concatenate` layer {self.name!r} cannot concatenate 0-d "
                             f"inputs. Received: input_shape={[tuple(x) for x in lists]}")
        # Keras 3's check: drop the dim at `axis` (as written, not normalized) where the
        # shape has one, then every remaining dim must agree (None matches anything). Inputs
        # whose ranks still differ fail here; others go on to the concat op, which checks.
        reduced = set()
        for s in lists:
            s = list(s)
            if len(s) > self.axis:
                del s[self.axis]
            reduced.add(tuple(s))
        if len(reduced) != 1:
            ranks = {len(s) for s in reduced}
            if len(ranks) != 1 or any(len({s[i] for s in reduced} - {None}) > 1
                                      for i in range(next(iter(ranks)))):
                raise ValueError(f"A `Concatenate` layer {self.name!r} requires inputs with "
                                 f"matching shapes except for the concatenation axis. "
                                 f"Received: input_shape={[tuple(x) for x in lists]}")
        out = list(lists[0])
        if len({len(s) for s in lists}) == 1 and -len(out) <= self.axis < len(out):
            sizes = [s[self.axis] for s in lists]
            out[self.axis] = None if any(d is None for d in sizes) else sum(sizes)
        return out

    def build(self, input_shape):
        self._check(input_shape)
        self.built = True

    def call(self, inputs):
        self._check([x.shape for x in inputs])
        return array_ops.concat(promote_inputs(inputs), axis=self.axis)

    def compute_output_shape(self, input_shape):
        """The inputs' shape with the concatenation axis summed."""
        return TensorShape(self._check(input_shape))

    def get_config(self):
        """axis."""
        config = super().get_config()
        config["axis"] = self.axis
        return config


@export("layers.add", "keras.layers.add")
def add(inputs, **kwargs):
    """Functional form of `Add`: Add(**kwargs)(inputs)."""
    return Add(**kwargs)(inputs)


@export("layers.subtract", "keras.layers.subtract")
def subtract(inputs, **kwargs):
    """Functional form of `Subtract`."""
    return Subtract(**kwargs)(inputs)


@export("layers.multiply", "keras.layers.multiply")
def multiply(inputs, **kwargs):
    """Functional form of `Multiply`."""
    return Multiply(**kwargs)(inputs)


@export("layers.average", "keras.layers.average")
def average(inputs, **kwargs):
    """Functional form of `Average`."""
    return Average(**kwargs)(inputs)


@export("layers.maximum", "keras.layers.maximum")
def maximum(inputs, **kwargs):
    """Functional form of `Maximum`."""
    return Maximum(**kwargs)(inputs)


@export("layers.minimum", "keras.layers.minimum")
def minimum(inputs, **kwargs):
    """Functional form of `Minimum`."""
    return Minimum(**kwargs)(inputs)


@export("layers.concatenate", "keras.layers.concatenate")
def concatenate(inputs, axis=-1, **kwargs):
    """Functional form of `Concatenate`."""
    return Concatenate(axis=axis, **kwargs)(inputs)
