"""The sparse-tensor guide (tensorflow/docs site/en/guide/sparse_tensor.ipynb) run under minitf:
every code cell that needs only tf.sparse runs unchanged and prints what TF 2.21 printed
(sources and TF's outputs in sparse_guide_cells.json).

Left out: the Keras cell (tf.keras.Input(sparse=True), out of scope) and the tf.data cells
(Dataset.from_tensor_slices of a SparseTensor needs minitf.data to slice SparseTensors)."""
import contextlib
import io
import json
import pathlib

import pytest

# (code-cell number, source as the guide has it but importing minitf, what TF 2.21 printed)
CELLS = [(c["cell"], c["source"], c["tf_output"])
         for c in json.loads((pathlib.Path(__file__).parent / "sparse_guide_cells.json").read_text())]


def _run(number, source, namespace):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, f"sparse_tensor.ipynb cell {number}", "exec"), namespace)
    return out.getvalue().rstrip("\n")


@pytest.mark.parametrize("position", range(len(CELLS)), ids=[f"cell{c[0]}" for c in CELLS])
def test_guide_cell_prints_what_tf_prints(position):
    namespace = {}
    for number, source, _ in CELLS[:position]:  # the cells before it, as a notebook runs them
        _run(number, source, namespace)
    number, source, expected = CELLS[position]
    assert _run(number, source, namespace) == expected
