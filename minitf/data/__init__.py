"""tf.data: input pipelines (`tf.data.Dataset`) and their checkpointable iterators."""
from minitf.data import experimental  # noqa: F401
from minitf.data.dataset import (AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY,  # noqa: F401
                                 Dataset, Iterator, Options)
from minitf.data.files import TextLineDataset  # noqa: F401
from minitf.data.structure import DatasetSpec  # noqa: F401
from minitf.data.tfrecord import TFRecordDataset  # noqa: F401

__all__ = ["Dataset", "DatasetSpec", "Iterator", "Options", "TextLineDataset", "TFRecordDataset", "AUTOTUNE",
           "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "experimental"]
