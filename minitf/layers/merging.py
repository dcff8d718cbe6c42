"""Layers that combine a list of inputs: Add, Subtract, Multiply, Average, Maximum, Minimum,
Concatenate, and their functional forms add(), concatenate(), ..."""
from minitf.layers._utils import promote_inputs
from minitf.layers.base import Layer
from minitf.tensor_shape import TensorShape

__all__ = ["Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate",
           "add", "subtract", "multiply", "average", "maximum", "minimum", "concatenate"]


def _broadcast_shape(a, b):
    a, b = list(a), list(b)
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x is None or y is None:
            out.append(None if (x in (None, 1) and y in (None, 1)) or x == y
                       else (x if y in (None, 1) else y))
        elif x == 1 or y == 1 or x == y:
            out.append(max(x, y) if min(x, y) == 1 else x)
        else:
            return None
    return out


class _Merge(Layer):
    """Elementwise merge of two or more inputs of compatible shapes."""

    min_inputs = 2
    max_inputs = None

    def _check(self, shapes):
        if not isinstance(shapes, (list, tuple)) or len(shapes) < self.min_inputs:
            raise ValueError(f"A merge layer {self.name!r} should be called on a list of at "
                             f"least {self.min_inputs} inputs. Got "
                             f"{len(shapes) if isinstance(shapes, (list, tuple)) else 1} inputs.")
        if self.max_inputs is not None and len(shapes) > self.max_inputs:
            raise ValueError(f"A `{type(self).__name__}` layer should be called on exactly "
                             f"{self.max_inputs} inputs. Received: {len(shapes)} inputs.")
        out = TensorShape(shapes[0]).as_list()
        for s in shapes[1:]:
            merged = _broadcast_shape(out, TensorShape(s).as_list())
            if merged is None:
                raise ValueError(f"Inputs have incompatible shapes in layer {self.name!r}. "
                                 f"Received shapes {[tuple(TensorShape(x).as_list()) for x in shapes]}")
            out = merged
        return out

    def build(self, input_shape):
        self._check(input_shape)
        self.built = True

    def call(self, inputs):
        self._check([x.shape for x in inputs])
        inputs = promote_inputs(inputs)
        out = inputs[0]
        for x in inputs[1:]:
            out = self._merge(out, x)
        return self._finish(out, len(inputs))

    def _finish(self, out, n):
        return out

    def compute_output_shape(self, input_shape):
        """The broadcast shape of the inputs."""
        return TensorShape(self._check(input_shape))


class Add(_Merge):
    """Sum of the inputs."""

    def _merge(self, a, b):
        return a + b


class Subtract(_Merge):
    """inputs[0] - inputs[1] (exactly two inputs)."""

    max_inputs = 2

    def _merge(self, a, b):
        return a - b


class Multiply(_Merge):
    """Elementwise product of the inputs."""

    def _merge(self, a, b):
        return a * b


class Average(_Merge):
    """Elementwise mean of the inputs."""

    def _merge(self, a, b):
        return a + b

    def _finish(self, out, n):
        return out / n


class Maximum(_Merge):
    """Elementwise maximum of the inputs."""

    def _merge(self, a, b):
        import minitf as tf
        return tf.maximum(a, b)


class Minimum(_Merge):
    """Elementwise minimum of the inputs."""

    def _merge(self, a, b):
        import minitf as tf
        return tf.minimum(a, b)


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
        rank = len(lists[0])
        axis = self.axis % rank
        for s in lists[1:]:
            if len(s) != rank or any(a is not None and b is not None and a != b
                                     for i, (a, b) in enumerate(zip(lists[0], s)) if i != axis):
                raise ValueError(f"A `Concatenate` layer {self.name!r} requires inputs with "
                                 f"matching shapes except for the concatenation axis. Received: "
                                 f"input_shape={[tuple(x) for x in lists]}")
        out = list(lists[0])
        sizes = [s[axis] for s in lists]
        out[axis] = None if any(d is None for d in sizes) else sum(sizes)
        return out

    def build(self, input_shape):
        self._check(input_shape)
        self.built = True

    def call(self, inputs):
        import minitf as tf
        self._check([x.shape for x in inputs])
        return tf.concat(promote_inputs(inputs), axis=self.axis)

    def compute_output_shape(self, input_shape):
        """The inputs' shape with the concatenation axis summed."""
        return TensorShape(self._check(input_shape))

    def get_config(self):
        """axis."""
        config = super().get_config()
        config["axis"] = self.axis
        return config


def add(inputs, **kwargs):
    """Functional form of `Add`: Add(**kwargs)(inputs)."""
    return Add(**kwargs)(inputs)


def subtract(inputs, **kwargs):
    """Functional form of `Subtract`."""
    return Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs):
    """Functional form of `Multiply`."""
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    """Functional form of `Average`."""
    return Average(**kwargs)(inputs)


def maximum(inputs, **kwargs):
    """Functional form of `Maximum`."""
    return Maximum(**kwargs)(inputs)


def minimum(inputs, **kwargs):
    """Functional form of `Minimum`."""
    return Minimum(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    """Functional form of `Concatenate`."""
    return Concatenate(axis=axis, **kwargs)(inputs)
