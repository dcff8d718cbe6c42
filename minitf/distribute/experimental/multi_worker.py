"""tf.distribute.experimental.MultiWorkerMirroredStrategy, TF's older name."""
from minitf.distribute import mirrored
from minitf.distribute.options import CollectiveCommunication, CommunicationOptions
from minitf.api_export import export


@export("distribute.experimental.MultiWorkerMirroredStrategy")
class MultiWorkerMirroredStrategy(mirrored.MultiWorkerMirroredStrategy):
    """TF's older spelling of `tf.distribute.MultiWorkerMirroredStrategy`, which named the
    collective implementation directly.

    Args:
      communication: a `CollectiveCommunication` (AUTO, RING or NCCL).
      cluster_resolver: as for `tf.distribute.MultiWorkerMirroredStrategy`.
      communication_options: overrides `communication` when given.
    """

    def __init__(self, communication=CollectiveCommunication.AUTO, cluster_resolver=None,
                 communication_options=None):
        if communication_options is None:
            communication_options = CommunicationOptions(implementation=communication)
        super().__init__(cluster_resolver=cluster_resolver, communication_options=communication_options)
