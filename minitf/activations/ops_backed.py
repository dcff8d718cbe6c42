"""The Keras 3 activations that are keras.ops functions under another name: celu, glu,
hard_shrink, hard_tanh, log_sigmoid, soft_shrink, sparse_plus, sparse_sigmoid, sparsemax,
squareplus, tanh_shrink and threshold. Each forwards to its keras.ops function (the formula,
the dtype rules, the errors and the gradient live there), as Keras' own activations do."""
from minitf.keras_ops import nn_activations as ops_nn
from minitf.api_export import export

__all__ = ["celu", "glu", "hard_shrink", "hard_tanh", "log_sigmoid", "soft_shrink", "sparse_plus",
           "sparse_sigmoid", "sparsemax", "squareplus", "tanh_shrink", "threshold"]


@export("activations.celu", "keras.activations.celu")
def celu(x, alpha=1.0):
    """Continuously differentiable ELU: max(x, 0) + alpha * (exp(min(x, 0) / alpha) - 1)."""
    return ops_nn.celu(x, alpha=alpha)


@export("activations.glu", "keras.activations.glu")
def glu(x, axis=-1):
    """Gated linear unit: x is split in two halves `a, b` along `axis` (even size), a * sigmoid(b)."""
    return ops_nn.glu(x, axis=axis)


@export("activations.hard_shrink", "keras.activations.hard_shrink")
def hard_shrink(x, threshold=0.5):
    """x where |x| > threshold, else 0."""
    return ops_nn.hard_shrink(x, threshold=threshold)


@export("activations.hard_tanh", "keras.activations.hard_tanh")
def hard_tanh(x):
    """x clipped to [-1, 1]."""
    return ops_nn.hard_tanh(x)


@export("activations.log_sigmoid", "keras.activations.log_sigmoid")
def log_sigmoid(x):
    """log(sigmoid(x)) = -softplus(-x), computed without overflow."""
    return ops_nn.log_sigmoid(x)


@export("activations.soft_shrink", "keras.activations.soft_shrink")
def soft_shrink(x, threshold=0.5):
    """x - threshold above threshold, x + threshold below -threshold, 0 between."""
    return ops_nn.soft_shrink(x, threshold=threshold)


@export("activations.sparse_plus", "keras.activations.sparse_plus")
def sparse_plus(x):
    """0 for x <= -1, (x + 1)^2 / 4 for -1 < x < 1, x for x >= 1."""
    return ops_nn.sparse_plus(x)


@export("activations.sparse_sigmoid", "keras.activations.sparse_sigmoid")
def sparse_sigmoid(x):
    """0 for x <= -1, (x + 1) / 2 for -1 < x < 1, 1 for x >= 1."""
    return ops_nn.sparse_sigmoid(x)


@export("activations.sparsemax", "keras.activations.sparsemax")
def sparsemax(x, axis=-1):
    """The Euclidean projection of x onto the probability simplex along `axis` (sparse softmax)."""
    return ops_nn.sparsemax(x, axis)


@export("activations.squareplus", "keras.activations.squareplus")
def squareplus(x, b=4):
    """(x + sqrt(x^2 + b)) / 2, a smooth ReLU."""
    return ops_nn.squareplus(x, b=b)


@export("activations.tanh_shrink", "keras.activations.tanh_shrink")
def tanh_shrink(x):
    """x - tanh(x)."""
    return ops_nn.tanh_shrink(x)


@export("activations.threshold", "keras.activations.threshold")
def threshold(x, threshold, default_value):
    """x where x > threshold, else default_value."""
    return ops_nn.threshold(x, threshold, default_value)
