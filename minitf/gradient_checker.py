"""Numerical gradient checking: theoretical (tape) against central finite-difference jacobians."""
import numpy as np

from minitf import backend
from minitf.convert import convert_to_tensor
from minitf.ops.array import reshape
from minitf.ops.reduce import reduce_sum
from minitf.tape import GradientTape
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["compute_gradient", "max_error", "assert_gradients_close"]


def _jacobian_theoretical(f, xs, i, y_size):
    x = xs[i]
    rows = []
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = convert_to_tensor(f(*xs))
        flat = reshape(y, [-1])
        elements = [flat[j] for j in range(y_size)]
    for j in range(y_size):
        g = tape.gradient(elements[j], x)
        rows.append(np.zeros(x.shape.num_elements()) if g is None else np.ravel(g.numpy()))
    return np.array(rows, dtype=np.float64).reshape(y_size, -1)


def _jacobian_numerical(f, xs, i, y_size, delta):
    x = xs[i]
    base = np.array(backend.to_host(x._value), dtype=x._value.dtype, copy=True)
    xp = backend.array_module(x._value)
    jac = np.zeros((y_size, base.size))
    flat = base.reshape(-1)
    for k in range(base.size):
        vals = []
        for sign in (1, -1):
            pert = flat.copy()
            pert[k] += sign * delta
            args = list(xs)
            args[i] = Tensor(xp.asarray(pert.reshape(base.shape)))
            vals.append(np.ravel(np.asarray(f(*args), dtype=np.float64)))
        jac[:, k] = (vals[0] - vals[1]) / (2 * delta)
    return jac


@export("test.compute_gradient")
def compute_gradient(f, x, delta=None):
    """Theoretical and numerical jacobians of `f` at the list of tensors `x`.

    Returns two lists with one 2-D numpy array per argument, of shape (y_size, x_size).
    Use float64 inputs for tight comparisons.
    """
    xs = [convert_to_tensor(v) for v in x]
    if delta is None:
        delta = 1e-3 if any(t.dtype.name != "float64" for t in xs) else 1e-6
    y = convert_to_tensor(f(*xs))
    y_size = int(np.prod(y.shape.as_list())) if y.shape.rank else 1
    theoretical = [_jacobian_theoretical(f, xs, i, y_size) for i in range(len(xs))]
    numerical = [_jacobian_numerical(f, xs, i, y_size, delta) for i in range(len(xs))]
    return theoretical, numerical


@export("test.max_error")
def max_error(grad1, grad2):
    """The largest absolute difference between two lists of jacobians."""
    return max((float(np.max(np.abs(a - b))) if np.size(a) else 0.0) for a, b in zip(grad1, grad2))


def assert_gradients_close(f, x, order=1, rtol=1e-5, atol=1e-6, delta=1e-6):
    """Assert the tape's derivatives of `f` at tensors `x` match central finite differences.

    order=1 checks the jacobians of f; order=2 also checks the jacobians of the gradient of
    sum(f) (so the gradient rules themselves must be differentiable). Use float64 inputs.
    """
    xs = [convert_to_tensor(v) for v in x]
    theo, num = compute_gradient(f, xs, delta=delta)
    for i, (a, b) in enumerate(zip(theo, num)):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol,
                                   err_msg=f"first-order jacobian w.r.t. argument {i}")
    if order >= 2:
        for i in range(len(xs)):
            def grad_i(*args, i=i):
                with GradientTape() as tape:
                    tape.watch(args[i])
                    y = reduce_sum(f(*args))
                g = tape.gradient(y, args[i])
                return g if g is not None else args[i] * 0
            theo2, num2 = compute_gradient(grad_i, xs, delta=delta)
            for j, (a, b) in enumerate(zip(theo2, num2)):
                np.testing.assert_allclose(a, b, rtol=rtol * 10, atol=atol * 10,
                                           err_msg=f"second-order: d/dx{j} of grad w.r.t. argument {i}")
