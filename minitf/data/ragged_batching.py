"""Dataset.ragged_batch and tf.data.experimental.dense_to_ragged_batch: batches whose rows may
differ in length, joined into RaggedTensors instead of padded.

As in TF, the input's dense components whose spec has an unknown dimension (TF's traced spec:
minitf traces a map's function for it where it can) are re-described as RaggedTensorSpecs, ragged
up to their last unknown dimension; batching then joins them into RaggedTensors. Components of
fully known shape batch densely, ragged and sparse components as they always do.
"""
from minitf.dtypes import dtypes
from minitf.data import composite_elements as composite, structure as st
from minitf.data.transformations import UnaryDataset

__all__ = ["DenseToRaggedDataset"]


class DenseToRaggedDataset(UnaryDataset):
    """The input's elements, with dense components of partly unknown shape made ragged."""

    def __init__(self, input_node, row_splits_dtype=dtypes.int64):
        super().__init__(input_node)
        dtype = dtypes.as_dtype(row_splits_dtype)
        if dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError(f"row_splits_dtype must be tf.int32 or tf.int64, got {dtype.name}")
        self._row_splits_dtype = dtype

    def _compute_spec(self):
        spec = self._input._traced_spec()
        if not st.same_structure(spec, self._input.element_spec):  # trust the elements themselves
            spec = self._input.element_spec
        return st.map_leaves(lambda s: composite.to_ragged_spec(s, self._row_splits_dtype), spec)

    def _generate(self, ctx):
        specs = st.flatten(self.element_spec)
        for element in self._input._generate(ctx):
            yield st.pack(element, [composite.to_ragged_value(v, s) for v, s in zip(st.flatten(element), specs)])
