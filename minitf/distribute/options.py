"""tf.distribute.experimental.CommunicationOptions and CommunicationImplementation."""
import enum
from minitf.api_export import export

__all__ = ["CommunicationImplementation", "CollectiveCommunication", "CommunicationOptions"]


@export("distribute.experimental.CollectiveCommunication",
        "distribute.experimental.CommunicationImplementation")
class CommunicationImplementation(enum.Enum):
    """Which collective library a MultiWorkerMirroredStrategy uses: AUTO picks (NCCL for GPU
    arrays when available, else MPI), RING is MPI here (TF's ring all-reduce over gRPC has
    the same role), NCCL is NVIDIA's library between GPUs."""

    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


# TF's older name for the same enum
CollectiveCommunication = CommunicationImplementation


@export("distribute.experimental.CommunicationOptions")
class CommunicationOptions:
    """Settings of the collectives a strategy runs.

    Args:
      bytes_per_pack: when > 0, gradients are all-reduced in packs of about this many bytes
        instead of one pack per dtype (0, the default, lets minitf pick: one pack).
      timeout_seconds: a collective that waits longer fails instead of hanging (None: wait).
      implementation: a `CommunicationImplementation` (or its name).
    """

    def __init__(self, bytes_per_pack=0, timeout_seconds=None,
                 implementation=CommunicationImplementation.AUTO):
        if bytes_per_pack < 0:
            raise ValueError(f"Argument `bytes_per_pack` must be >=0, Received {bytes_per_pack}.")
        if isinstance(implementation, str):
            implementation = CommunicationImplementation[implementation.upper()]
        if not isinstance(implementation, CommunicationImplementation):
            raise ValueError("Argument `implementation` must be instance of "
                             "`tf.distribute.experimental.CommunicationImplementation`, "
                             f"received {implementation!r}.")
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation

    def merge(self, options):
        """These options with the non-default settings of `options` taking over."""
        if options is None:
            return self
        merged = CommunicationOptions(self.bytes_per_pack, self.timeout_seconds, self.implementation)
        if options.bytes_per_pack != 0:
            merged.bytes_per_pack = options.bytes_per_pack
        if options.timeout_seconds is not None:
            merged.timeout_seconds = options.timeout_seconds
        if options.implementation != CommunicationImplementation.AUTO:
            merged.implementation = options.implementation
        return merged

    def __repr__(self):
        return (f"CommunicationOptions(bytes_per_pack={self.bytes_per_pack}, timeout_seconds="
                f"{self.timeout_seconds}, implementation={self.implementation})")
