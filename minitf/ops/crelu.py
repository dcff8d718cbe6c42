"""tf.nn.crelu: the concatenated ReLU, relu(concat([x, -x], axis)), composed as TF composes it."""
from minitf import dispatch
from minitf.ops._core import as_tensor
from minitf.ops.math import negative
from minitf.ops.nn import relu
from minitf.ops.shaping import concat
from minitf.api_export import export

__all__ = ["crelu"]


@export("nn.crelu")
@dispatch.add_dispatch_support
def crelu(features, axis=-1, name=None):
    """relu of `features` and of `-features`, concatenated along `axis` (which doubles in size):
    the positive and the negative part of each input, each as its own channel."""
    features = as_tensor(features)
    return relu(concat([features, negative(features)], axis))
