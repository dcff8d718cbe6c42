"""tf.experimental: the shape classes of ragged tensors (DynamicRaggedShape, RowPartition).

TF keeps more here (extension types, dispatch registration, dlpack, tf.experimental.numpy);
minitf offers the two classes the ragged-tensor guide uses.
"""
from minitf.ragged.dynamic_ragged_shape import DynamicRaggedShape
from minitf.ragged.row_partition import RowPartition

__all__ = ["DynamicRaggedShape", "RowPartition"]
