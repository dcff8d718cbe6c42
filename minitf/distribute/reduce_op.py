"""tf.distribute.ReduceOp: how values of several replicas combine."""
import enum
from minitf.api_export import export

__all__ = ["ReduceOp"]


@export("distribute.ReduceOp")
class ReduceOp(enum.Enum):
    """How `Strategy.reduce` and `ReplicaContext.all_reduce` combine the replicas' values:
    SUM adds them, MEAN averages them. `ReduceOp("SUM")` accepts the upper-case name."""

    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation):
        """The ReduceOp matching a `tf.VariableAggregation` (SUM or MEAN; others raise)."""
        name = getattr(aggregation, "name", str(aggregation)).upper()
        if name not in ("SUM", "MEAN"):
            raise ValueError(f"Could not convert from `tf.VariableAggregation` {aggregation} to "
                             "`tf.distribute.ReduceOp` type; only SUM and MEAN have one.")
        return ReduceOp(name)


def as_reduce_op(op):
    """`op` (a ReduceOp or its name, 'SUM'/'MEAN') as a ReduceOp; ValueError names the bad value."""
    if isinstance(op, ReduceOp):
        return op
    return ReduceOp(op)
