"""tf.function and tf.TensorSpec: eager execution with TF's argument rules."""
import numpy as np
import pytest

import minitf as tf


def test_decorated_function_runs_with_same_results():
    @tf.function
    def f(x, y):
        return x * y + 1.0
    assert float(f(tf.constant(2.0), tf.constant(3.0))) == 7.0
    assert f.python_function(2.0, 3.0) == 7.0


def test_numpy_arguments_become_tensors():
    seen = []

    @tf.function
    def f(x):
        seen.append(x)
        return x
    f(np.ones(2, np.float32))
    assert len(seen) == 1 and isinstance(seen[0], tf.Tensor) and seen[0].dtype == tf.float32


def test_train_step_with_tape_inside_function():
    w = tf.Variable(2.0)

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            loss = w * x * x
        return tape.gradient(loss, w)
    assert float(step(tf.constant(3.0))) == 9.0


def test_input_signature_enforced_and_converts():
    @tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])
    def f(x):
        assert isinstance(x, tf.Tensor)
        return tf.reduce_sum(x)
    assert float(f([1.0, 2.0])) == 3.0
    with pytest.raises(TypeError, match="input_signature|failed"):
        f(tf.constant([1, 2]))
    with pytest.raises(TypeError):
        f(tf.constant([[1.0]]))
    with pytest.raises(TypeError):
        f(tf.constant([1.0]), tf.constant([1.0]))


def test_function_on_module_method():
    class Scale(tf.Module):
        def __init__(self):
            super().__init__()
            self.k = tf.Variable(3.0)

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def __call__(self, x):
            return self.k * x
    m = Scale()
    assert float(m(tf.constant(2.0))) == 6.0
    assert m.__call__ is m.__call__  # bound functions are cached per instance


def test_tensor_spec():
    spec = tf.TensorSpec([None, 3], tf.float32, name="x")
    assert spec.shape.as_list() == [None, 3] and spec.dtype == tf.float32 and spec.name == "x"
    assert spec.is_compatible_with(tf.zeros([5, 3]))
    assert not spec.is_compatible_with(tf.zeros([5, 4]))
    assert tf.TensorSpec.from_tensor(tf.zeros([2])) == tf.TensorSpec([2], tf.float32)


def test_input_signature_fills_defaults_on_methods_and_functions():
    # TF 2.21: a defaulted parameter covered by the signature gets its default, converted.
    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None]), tf.TensorSpec([])])
        def f(self, x, y=2.0):
            assert isinstance(y, tf.Tensor) and y.dtype == tf.float32
            return tf.reduce_sum(x) * y
    m = M()
    assert float(m.f(tf.constant([1.0, 2.0]))) == 6.0
    assert float(m.f(tf.constant([1.0]), 3.0)) == 3.0
    assert float(m.f(tf.constant([1.0]), y=4.0)) == 4.0
    assert float(m.f(x=tf.constant([1.0]), y=5.0)) == 5.0
    assert float(m.f(x=tf.constant([1.0]))) == 2.0

    @tf.function(input_signature=[tf.TensorSpec([None]), tf.TensorSpec([], tf.int32)])
    def g(x, n=3):
        assert isinstance(n, tf.Tensor) and n.dtype == tf.int32
        return n
    assert int(g(tf.constant([1.0]))) == 3 and int(g(tf.constant([1.0]), n=5)) == 5


def test_input_signature_binding_errors_match_tf():
    @tf.function(input_signature=[tf.TensorSpec([None]), tf.TensorSpec([])])
    def f(x, y=2.0):
        return y
    x = tf.constant([1.0])
    with pytest.raises(TypeError, match="too many positional arguments"):
        f(x, 3.0, 4.0)
    with pytest.raises(TypeError, match="missing a required argument: 'x'"):
        f()
    with pytest.raises(TypeError, match="unexpected keyword argument 'm'"):
        f(x, m=5)
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        f(x, x=x)

    @tf.function(input_signature=[tf.TensorSpec([]), tf.TensorSpec([])])
    def none_default(x, y=None):
        return y
    with pytest.raises(TypeError):
        none_default(1.0)  # None cannot become a tensor

    with pytest.raises(TypeError, match="missing type constraint for y"):
        tf.function(lambda x, y: x, input_signature=[tf.TensorSpec([None])])
    with pytest.raises(TypeError, match="1 extra type constraints"):
        tf.function(lambda x: x, input_signature=[tf.TensorSpec([None]), tf.TensorSpec([])])


def test_parameters_past_the_signature_keep_their_default():
    @tf.function(input_signature=[tf.TensorSpec([None])])
    def h(x, scale=2.0):
        assert isinstance(scale, float)  # not converted: it has no TensorSpec
        return x * scale
    x = tf.constant([1.0])
    assert h(x).numpy().tolist() == [2.0]
    assert h(x, 2.0).numpy().tolist() == [2.0] and h(x, scale=2.0).numpy().tolist() == [2.0]
    with pytest.raises(TypeError, match="Literal"):
        h(x, 3.0)
    with pytest.raises(TypeError, match="Literal"):
        h(x, scale=3.0)


def test_input_signature_with_varargs_and_varkw():
    @tf.function(input_signature=[tf.TensorSpec([None]), tf.TensorSpec([])])
    def va(*args):
        return args[1]
    assert float(va(tf.constant([1.0]), 2.0)) == 2.0
    with pytest.raises(TypeError, match="args_1"):
        va(tf.constant([1.0]))

    @tf.function(input_signature=[tf.TensorSpec([None]), tf.TensorSpec([])])
    def vk(x, y=1.0, **kw):
        return y
    assert float(vk(tf.constant([1.0]))) == 1.0
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        vk(tf.constant([1.0]), z=2)


def test_printed_symbolic_tensor_leaves_out_an_unknown_shape():
    """As TF prints a traced argument: `Tensor("x:0", dtype=float32)` when nothing is known of its
    shape, else with `shape=(None, 2)`."""
    seen = []

    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32), tf.TensorSpec([None, 2], tf.float32)])
    def f(x, y):
        seen.extend([str(x), str(y)])
        return x

    f(1.0, tf.ones((1, 2)))
    assert seen == ['Tensor("x:0", dtype=float32)', 'Tensor("y:0", shape=(None, 2), dtype=float32)']
