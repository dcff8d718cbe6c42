"""tf.function with RaggedTensorSpec / SparseTensorSpec signatures and concrete functions (run
eagerly: minitf's graphs hold dense tensors), checked as TF 2.21 checks them."""
import pytest

import minitf as tf


def _max_and_min():
    @tf.function(input_signature=[tf.RaggedTensorSpec(shape=[None, None], dtype=tf.int32)])
    def max_and_min(rt):
        return tf.math.reduce_max(rt, axis=-1), tf.math.reduce_min(rt, axis=-1)
    return max_and_min


def test_input_signature_with_a_ragged_spec():
    hi, lo = _max_and_min()(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]))
    assert hi.numpy().tolist() == [2, 3, 6] and lo.numpy().tolist() == [1, 3, 4] and hi.dtype == tf.int32
    f = _max_and_min()
    for bad in (tf.constant([[1, 2]]), tf.ragged.constant([[1.0]]), [[1, 2], [3]], tf.ragged.constant([[[1]]])):
        with pytest.raises(TypeError, match="Binding inputs to tf.function 'max_and_min' failed"):
            f(bad)
    assert f.get_concrete_function().structured_input_signature == (
        (tf.RaggedTensorSpec([None, None], tf.int32),), {})
    tf.config.run_functions_eagerly(True)
    try:
        assert f(tf.ragged.constant([[7], [8, 9]]))[0].numpy().tolist() == [7, 9]
    finally:
        tf.config.run_functions_eagerly(False)


def test_mixed_signature_converts_the_dense_arguments():
    @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.float32), tf.TensorSpec([], tf.float32)])
    def scale(rt, k):
        return rt * k
    assert scale(tf.ragged.constant([[1.0, 2.0], []]), 3).to_list() == [[3.0, 6.0], []]
    with pytest.raises(TypeError):
        scale(tf.ragged.constant([[1.0]]), tf.constant([1.0, 2.0]))


def test_sparse_spec_signature():
    @tf.function(input_signature=[tf.SparseTensorSpec([None, 3], tf.float32)])
    def total(x):
        return tf.sparse.reduce_sum(x)
    assert float(total(tf.sparse.eye(3))) == 3.0
    with pytest.raises(TypeError):
        total(tf.sparse.eye(4))


def test_concrete_function_of_a_ragged_spec():
    class CustomModule(tf.Module):
        def __init__(self, value):
            super().__init__()
            self.v = tf.Variable(value)

        @tf.function
        def grow(self, x):
            return x * self.v

    module = CustomModule(100.0)
    cf = module.grow.get_concrete_function(tf.RaggedTensorSpec(shape=[None, None], dtype=tf.float32))
    assert cf.structured_input_signature == ((tf.RaggedTensorSpec([None, None], tf.float32),), {})
    assert cf(tf.ragged.constant([[1.0, 4.0, 3.0], [2.0]])).to_list() == [[100.0, 400.0, 300.0], [200.0]]
    module.v.assign(2.0)  # run eagerly: every call reads the variable anew
    assert cf(tf.ragged.constant([[1.0]])).to_list() == [[2.0]]
    with pytest.raises(TypeError):
        cf(tf.constant([[1.0]]))
    assert "RaggedTensorSpec(TensorShape([None, None]), tf.float32, 1, tf.int64)" in cf.pretty_printed_signature()


def test_concrete_function_of_a_ragged_value_runs_on_other_values():
    @tf.function
    def increment(x):
        return x + 1
    rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
    cf = increment.get_concrete_function(rt)
    assert cf.structured_input_signature == ((tf.RaggedTensorSpec([3, None], tf.int32),), {})
    assert cf(rt).to_list() == [[2, 3], [4], [5, 6, 7]]
    assert cf(tf.ragged.constant([[10], [3, 4], []])).to_list() == [[11], [4, 5], []]
    with pytest.raises(TypeError, match="Can not cast"):
        cf(tf.ragged.constant([[10], [3, 4]]))


def test_compare_with_tensorflow():
    tf_ref = pytest.importorskip("tensorflow")

    def run(lib):
        @lib.function(input_signature=[lib.RaggedTensorSpec(shape=[None, None], dtype=lib.int32)])
        def max_and_min(rt):
            return lib.math.reduce_max(rt, axis=-1), lib.math.reduce_min(rt, axis=-1)
        out = [t.numpy().tolist() for t in max_and_min(lib.ragged.constant([[1, 2], [3], [4, 5, 6]]))]
        cf = lib.function(lambda x: x * 2.0).get_concrete_function(lib.RaggedTensorSpec([None, None], lib.float32))
        errors = []
        for bad in (lambda: max_and_min(lib.constant([[1, 2]])), lambda: cf(lib.ragged.constant([[1]]))):
            try:
                bad()
            except Exception as e:  # noqa: BLE001 (the class is compared)
                errors.append(type(e).__name__)
        return [out, cf(lib.ragged.constant([[1.0], [2.0, 3.0]])).to_list(),
                repr(cf.structured_input_signature), errors]
    assert run(tf) == run(tf_ref)
