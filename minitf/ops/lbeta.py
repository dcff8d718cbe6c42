"""tf.math.lbeta: log|B(x)| of the last axis, composed from lgamma and sums as TF composes it
(so its gradient and graph behaviour are those of the parts)."""
from minitf import dispatch
from minitf.ops._core import as_tensor
from minitf.ops.gamma_functions import lgamma
from minitf.ops.reduce import reduce_sum
from minitf.api_export import export

__all__ = ["lbeta"]


@export("math.lbeta")
@dispatch.add_dispatch_support
def lbeta(x, name=None):
    """sum(lgamma(x)) - lgamma(sum(x)) over the last axis: the log of the multivariate beta
    function of each row. An empty last axis gives -inf."""
    x = as_tensor(x)
    return reduce_sum(lgamma(x), axis=[-1]) - lgamma(reduce_sum(x, axis=[-1]))
