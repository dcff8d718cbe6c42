"""tf.distribute.experimental: the communication options and the older strategy names."""
from minitf.distribute.mirrored import MultiWorkerMirroredStrategy  # noqa: F401
from minitf.distribute.options import (CollectiveCommunication, CommunicationImplementation,  # noqa: F401
                                       CommunicationOptions)
from minitf.distribute.strategy import ValueContext  # noqa: F401

__all__ = ["CommunicationOptions", "CommunicationImplementation", "CollectiveCommunication",
           "MultiWorkerMirroredStrategy", "ValueContext"]
