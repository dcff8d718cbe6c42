"""Parity rows for tf.slice and the tensor_scatter_nd max/min updates: values, errors, gradients."""
from hypothesis import strategies as st

from parity_strategies import cases, tensors
from parity_table import Table

TABLE = Table()
FLOATS = ("float32", "float64")

TABLE.add("slice", cases(tensors(FLOATS + ("int32",), shape=(3, 4)),
                         st.sampled_from([[0, 0], [1, 2], [3, 4], [2, 1], [0, 5], [1]]),
                         st.sampled_from([[1, 2], [-1, -1], [2, -1], [0, 0], [3, 5], [2]])), grad=2)
for _name in ("tensor_scatter_nd_max", "tensor_scatter_nd_min"):
    TABLE.add(_name, cases(tensors(FLOATS, shape=(4,)), st.sampled_from([[[0], [2]], [[1], [1]], [[5], [0]]]),
                           tensors(FLOATS, shape=(2,))), grad=1)
