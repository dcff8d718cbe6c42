"""EinsumDense: a dense layer whose product with the kernel is any einsum equation (Keras 3)."""
import re

from minitf.activations import activations
from minitf import constraints
from minitf.initializers import initializers
from minitf.regularizers import regularizers
from minitf.layers import layer_utils
from minitf.layers.base import InputSpec, Layer
from minitf.ops.linalg import einsum
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["EinsumDense"]


def _int_or_none(d):
    return None if d is None else int(d)


def analyze_equation(equation, bias_axes, input_shape, output_shape):
    """Kernel shape, bias shape, full output shape and the kernel's input/output axes.

    `equation` is 'ab,bc->ac', '...b,bc->...c' (ellipsis on the left) or 'ab...,bc->ac...'
    (on the right); `output_shape` is the output without the batch axis and without the
    ellipsis axes, None where unknown. Returns
    `(kernel_shape, bias_shape or None, full_output_shape, input_axes, output_axes)`.

    Raises:
        ValueError: an equation of another form, output sizes that contradict the input's,
            labels with no source, or bias axes that are not output labels.
    """
    plain = equation.replace("...", "0")
    input_shape = [_int_or_none(d) for d in input_shape]
    for pattern, left in (("([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)$", False),
                          ("0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)$", True),
                          ("([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0$", False)):
        match = re.match(pattern, plain)
        if match:
            return _analyze(match.group(1), match.group(2), match.group(3), bias_axes,
                            input_shape, output_shape, left)
    raise ValueError(f"EinsumDense: invalid einsum equation {equation!r}. Equations must be of the form "
                     f"[X],[Y]->[Z], ...[X],[Y]->...[Z], or [X]...,[Y]->[Z]....")


def _analyze(in_spec, w_spec, out_spec, bias_axes, input_shape, output_shape, left_elided):
    elided = len(input_shape) - len(in_spec)
    output_shape = [output_shape] if isinstance(output_shape, int) else list(output_shape)
    output_shape.insert(0, input_shape[0])
    if elided > 0 and left_elided:
        for i in range(1, elided):  # the ellipsis axes follow the batch axis
            output_shape.insert(1, input_shape[i])
    elif elided > 0:
        output_shape.extend(input_shape[len(input_shape) - elided:])
    if left_elided:
        in_pos = {c: i + elided - len(input_shape) for i, c in enumerate(in_spec)}
        out_pos = {c: i + elided for i, c in enumerate(out_spec)}
    else:
        in_pos = {c: i for i, c in enumerate(in_spec)}
        out_pos = {c: i for i, c in enumerate(out_spec)}
    for c in in_spec:
        if c in out_pos:
            want, have = output_shape[out_pos[c]], input_shape[in_pos[c]]
            if want is not None and want != have:
                raise ValueError(f"EinsumDense: input shape and output shape do not match at shared "
                                 f"dimension '{c}'. Input shape is {have}, and output shape is {want}; "
                                 f"give output_shape the input's size (or None) there.")
    for c in out_spec:
        if c not in in_spec and c not in w_spec:
            raise ValueError(f"EinsumDense: dimension '{c}' was specified in the output '{out_spec}' but "
                             f"has no corresponding dim in the input spec '{in_spec}' or weight spec "
                             f"'{w_spec}'.")
    kernel_shape, input_axes, output_axes = [], [], []
    for i, c in enumerate(w_spec):
        if c in out_pos:
            kernel_shape.append(output_shape[out_pos[c]])
            output_axes.append(i)
        elif c in in_pos:
            kernel_shape.append(input_shape[in_pos[c]])
            input_axes.append(i)
        else:
            raise ValueError(f"EinsumDense: weight dimension '{c}' did not have a match in either the input "
                             f"spec '{in_spec}' or the output spec '{out_spec}'. For this layer, the weight "
                             f"must be fully specified.")
    bias_shape = None
    if bias_axes is not None:
        offset = elided if left_elided else 0
        sizes = {c: output_shape[i + offset] for i, c in enumerate(out_spec)}
        for c in bias_axes:
            if c not in out_spec:
                raise ValueError(f"EinsumDense: bias dimension '{c}' was requested, but is not part of the "
                                 f"output spec '{out_spec}'.")
        first = min(out_spec.find(c) for c in bias_axes)
        # the bias covers the output from its first biased label on; other labels broadcast (size 1)
        bias_shape = [sizes[c] if c in bias_axes else 1 for c in out_spec[first:]]
        if not left_elided:
            bias_shape.extend([1] * max(elided, 0))
    return kernel_shape, bias_shape, output_shape, input_axes, output_axes


@export("layers.EinsumDense", "keras.layers.EinsumDense")
class EinsumDense(Layer):
    """A dense layer written as an einsum: `activation(einsum(equation, inputs, kernel) + bias)`.

    The equation names the input's axes, the kernel's and the output's; the kernel's shape is
    read from it and from `output_shape`. 'ab,bc->ac' with `output_shape=64` and `bias_axes='c'`
    is `Dense(64)`; 'abc,cde->abde' projects each step of a sequence to `[heads, size]` (as
    MultiHeadAttention does).

    Example:

    ```python
    layer = tf.keras.layers.EinsumDense("...x,xy->...y", output_shape=64, bias_axes="y")
    y = layer(tf.ones((2, 32, 128)))    # kernel (128, 64), bias (64,); y is (2, 32, 64)
    ```

    Args:
        equation: 'ab,bc->ac', '...ab,bc->...ac' or 'ab...,bc->ac...' (the first operand is the
            input, the second the kernel).
        output_shape: the output's shape without the batch axis and the ellipsis axes (an int
            for one axis); None where it equals the input's size.
        activation: applied to the result (name, callable or None).
        bias_axes: the output labels that get a bias (a string), or None for no bias.
        kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
        kernel_constraint, bias_constraint: as for Dense.
        lora_rank, lora_alpha: Keras' low-rank adaptation; refused (NotImplementedError).
        **kwargs: the Layer arguments (`name`, `dtype`, `activity_regularizer`, ...).

    Raises:
        ValueError: (when building) an equation or output shape that does not fit the input.
    """

    def __init__(self, equation, output_shape, activation=None, bias_axes=None,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros", kernel_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, bias_constraint=None, lora_rank=None,
                 lora_alpha=None, **kwargs):
        for key in ("gptq_unpacked_column_size", "quantization_config"):
            if kwargs.pop(key, None) is not None:
                raise NotImplementedError(f"EinsumDense: `{key}` (quantized kernels) is not available in "
                                          f"minitf; leave it None.")
        if lora_rank:
            raise NotImplementedError("EinsumDense: LoRA (`lora_rank`) is not available in minitf; "
                                      "leave lora_rank=None.")
        super().__init__(**kwargs)
        self.equation = equation
        self.partial_output_shape = ((int(output_shape),) if isinstance(output_shape, int)
                                     else tuple(output_shape))
        self.bias_axes = bias_axes
        self.activation = activations.get(activation)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.lora_rank = None
        self.lora_alpha = None

    def _fan_aware_initializer(self, input_axes, output_axes):
        """A copy of a VarianceScaling kernel initializer told which kernel axes are fan-in and
        fan-out (as Keras does), so [dim, heads, size] kernels get Dense-like scales."""
        init = self.kernel_initializer
        if getattr(init, "input_axes", 0) is not None or getattr(init, "output_axes", 0) is not None:
            return init
        # the copy keeps the original's seed (Keras passes it on), so it draws no new one
        config = dict(init.get_config(), seed=init.seed, input_axes=input_axes, output_axes=output_axes)
        return type(init).from_config(config)

    def build(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        kernel_shape, bias_shape, _, input_axes, output_axes = analyze_equation(
            self.equation, self.bias_axes, shape, self.partial_output_shape)
        if any(d is None for d in kernel_shape) or (bias_shape and any(d is None for d in bias_shape)):
            raise ValueError(f"EinsumDense {self.name!r}: the kernel shape {kernel_shape} of equation "
                             f"{self.equation!r} has unknown sizes for input shape {tuple(shape)}; give "
                             f"those sizes in output_shape or in the input.")
        self.input_spec = InputSpec(ndim=len(shape))
        self.kernel = self.add_weight("kernel", shape=tuple(kernel_shape),
                                      initializer=self._fan_aware_initializer(input_axes, output_axes),
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        if bias_shape is not None:
            self.bias = self.add_weight("bias", shape=tuple(bias_shape), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        else:
            self.bias = None
        self.built = True

    def call(self, inputs):
        inputs = layer_utils.as_floating(inputs, self.compute_dtype)
        out = einsum(self.equation, inputs, self.kernel)
        if self.bias is not None:
            out = out + self.bias
        return self.activation(out) if self.activation is not None else out

    def compute_output_shape(self, input_shape):
        """The full output shape the equation gives for `input_shape`."""
        _, _, full, _, _ = analyze_equation(self.equation, self.bias_axes, TensorShape(input_shape).as_list(),
                                            self.partial_output_shape)
        return TensorShape(full)

    def get_config(self):
        """output_shape, equation, activation, bias_axes, initializers, regularizers, constraints."""
        config = super().get_config()
        config.update({
            "output_shape": self.partial_output_shape,
            "equation": self.equation,
            "activation": layer_utils.serialize(self.activation, "activations"),
            "bias_axes": self.bias_axes,
            "kernel_initializer": layer_utils.serialize(self.kernel_initializer, "initializers"),
            "bias_initializer": layer_utils.serialize(self.bias_initializer, "initializers"),
            "kernel_regularizer": layer_utils.serialize(self.kernel_regularizer, "regularizers"),
            "bias_regularizer": layer_utils.serialize(self.bias_regularizer, "regularizers"),
            "activity_regularizer": layer_utils.serialize(self._activity_regularizer, "regularizers"),
            "kernel_constraint": layer_utils.serialize(self.kernel_constraint, "constraints"),
            "bias_constraint": layer_utils.serialize(self.bias_constraint, "constraints"),
            "quantization_config": None,
        })
        return config
