"""tf.saved_model round trips under minitf alone: the guide/saved_model module and its rules."""
import os

import numpy as np
import pytest

import minitf as tf


class CustomModule(tf.Module):
    """guide/saved_model's module: a variable, a traced __call__ and a mutate with a signature."""

    def __init__(self):
        super().__init__()
        self.v = tf.Variable(1.)
        self.traces = []

    @tf.function
    def __call__(self, x):
        self.traces.append(x.shape)
        return x * self.v

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def mutate(self, new_v):
        self.v.assign(new_v)


def _saved(tmp_path, obj, name="m", **kwargs):
    path = os.fspath(tmp_path / name)
    tf.saved_model.save(obj, path, **kwargs)
    return path


def test_directory_layout(tmp_path):
    module = CustomModule()
    module(tf.constant(0.))
    path = _saved(tmp_path, module)
    assert sorted(os.listdir(path)) == ["assets", "fingerprint.pb", "saved_model.pb", "variables"]
    assert sorted(os.listdir(os.path.join(path, "variables"))) == [
        "variables.data-00000-of-00001", "variables.index"]
    assert tf.saved_model.contains_saved_model(path)
    assert not tf.saved_model.contains_saved_model(os.fspath(tmp_path))


def test_guide_module_round_trip(tmp_path):
    module = CustomModule()
    module(tf.constant(0.))
    assert len(module.traces) == 1
    imported = tf.saved_model.load(_saved(tmp_path, module))
    assert imported(tf.constant(3.)).numpy() == 3
    assert len(module.traces) == 1                     # a loaded function runs no Python
    imported.mutate(tf.constant(2.))
    assert imported(tf.constant(3.)).numpy() == 6
    assert imported.v.numpy() == 2 and module.v.numpy() == 1   # the load has its own variables
    assert imported.v.trainable and imported.v.name == "Variable:0"
    assert len(imported.signatures) == 0
    assert imported.tensorflow_version == "2.21.0"


def test_restored_function_is_differentiable_and_trains(tmp_path):
    module = CustomModule()
    module(tf.constant(0.))
    imported = tf.saved_model.load(_saved(tmp_path, module))
    optimizer = tf.keras.optimizers.SGD(0.05)
    losses = []
    for _ in range(10):
        with tf.GradientTape() as tape:
            loss = (10. - imported(tf.constant(2.))) ** 2
        variables = tape.watched_variables()
        assert len(variables) == 1 and variables[0] is imported.v
        grads = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(grads, variables))
        losses.append(float(loss))
    # v_{k+1} = 0.6 v_k + 2 (SGD 0.05 on (10 - 2v)^2): 1 -> 5 - 4 * 0.6^10
    assert losses[0] == 64.0 and losses[-1] < 0.01
    np.testing.assert_allclose(imported.v.numpy(), 5 - 4 * 0.6 ** 10, rtol=1e-6)


def test_restored_function_inside_tf_function(tmp_path):
    module = CustomModule()
    module(tf.constant(0.))
    imported = tf.saved_model.load(_saved(tmp_path, module))

    @tf.function
    def twice(x):
        imported.mutate(x + 1.)
        return imported(x) * 2.
    assert twice(tf.constant(2.)).numpy() == 12.0
    assert twice(tf.constant(1.)).numpy() == 4.0
    assert imported.v.numpy() == 2.0


def test_restored_function_dispatch_follows_traced_signatures(tmp_path):
    module = CustomModule()
    module(tf.constant(0.))
    module(tf.constant([1., 2.]))
    imported = tf.saved_model.load(_saved(tmp_path, module))
    np.testing.assert_array_equal(imported(tf.constant([3., 4.])).numpy(), [3., 4.])
    assert imported(3.).numpy() == 3.     # a Python float is converted to the traced dtype
    with pytest.raises(ValueError, match="Could not find matching concrete function to call "
                                         "loaded from the SavedModel"):
        imported(tf.constant([[1.]]))
    with pytest.raises(ValueError, match="following 2 option"):
        imported(tf.constant(1, tf.int32))
    assert len(imported.__call__.concrete_functions) == 2


def test_untraced_function_without_signature_has_no_traces(tmp_path):
    class M(tf.Module):
        @tf.function
        def f(self, x):
            return x
    imported = tf.saved_model.load(_saved(tmp_path, M()))
    with pytest.raises(ValueError, match="Found zero restored functions"):
        imported.f(tf.constant(1.))


def test_signatures_one_and_many(tmp_path):
    module = CustomModule()
    call = module.__call__.get_concrete_function(tf.TensorSpec(None, tf.float32))
    one = tf.saved_model.load(_saved(tmp_path, module, "one", signatures=call))
    assert list(one.signatures.keys()) == ["serving_default"]
    result = one.signatures["serving_default"](x=tf.constant([1., 2.]))
    np.testing.assert_array_equal(result["output_0"].numpy(), [1., 2.])
    np.testing.assert_array_equal(one.signatures["serving_default"](tf.constant(2.))["output_0"], 2.)
    vector = module.__call__.get_concrete_function(tf.TensorSpec([None], tf.float32))
    many = tf.saved_model.load(_saved(tmp_path, module, "many", signatures={
        "serving_default": call, "array_input": vector}))
    assert sorted(many.signatures.keys()) == ["array_input", "serving_default"]


def test_signature_output_names_and_structured_outputs(tmp_path):
    class CustomModuleWithOutputName(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(1.)

        @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
        def __call__(self, x):
            return {'custom_output_name': x * self.v}
    module = CustomModuleWithOutputName()
    call = module.__call__.get_concrete_function()
    imported = tf.saved_model.load(_saved(tmp_path, module, signatures={"serving_default": call}))
    sig = imported.signatures["serving_default"]
    assert sig.structured_outputs == {"custom_output_name": tf.TensorSpec(
        None, tf.float32, name="custom_output_name")}
    assert repr(sig.structured_outputs) == ("{'custom_output_name': TensorSpec(shape=<unknown>, "
                                            "dtype=tf.float32, name='custom_output_name')}")
    assert sig.structured_input_signature == ((), {"x": tf.TensorSpec(None, tf.float32, "x")})


def test_default_signature_is_the_only_servable_function(tmp_path):
    class Export(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable([[2.], [3.]])

        @tf.function(input_signature=[tf.TensorSpec([None, 2])])
        def __call__(self, x):
            return tf.matmul(x, self.w)
    imported = tf.saved_model.load(_saved(tmp_path, Export()))
    assert list(imported.signatures) == ["serving_default"]
    out = imported.signatures["serving_default"](tf.constant([[1., 1.]]))["output_0"]
    np.testing.assert_array_equal(out.numpy(), [[5.]])


def test_signature_errors(tmp_path):
    module = CustomModule()
    with pytest.raises(ValueError, match="Expected a TensorFlow function for which to generate"):
        tf.saved_model.save(module, os.fspath(tmp_path / "a"), signatures=module.__call__)
    with pytest.raises(ValueError, match="Expected an object of type `Trackable`"):
        tf.saved_model.save(object(), os.fspath(tmp_path / "b"))

    class NoneOut(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([])])
        def f(self, x):
            return {"a": x, "b": None}
    with pytest.raises(ValueError, match="Got a non-Tensor value None for key 'b'"):
        tf.saved_model.save(NoneOut(), os.fspath(tmp_path / "c"), signatures=NoneOut().f)


def test_untracked_variable_is_refused(tmp_path):
    hidden = tf.Variable(3.)

    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([])])
        def f(self, x):
            return x * hidden
    with pytest.raises(AssertionError, match="'untracked' resource"):
        tf.saved_model.save(M(), os.fspath(tmp_path / "m"))
    assert not os.path.exists(tmp_path / "m" / "saved_model.pb")


def test_children_lists_dicts_and_nested_modules(tmp_path):
    class Dense(tf.Module):
        def __init__(self, n_in, n_out):
            super().__init__()
            self.w = tf.Variable(tf.ones([n_in, n_out]))
            self.b = tf.Variable(tf.zeros([n_out]), trainable=False)

        def __call__(self, x):
            return tf.matmul(x, self.w) + self.b

    class Seq(tf.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Dense(3, 3), Dense(3, 2)]
            self.table = {"scale": tf.Variable(2.)}

        @tf.function
        def __call__(self, x):
            for layer in self.layers:
                x = layer(x)
            return x * self.table["scale"]
    model = Seq()
    x = tf.constant([[2.0, 2.0, 2.0]])
    expected = model(x).numpy()
    loaded = tf.saved_model.load(_saved(tmp_path, model))
    np.testing.assert_array_equal(loaded(x).numpy(), expected)
    assert isinstance(loaded.layers, list) and len(loaded.layers) == 2
    assert loaded.layers[1].w.shape == (3, 2) and not loaded.layers[0].b.trainable
    assert loaded.table["scale"].numpy() == 2.0
    # the restored tree can be checkpointed again
    ckpt = tf.train.Checkpoint(model=loaded)
    prefix = ckpt.write(os.fspath(tmp_path / "ckpt"))
    assert any("layers/1/w" in name for name, _ in tf.train.list_variables(prefix))


def test_save_inside_tf_function_is_refused(tmp_path):
    module = CustomModule()

    @tf.function
    def f():
        tf.saved_model.save(module, os.fspath(tmp_path / "x"))
        return 1
    with pytest.raises(AssertionError, match="not supported inside a traced @tf.function"):
        f()


def test_load_missing_and_tags(tmp_path):
    with pytest.raises(OSError, match="SavedModel file does not exist at"):
        tf.saved_model.load(os.fspath(tmp_path))
    module = CustomModule()
    module(tf.constant(0.))
    path = _saved(tmp_path, module)
    assert tf.saved_model.load(path, tags=["serve"]).v.numpy() == 1.0
    with pytest.raises(RuntimeError, match="could not be found in SavedModel"):
        tf.saved_model.load(path, tags=["train"])


def test_options_and_constants(tmp_path):
    module = CustomModule()
    module(tf.constant(0.))
    path = _saved(tmp_path, module, options=tf.saved_model.SaveOptions(
        experimental_custom_gradients=True))
    loaded = tf.saved_model.load(path, options=tf.saved_model.LoadOptions(
        experimental_skip_checkpoint=True))
    assert loaded.v.numpy() == 0.0            # the checkpoint was skipped: zeros
    assert tf.saved_model.SERVING == "serve"
    assert tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY == "serving_default"
    assert tf.saved_model.PREDICT_METHOD_NAME == "tensorflow/serving/predict"


def test_asset_is_copied_and_restored(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\n")

    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.vocab = tf.saved_model.Asset(os.fspath(vocab))
    path = _saved(tmp_path, M())
    assert (tmp_path / "m" / "assets" / "vocab.txt").read_text() == "a\nb\n"
    loaded = tf.saved_model.load(path)
    assert loaded.vocab.asset_path.numpy().decode() == os.path.join(path, "assets", "vocab.txt")


def test_guide_basics_int_multiply(tmp_path):
    class MyModule(tf.Module):
        def __init__(self, value):
            self.weight = tf.Variable(value)

        @tf.function
        def multiply(self, x):
            return x * self.weight
    mod = MyModule(3)
    mod.multiply(tf.constant([1, 2, 3]))
    reloaded = tf.saved_model.load(_saved(tmp_path, mod))
    out = reloaded.multiply(tf.constant([1, 2, 3]))
    assert out.dtype == tf.int32
    np.testing.assert_array_equal(out.numpy(), [3, 6, 9])


def test_custom_gradient_survives_the_round_trip(tmp_path):
    """guide/advanced_autodiff: a loaded function keeps its tf.custom_gradient rule."""
    @tf.custom_gradient
    def clip_gradients(y):
        def backward(dy):
            return tf.clip_by_norm(dy, 0.5)
        return y, backward

    @tf.custom_gradient
    def square_with_fixed_grad(x):
        return x * x, lambda dy: dy * 10.0

    class MyModule(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec(None)])
        def call_custom_grad(self, x):
            return clip_gradients(x)

        @tf.function(input_signature=[tf.TensorSpec([])])
        def square(self, x):
            return square_with_fixed_grad(x) + x

    path = _saved(tmp_path, MyModule(), options=tf.saved_model.SaveOptions(
        experimental_custom_gradients=True))
    loaded = tf.saved_model.load(path)
    v = tf.Variable(2.0)
    with tf.GradientTape() as t:
        output = loaded.call_custom_grad(v * v)
    assert t.gradient(output, v).numpy() == 2.0      # 4 clipped to norm 0.5, times dv^2/dv = 4
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = loaded.square(x)
    assert y.numpy() == 12.0 and t.gradient(y, x).numpy() == 11.0   # the rule, not 2x
