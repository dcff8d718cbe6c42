"""RaggedTensor arguments of tf.functions against TF 2.21: tracing and SavedModels both ways.

The guide/ragged_tensor notebook's module (a `grow` method traced for a RaggedTensorSpec) and a
module with a ragged input_signature are saved by one library and loaded by the other, which must
call them on ragged tensors and give the writer's results. The StructuredValue minitf writes for a
RaggedTensorSpec is the one TF's nested_structure_coder writes, and traced signatures, graph
inputs and retracing counts are TF's.
"""
import numpy as np
import pytest

import minitf
from minitf.saved_model import codec
from minitf.saved_model.structure import decode_structure, encode_structure

tf_ref = pytest.importorskip("tensorflow")


def _module(lib):
    class CustomModule(lib.Module):
        def __init__(self, variable_value):
            super().__init__()
            self.v = lib.Variable(variable_value)

        @lib.function
        def grow(self, x):
            return x * self.v

        @lib.function(input_signature=[lib.RaggedTensorSpec(shape=[None, None, 2], dtype=lib.float32,
                                                             ragged_rank=1)])
        def scale_rows(self, x):
            return x.flat_values * self.v + 1.0, x * 0.5

    module = CustomModule(100.0)
    module.grow.get_concrete_function(lib.RaggedTensorSpec(shape=[None, None], dtype=lib.float32))
    return module


def _check_loaded(lib, loaded):
    out = loaded.grow(lib.ragged.constant([[1.0, 4.0, 3.0], [2.0]]))
    assert isinstance(out, lib.RaggedTensor)
    assert out.to_list() == [[100.0, 400.0, 300.0], [200.0]]
    out = loaded.grow(lib.ragged.constant([[-1.0], [], [0.5, 2.0]]))
    assert out.to_list() == [[-100.0], [], [50.0, 200.0]]
    x = lib.ragged.constant([[[1.0, 2.0]], [[3.0, 4.0], [5.0, 6.0]]], ragged_rank=1)
    flat, half = loaded.scale_rows(x)
    np.testing.assert_allclose(flat.numpy(), [[101.0, 201.0], [301.0, 401.0], [501.0, 601.0]])
    assert isinstance(half, lib.RaggedTensor)
    assert half.to_list() == [[[0.5, 1.0]], [[1.5, 2.0], [2.5, 3.0]]]


@pytest.mark.parametrize("writer,reader", [(minitf, tf_ref), (tf_ref, minitf)])
def test_ragged_module_both_ways(tmp_path, writer, reader):
    writer.saved_model.save(_module(writer), str(tmp_path))
    _check_loaded(reader, reader.saved_model.load(str(tmp_path)))


def test_minitf_reloads_its_own_ragged_module(tmp_path):
    minitf.saved_model.save(_module(minitf), str(tmp_path))
    _check_loaded(minitf, minitf.saved_model.load(str(tmp_path)))


@pytest.mark.parametrize("args", [((None, None), "float32", 1, "int64"),
                                  ((2, None, 3), "int32", 1, "int32"),
                                  ((None, None, None), "float64", 2, "int64")])
def test_ragged_spec_structured_value_is_tfs(args):
    from tensorflow.core.protobuf import struct_pb2
    from tensorflow.python.saved_model import nested_structure_coder
    shape, dtype, ragged_rank, splits = args
    ours = minitf.RaggedTensorSpec(shape, getattr(minitf, dtype), ragged_rank, getattr(minitf, splits))
    theirs = tf_ref.RaggedTensorSpec(shape, getattr(tf_ref, dtype), ragged_rank, getattr(tf_ref, splits))
    parsed = struct_pb2.StructuredValue.FromString(codec.encode(encode_structure(ours)))
    assert parsed == nested_structure_coder.encode_structure(theirs)
    tf_bytes = nested_structure_coder.encode_structure(theirs).SerializeToString()
    assert decode_structure(codec.decode("StructuredValue", tf_bytes)) == ours


def _traces(lib):
    calls = []

    @lib.function
    def f(x):
        calls.append(1)
        return x * 2

    for value in ([[1.0, 2.0], [3.0]], [[4.0], [5.0, 6.0, 7.0]], [[1, 2], [3]], [[[1.0]], [[2.0, 3.0]]],
                  [[1.0], [2.0], [3.0]], [[9.0], [8.0, 7.0]]):
        f(lib.ragged.constant(value))
    concrete = f.get_concrete_function(lib.RaggedTensorSpec([3, None], lib.float32))
    inputs = [(t.shape.as_list(), t.dtype.name) for t in concrete.inputs]
    outputs = [(t.shape.as_list(), t.dtype.name) for t in concrete.outputs]
    return len(calls), f.pretty_printed_concrete_signatures(), inputs, outputs


def test_tracing_counts_signatures_and_inputs_are_tfs():
    assert _traces(minitf) == _traces(tf_ref)
