"""Layer base: lazy build, names, tracking order, freezing, weights I/O, losses, errors."""
import subprocess
import sys

import numpy as np
import pytest

import minitf as tf
from minitf import layers
from minitf.keras_core.naming import clear_session
from minitf.snake_case import keras_rule, tf_module_rule


@pytest.fixture(autouse=True)
def _fresh_names():
    clear_session()
    yield
    clear_session()


def x32(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


def test_no_variables_before_first_call_then_named_weights():
    d = layers.Dense(3)
    assert not d.built and d.variables == [] and d.weights == []
    y = d(x32(2, 4))
    assert d.built
    # Keras 3 names a layer weight by its own name; the layer scope is in `path`
    assert [v.name for v in d.variables] == ["kernel", "bias"]
    assert [v.path for v in d.variables] == ["dense/kernel", "dense/bias"]
    assert d.kernel.shape == (4, 3) and y.shape == (2, 3) and y.dtype == tf.float32


def test_unique_automatic_names_and_clear_session():
    names = [layers.Dense(1).name, layers.Dense(1).name, layers.Conv2D(1, 1).name,
             layers.Dense(1, name="head").name, layers.Dense(1).name]
    assert names == ["dense", "dense_1", "conv2d", "head", "dense_2"]
    clear_session()
    assert layers.Dense(1).name == "dense"


class Block(layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.second = layers.Dense(2, name="second")
        self.stack = [layers.Dense(2, name="s0"), layers.Dense(2, name="s1")]
        self.first = layers.Dense(2, name="first")

    def build(self, input_shape):
        self.scale = self.add_weight("scale", shape=(), initializer="ones")

    def call(self, x):
        return self.first(self.stack[1](self.stack[0](self.second(x)))) * self.scale


def test_weight_names_are_keras3_names_and_optimizer_slots_keep_the_layer_scope():
    d = layers.Dense(2, name="dd")
    d(x32(1, 3))
    assert d.kernel.name == "kernel" and d.kernel.path == "dd/kernel"
    assert tf.Variable(1.0, name="x").name == "x:0"  # plain variables keep TF's ':0' names
    opt = tf.keras.optimizers.Adam()
    opt.build(d.trainable_variables)
    assert any(v.name.startswith("dd_kernel") for v in opt.variables)


def test_tracking_order_own_weights_then_sublayers_in_assignment_order():
    b = Block(name="block")
    b(x32(1, 2))
    names = [v.path for v in b.weights]
    assert names[0] == "block/scale" and b.weights[0].name == "scale"
    expected = ["second", "s0", "s1", "first"]
    assert [n.split("/")[1] for n in names[1::2]] == expected
    assert [d for d, _ in b._checkpoint_dependencies()][:5] == \
        ["scale", "second", "stack/0", "stack/1", "first"]
    assert [m.name for m in b.submodules] == expected


def test_trainable_setter_freezes_sublayers():
    b = Block()
    b(x32(1, 2))
    assert len(b.trainable_weights) == 9 and b.non_trainable_weights == []
    b.trainable = False
    assert b.trainable_weights == [] and len(b.non_trainable_weights) == 9
    assert all(not layer.trainable for layer in b.submodules)
    b.stack[0].trainable = True
    assert len(b.trainable_weights) == 0  # the parent is still frozen
    b.trainable = True
    assert len(b.trainable_variables) == 9


def test_get_set_weights_roundtrip_and_mismatch_errors():
    d = layers.Dense(3, name="d")
    d(x32(1, 4))
    w = [np.full((4, 3), 2.0, "float32"), np.arange(3, dtype="float32")]
    d.set_weights(w)
    got = d.get_weights()
    np.testing.assert_array_equal(got[0], w[0])
    np.testing.assert_array_equal(got[1], w[1])
    with pytest.raises(ValueError, match="'d'.*expected 2 weights"):
        d.set_weights(w[:1])
    with pytest.raises(ValueError, match=r"'d'.*\(4, 3\).*\(3, 4\)"):
        d.set_weights([np.zeros((3, 4)), np.zeros(3)])


def test_input_shape_mismatch_names_layer_and_shapes():
    d = layers.Dense(3, name="proj")
    d(x32(2, 4))
    with pytest.raises(ValueError, match=r"Input 0 with name 'None' of layer 'proj' is "
                       r"incompatible with the layer: expected axis -1 of input shape to "
                       r"have value 4, but received input with shape \(2, 5\)"):
        d(x32(2, 5))
    c = layers.Conv2D(2, 3, name="conv")
    c(x32(1, 5, 5, 3))
    with pytest.raises(ValueError, match=r"'conv'.*expected min_ndim=4, found ndim=3"):
        c(x32(5, 5, 3))


def test_wrong_ranks_raise_keras_value_errors_before_building():
    # Keras 3.15's texts; the spec is checked before build, so no IndexError from build
    with pytest.raises(ValueError, match=r"^Input 0 with name 'None' of layer 'dense' is "
                       r"incompatible with the layer: expected min_ndim=2, found ndim=0\. "
                       r"Full shape received: \(\)$"):
        layers.Dense(2)(tf.constant(1.0))
    for layer, shape, text in [
            (layers.Conv1D(2, 1), (2, 2), "expected min_ndim=3, found ndim=2"),
            (layers.Conv2D(2, 1), (2, 2, 2), "expected min_ndim=4, found ndim=3"),
            (layers.Conv2DTranspose(2, 1), (2,), "expected min_ndim=4, found ndim=1"),
            (layers.DepthwiseConv2D(1), (), "expected min_ndim=4, found ndim=0"),
            (layers.SeparableConv2D(2, 1), (2, 2), "expected min_ndim=4, found ndim=2"),
            (layers.MaxPooling2D(1), (2, 2, 2, 2, 2), "expected ndim=4, found ndim=5"),
            (layers.GlobalAveragePooling2D(), (2, 2), "expected ndim=4, found ndim=2"),
            (layers.Flatten(), (), "expected min_ndim=1, found ndim=0")]:
        # Keras 3 builds the weightless pooling layers at construction
        assert layer.built is isinstance(layer, (layers.MaxPooling2D, layers.GlobalAveragePooling2D))
        with pytest.raises(ValueError, match=f"of layer '{layer.name}' is incompatible with "
                                             f"the layer: {text}"):
            layer(np.ones(shape, np.float32))
    # too many axes: Keras' kernel-rank error (input channels, filters)
    with pytest.raises(ValueError, match=r"Kernel shape must have the same length as input, "
                       r"but received kernel of shape \(1, 1, 2, 4\) and input of shape "
                       r"\(2, 2, 2, 2, 2\)\."):
        layers.Conv2D(4, 1, groups=2)(np.ones((2, 2, 2, 2, 2), np.float32))
    with pytest.raises(ValueError, match=r"kernel of shape \(1, 1, 2, 6\)"):
        layers.DepthwiseConv2D(1, depth_multiplier=3)(np.ones((2, 2, 2, 2, 2), np.float32))
    built = layers.Conv2D(2, 1)
    built(np.ones((1, 2, 2, 3), np.float32))
    with pytest.raises(ValueError, match="Kernel shape must have the same length as input"):
        built(np.ones((1, 2, 2, 2, 3), np.float32))


def test_dense_with_zero_size_axes_works_like_keras():
    layer = layers.Dense(2, bias_initializer="ones")
    out = layer(np.ones((3, 0), np.float32))  # zero features: kernel (0, 2), output = bias
    assert layer.kernel.shape == (0, 2)
    np.testing.assert_array_equal(out.numpy(), np.ones((3, 2)))
    assert layers.Dense(2)(np.ones((0, 3), np.float32)).shape == (0, 2)
    assert layers.Dense(2)(np.ones((2, 0, 3), np.float32)).shape == (2, 0, 2)


def test_pitfall_watch_before_build_gives_none_gradient():
    # TF guide: a layer's variables do not exist until it is first called.
    layer = layers.Dense(2, activation="relu")
    x = tf.constant([[1.0, 2.0, 3.0]])
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(layer.variables)  # empty: nothing to watch yet
        y = layer(x)
        loss = tf.reduce_sum(y ** 2)
    grads = tape.gradient(loss, layer.variables)
    assert len(grads) == 2 and all(g is None for g in grads)


def test_pitfall_fixed_by_building_first():
    layer = layers.Dense(2, activation="relu", kernel_initializer="ones")
    x = tf.constant([[1.0, 2.0, 3.0]])
    layer(x)  # build
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(layer.variables)
        y = layer(x)
        loss = tf.reduce_sum(y ** 2)
    gk, gb = tape.gradient(loss, layer.variables)
    # y = relu(x @ 1 + 0) = 6 per unit; dloss/dy = 12
    np.testing.assert_allclose(gk.numpy(), np.outer([1, 2, 3], [12, 12]))
    np.testing.assert_allclose(gb.numpy(), [12, 12])


def test_losses_follow_current_weights_and_add_loss():
    from minitf.regularizers import regularizers
    d = layers.Dense(2, kernel_regularizer=regularizers.L2(0.5))
    d(x32(1, 3))
    d.kernel.assign(np.ones((3, 2), "float32"))
    (loss,) = d.losses
    assert float(loss) == pytest.approx(0.5 * 6.0)
    d.kernel.assign(2 * np.ones((3, 2), "float32"))
    assert float(d.losses[0]) == pytest.approx(0.5 * 24.0)

    class WithLoss(layers.Layer):
        def call(self, x):
            self.add_loss(tf.reduce_sum(x))
            return x
    w = WithLoss()
    w(np.ones((2, 2), "float32"))
    assert [float(v) for v in w.losses] == [4.0]
    w(np.ones((1, 2), "float32"))  # losses are reset on every call
    assert [float(v) for v in w.losses] == [2.0]


def test_dtype_float64_weights_and_input_cast():
    d = layers.Dense(2, dtype="float64")
    y = d(x32(1, 3))
    assert d.kernel.dtype == tf.float64 and y.dtype == tf.float64


def test_training_passed_only_when_call_accepts_it():
    class NoTraining(layers.Layer):
        def call(self, x):
            return x + 1.0

    class Seen(layers.Layer):
        def call(self, x, training=None):
            self.seen = training
            return x
    assert float(NoTraining()(tf.constant(1.0), training=True)) == 2.0
    s = Seen()
    s(tf.constant(1.0), training=True)
    assert s.seen is True


def test_get_config_from_config_and_count_params():
    d = layers.Dense(5, activation="relu", use_bias=False, name="cfg")
    clone = layers.Dense.from_config(d.get_config())
    assert clone.units == 5 and clone.use_bias is False and clone.name == "cfg"
    with pytest.raises(ValueError, match="isn't built"):
        d.count_params()
    d(x32(1, 7))
    assert d.count_params() == 35


def test_unknown_keyword_raises_value_error():
    # Keras 3 (TF 2.21) raises ValueError "Unrecognized keyword arguments passed to Dense"
    with pytest.raises(ValueError, match="Unrecognized keyword arguments passed to Dense"):
        layers.Dense(2, bogus=1)


def test_deferred_restore_applied_at_creation():
    d = layers.Dense(2, name="r")
    d._defer_restore("kernel", np.full((3, 2), 7.0, "float32"))
    d(x32(1, 3))
    np.testing.assert_array_equal(d.kernel.numpy(), np.full((3, 2), 7.0))


def test_compute_output_shape_default_runs_layer():
    class Twice(layers.Layer):
        def call(self, x):
            return tf.concat([x, x], axis=-1)
    assert Twice().compute_output_shape((None, 3)).as_list() == [None, 6]


@pytest.mark.parametrize("class_name, keras_name", [
    ("Conv2D", "conv2d"), ("Conv2DTranspose", "conv2d_transpose"), ("Conv1D", "conv1d"),
    ("DepthwiseConv2D", "depthwise_conv2d"), ("SeparableConv2D", "separable_conv2d"),
    ("GlobalAveragePooling1D", "global_average_pooling1d"), ("ReLU", "re_lu"),
    ("PReLU", "p_re_lu"), ("HTTPServer", "http_server"), ("BatchNormalization",
                                                          "batch_normalization"),
    ("A1B", "a1b"), ("Layer2D3", "layer2d3"), ("my.layer", "mylayer"), ("AUC", "auc")])
def test_to_snake_case_is_keras_rule(class_name, keras_name):
    assert keras_rule(class_name) == keras_name  # keras.src.utils.naming.to_snake_case


def test_tf_module_names_keep_tf_module_rule():
    # tf.Module (not Keras) names Conv2D 'conv2_d' in TF 2.21; Keras layers use 'conv2d'
    assert [tf_module_rule(n) for n in ("Conv2D", "A1B", "MyDenseLayer", "HTTPServer")] == \
        ["conv2_d", "a1_b", "my_dense_layer", "http_server"]

    class Conv2D(tf.Module):
        pass
    assert Conv2D().name == "conv2_d"


def test_default_names_match_keras():
    names = [layers.Conv2D(2, 3).name, layers.Conv2D(2, 3).name, layers.Dense(2).name,
             layers.BatchNormalization().name, layers.Conv2DTranspose(2, 3).name,
             layers.DepthwiseConv2D(3).name, layers.SeparableConv2D(2, 3).name,
             layers.Conv1D(2, 3).name, layers.ReLU().name]
    assert names == ["conv2d", "conv2d_1", "dense", "batch_normalization", "conv2d_transpose",
                     "depthwise_conv2d", "separable_conv2d", "conv1d", "re_lu"]
    inp = tf.keras.Input((3,))
    inp2 = tf.keras.Input((3,))
    assert [inp.node.layer.name, inp2.node.layer.name] == ["input_layer", "input_layer_1"]
    m1 = tf.keras.Model(inp, layers.Dense(1)(inp))
    m2 = tf.keras.Model(inp, layers.Dense(1)(inp))
    assert [m1.name, m2.name] == ["functional", "functional_1"]

    class MyModel2D(tf.keras.Model):
        def call(self, x):
            return x
    assert MyModel2D().name == "my_model2d"
    assert tf.metrics.AUC().name == "auc"


def test_keras_backend_clear_session_restarts_automatic_names():
    layers.Dense(1)
    tf.keras.backend.clear_session()
    assert layers.Dense(1).name == "dense"


def test_builtin_layer_classes_hold_every_public_layer_class_by_name():
    from minitf.layers.base import BUILTIN_LAYER_CLASSES
    public = {name: obj for name, obj in vars(layers).items()
              if isinstance(obj, type) and issubclass(obj, layers.Layer)}
    assert all(BUILTIN_LAYER_CLASSES[name] is obj for name, obj in public.items())
    assert BUILTIN_LAYER_CLASSES["Sequential"] is tf.keras.Sequential
    assert BUILTIN_LAYER_CLASSES["Functional"] is BUILTIN_LAYER_CLASSES["Model"] is tf.keras.Model

    class MyLayer(layers.Layer):  # user classes are not built-ins: configs name them explicitly
        pass
    assert "MyLayer" not in BUILTIN_LAYER_CLASSES


def test_configs_find_every_public_layer_class_in_a_fresh_process():
    # the layers load lazily: a config read before any layer module was imported (load_model
    # of an LSTM in a new process) must still find each class
    script = """
import minitf
from minitf import layers
from minitf.layers.serialization import builtin_layer_class
names = [n for n in dir(layers) if n[:1].isupper()]
found = {n: builtin_layer_class(n) for n in names}
public = {n: getattr(layers, n) for n in names}
missing = sorted(n for n, obj in public.items()
                 if isinstance(obj, type) and issubclass(obj, layers.Layer) and found[n] is not obj)
assert not missing, missing
"""
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)


def test_operators_on_keras_tensors_become_lambda_layers_of_the_graph():
    inp = tf.keras.Input((3,))
    out = (inp * 2.0 + 1.0)[:, :2]
    model = tf.keras.Model(inp, out)
    assert [type(layer).__name__ for layer in model.layers] == \
        ["InputLayer", "Lambda", "Lambda", "Lambda"]
    np.testing.assert_allclose(model(np.ones((1, 3), np.float32)).numpy(), [[3.0, 3.0]])
