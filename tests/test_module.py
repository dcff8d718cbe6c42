"""tf.Module: names, attribute tracking of variables and submodules, name scopes."""
import pytest

import minitf as tf


class Dense(tf.Module):
    def __init__(self, n_in, n_out, name=None):
        super().__init__(name=name)
        with self.name_scope:
            self.w = tf.Variable(tf.ones([n_in, n_out]), name="w")
            self.b = tf.Variable(tf.zeros([n_out]), name="b")

    def __call__(self, x):
        return tf.matmul(x, self.w) + self.b


class Net(tf.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Dense(2, 3, name="first"), Dense(3, 1, name="second")]
        self.counter = tf.Variable(0, trainable=False)


def test_default_name_and_variables():
    net = Net()
    assert net.name == "net"
    assert len(net.variables) == 5
    assert len(net.trainable_variables) == 4
    assert len(net.non_trainable_variables) == 1
    assert [m.name for m in net.submodules] == ["first", "second"]


def test_name_scope_prefixes_variable_names():
    d = Dense(2, 2, name="dense_a")
    assert d.w.name == "dense_a/w:0"


def test_gradient_over_module_variables():
    net = Net()
    x = tf.constant([[1.0, 2.0]])
    with tf.GradientTape() as g:
        y = net.layers[1](net.layers[0](x))
    grads = g.gradient(y, net.trainable_variables)
    assert all(gr is not None for gr in grads)
    assert [tuple(gr.shape) for gr in grads] == [tuple(v.shape) for v in net.trainable_variables]


def test_shared_variable_counted_once():
    class Shared(tf.Module):
        def __init__(self):
            super().__init__()
            self.a = tf.Variable(1.0)
            self.b = self.a
    assert len(Shared().variables) == 1


def test_checkpoint_dependencies_by_attribute():
    net = Net()
    names = [n for n, _ in net._checkpoint_dependencies()]
    assert names == ["counter", "layers/0", "layers/1"]


def test_lazily_created_attribute_receives_deferred_restore(tmp_path):
    class Lazy(tf.Module):
        def __call__(self, x):
            if not hasattr(self, "w"):
                self.w = tf.Variable(tf.zeros([2]))
            return x * self.w

    src = Lazy()
    src(tf.ones([2]))
    src.w.assign([3.0, 4.0])
    path = tf.train.Checkpoint(m=src).save(str(tmp_path / "ck"))
    dst = Lazy()
    tf.train.Checkpoint(m=dst).restore(path)
    assert dst(tf.ones([2])).numpy().tolist() == [3.0, 4.0]


def test_keras_layers_and_metrics_take_any_string_name_but_modules_do_not():
    # TF's imbalanced_data tutorial names a metric 'cross entropy'
    assert tf.keras.metrics.BinaryCrossentropy(name="cross entropy").name == "cross entropy"
    assert tf.keras.layers.Dense(2, name="my dense").name == "my dense"
    with pytest.raises(ValueError, match="not a valid module name"):
        tf.Module(name="a b")
