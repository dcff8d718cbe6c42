"""The tf.nn losses that know about tf.distribute: averaging per-example losses over the global
batch and sharing regularization losses between the replicas in sync."""
import numpy as np

from minitf import dispatch
from minitf.errors import errors
from minitf import distribution_context as distribute_context
from minitf.ops import math as _math_ops
from minitf.ops._core import Tensor, as_tensor
from minitf.ops.nn import const, float_input
from minitf.ops.reduce import reduce_sum
from minitf.api_export import export

__all__ = ["compute_average_loss", "scale_regularization_loss"]


def _check_replica_context(fn_name):
    if distribute_context.in_cross_replica():
        raise RuntimeError(f"You are calling `{fn_name}` in cross replica context, while it was expected "
                           "to be called in replica context: call it inside `strategy.run(...)`.")


@export("nn.compute_average_loss")
@dispatch.add_dispatch_support
def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """sum(per_example_loss * sample_weight) / global_batch_size, and 0 for an empty batch.

    Without `global_batch_size` it is this replica's batch size times the number of replicas of
    the tf.distribute strategy in force, so summing the replicas' gradients (as
    `apply_gradients` does under a strategy) gives the gradient of the global batch's mean.

    Raises:
      RuntimeError: called without `global_batch_size` inside a strategy's scope but outside
        its `run` (the replica's batch is unknown there).
      InvalidArgumentError: a negative `global_batch_size`.
    """
    loss = float_input(per_example_loss, "ComputeAverageLoss")
    if loss._value.ndim == 0:
        raise ValueError("Invalid value passed for `per_example_loss`. Expected a tensor with at "
                         f"least rank 1, received a scalar: {loss!r}")
    if sample_weight is not None:
        loss = loss * as_tensor(sample_weight, dtype=None if isinstance(sample_weight, Tensor) else loss.dtype)
    if global_batch_size is None:
        _check_replica_context("compute_average_loss")
        global_batch_size = loss._value.shape[0] * distribute_context.replicas_in_sync()
    elif isinstance(global_batch_size, Tensor):
        global_batch_size = global_batch_size.numpy()
    if isinstance(global_batch_size, (int, np.integer)) and global_batch_size < 0:
        raise errors.InvalidArgumentError(None, None, "compute_average_loss: global_batch_size must be "
                                          f"non-negative. Got: {global_batch_size}")
    total = reduce_sum(loss)
    return _math_ops.divide_no_nan(total, const(global_batch_size, total))


@export("nn.scale_regularization_loss")
@dispatch.add_dispatch_support
def scale_regularization_loss(regularization_loss):
    """The sum of the regularization losses divided by the number of replicas in sync (so
    summing the replicas' gradients counts the regularization once)."""
    _check_replica_context("scale_regularization_loss")
    if isinstance(regularization_loss, (list, tuple)):
        total = _math_ops.add_n(list(regularization_loss))
    else:
        total = reduce_sum(as_tensor(regularization_loss))
    return total / distribute_context.replicas_in_sync()
