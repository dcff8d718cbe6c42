"""tf.saved_model interop with TF 2.21, both ways.

minitf -> TF: TF loads a minitf SavedModel (tf.saved_model.load, and the TF 1 session loader TF
Serving uses), its functions and signatures give minitf's outputs, the signatures' names and
structured outputs are the ones TF's own save of the same program has, and the TFLite converter
accepts a minitf `model.export`. TF -> minitf: minitf loads TF's SavedModels of the guide's module,
Keras MLPs and CNNs (tf.saved_model.save and Keras 3's model.export) and gives TF's outputs.
Outputs of the same weights agree within float32 rounding (different kernels); a minitf program
and its own reload are bit-equal (tests/saved_model).
"""
import os

import numpy as np
import pytest

import minitf
from minitf.saved_model import codec, schema

tf_ref = pytest.importorskip("tensorflow")

RTOL, ATOL = 2e-5, 2e-6


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=RTOL, atol=ATOL)


# -- the protos -----------------------------------------------------------------------------------
def _tf_descriptor(name):
    from google.protobuf import descriptor_pool
    from tensorflow.core.protobuf import (fingerprint_pb2, saved_model_pb2,  # noqa: F401
                                          trackable_object_graph_pb2)
    pool = descriptor_pool.Default()
    full = "tensorflow." + schema.TF_NAMES.get(name, name)
    return pool.FindMessageTypeByName(full)


_KINDS = {1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 6: "fixed64",
          8: "bool", 9: "string", 12: "bytes", 13: "uint32", 14: "enum", 18: "sint64"}


@pytest.mark.parametrize("name", sorted(schema.MESSAGES))
def test_schema_matches_tf_descriptors(name):
    descriptor = _tf_descriptor(name)
    tf_fields = {f.number: f for f in descriptor.fields}
    for number, field in schema.MESSAGES[name].items():
        assert number in tf_fields, f"{name} field {number} ({field.name}) is not TF's"
        tf_field = tf_fields[number]
        assert tf_field.name == field.name
        if field.kind == "map":
            assert tf_field.message_type.GetOptions().map_entry
            continue
        repeated = tf_field.label == 3 if hasattr(tf_field, "label") else tf_field.is_repeated
        assert repeated == field.repeated, (name, field.name)
        assert (tf_field.containing_oneof is not None) == field.oneof, (name, field.name)
        if tf_field.message_type is not None:
            assert field.kind in schema.MESSAGES
            ours = schema.TF_NAMES.get(field.kind, field.kind)
            assert tf_field.message_type.full_name == "tensorflow." + ours or (
                field.kind == "NoneValue"), (name, field.name)
        else:
            assert _KINDS[tf_field.type] == field.kind, (name, field.name)


# -- the guide's module -----------------------------------------------------------------------------
def _module(lib):
    class CustomModule(lib.Module):
        def __init__(self):
            super().__init__()
            self.v = lib.Variable(1.)

        @lib.function
        def __call__(self, x):
            return x * self.v

        @lib.function(input_signature=[lib.TensorSpec([], lib.float32)])
        def mutate(self, new_v):
            self.v.assign(new_v)

    class WithOutputName(lib.Module):
        def __init__(self):
            super().__init__()
            self.v = lib.Variable(1.)

        @lib.function(input_signature=[lib.TensorSpec(None, lib.float32)])
        def __call__(self, x):
            return {'custom_output_name': x * self.v}
    return CustomModule, WithOutputName


def _save_guide(lib, root):
    CustomModule, WithOutputName = _module(lib)
    module = CustomModule()
    module(lib.constant(0.))
    lib.saved_model.save(module, os.path.join(root, "plain"))
    call = module.__call__.get_concrete_function(lib.TensorSpec(None, lib.float32))
    vector = module.__call__.get_concrete_function(lib.TensorSpec([None], lib.float32))
    lib.saved_model.save(module, os.path.join(root, "sigs"),
                         signatures={"serving_default": call, "array_input": vector})
    named = WithOutputName()
    lib.saved_model.save(named, os.path.join(root, "named"),
                         signatures={"serving_default": named.__call__.get_concrete_function()})


def _signature_view(loaded):
    out = {}
    for key, fn in loaded.signatures.items():
        outputs = {k: (v.dtype.name, str(v.shape), v.name) for k, v in fn.structured_outputs.items()}
        inputs = {k: v.dtype.name for k, v in fn.structured_input_signature[1].items()}
        out[key] = (outputs, inputs)
    return out


def test_tf_loads_minitf_guide_module(tmp_path):
    _save_guide(minitf, os.fspath(tmp_path / "mini"))
    _save_guide(tf_ref, os.fspath(tmp_path / "tf"))
    plain = tf_ref.saved_model.load(os.fspath(tmp_path / "mini" / "plain"))
    assert plain(tf_ref.constant(3.)).numpy() == 3.0
    plain.mutate(tf_ref.constant(2.))
    assert plain(tf_ref.constant(3.)).numpy() == 6.0
    assert len(plain.signatures) == 0
    for name in ("sigs", "named"):
        mini = tf_ref.saved_model.load(os.fspath(tmp_path / "mini" / name))
        ref = tf_ref.saved_model.load(os.fspath(tmp_path / "tf" / name))
        assert sorted(mini.signatures) == sorted(ref.signatures)
        assert _signature_view(mini) == _signature_view(ref)
        for key in ref.signatures:
            x = tf_ref.constant([1.5, -2.0])
            got, want = mini.signatures[key](x), ref.signatures[key](x)
            for k in want:
                _close(got[k], want[k])


def test_tf_session_loader_runs_minitf_signature(tmp_path):
    """TF Serving's path: import the MetaGraph, restore with the SaverDef, run the signature."""
    _save_guide(minitf, os.fspath(tmp_path))
    with tf_ref.compat.v1.Session(graph=tf_ref.Graph()) as sess:
        meta = tf_ref.compat.v1.saved_model.loader.load(sess, ["serve"], os.fspath(tmp_path / "named"))
        sig = meta.signature_def["serving_default"]
        out = sess.run(sig.outputs["custom_output_name"].name,
                       {sig.inputs["x"].name: [1., 2., 3.]})
    np.testing.assert_array_equal(out, [1., 2., 3.])


def test_minitf_loads_tf_guide_module(tmp_path):
    _save_guide(tf_ref, os.fspath(tmp_path))
    imported = minitf.saved_model.load(os.fspath(tmp_path / "plain"))
    assert imported(minitf.constant(3.)).numpy() == 3.0
    imported.mutate(minitf.constant(2.))
    assert imported(minitf.constant(3.)).numpy() == 6.0
    optimizer = minitf.keras.optimizers.SGD(0.05)
    for _ in range(10):
        with minitf.GradientTape() as tape:
            loss = (10. - imported(minitf.constant(2.))) ** 2
        variables = tape.watched_variables()
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
    np.testing.assert_allclose(imported.v.numpy(), 5 - 3 * 0.6 ** 10, rtol=1e-6)
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        imported(minitf.constant([1.0]))
    for name in ("sigs", "named"):
        mini = minitf.saved_model.load(os.fspath(tmp_path / name))
        ref = tf_ref.saved_model.load(os.fspath(tmp_path / name))
        assert _signature_view(mini) == _signature_view(ref)


# -- Keras models ---------------------------------------------------------------------------------
def _mlp(lib):
    L = lib.keras.layers
    return lib.keras.Sequential([L.Input((4,)), L.Dense(8, activation="relu"),
                                 L.Dense(3, activation="softmax")])


def _cnn(lib, flatten):
    L = lib.keras.layers
    inp = L.Input((8, 8, 3))
    x = L.Conv2D(4, 3, activation="relu", padding="same")(inp)
    x = L.BatchNormalization()(x)
    x = L.MaxPooling2D()(x)
    x = L.AveragePooling2D(2)(x)
    x = L.DepthwiseConv2D(2, padding="same")(x)
    x = L.Flatten()(x) if flatten else L.GlobalAveragePooling2D()(x)
    y = L.Dense(5, activation="elu")(x)
    z = L.Concatenate()([y, L.Dense(2, activation="tanh")(x)])
    if flatten:
        z = L.GlobalAveragePooling1D()(L.Reshape((7, 1))(z))
        z = L.Dense(4)(z)
    z = L.Dense(3, activation="gelu")(z)
    return lib.keras.Model(inp, L.Softmax()(L.LeakyReLU()(z)))


def _randomize(model, seed):
    rng = np.random.RandomState(seed)
    for v in model.variables:
        shape = tuple(v.shape)
        value = rng.uniform(0.5, 1.5, shape) if "variance" in v.path else rng.randn(*shape) * 0.5
        v.assign(value.astype("float32"))


_DATA = {"mlp": np.random.RandomState(5).randn(6, 4).astype("float32"),
         "cnn": np.random.RandomState(6).rand(3, 8, 8, 3).astype("float32")}


@pytest.mark.parametrize("kind", ["mlp", "cnn"])
def test_tf_loads_minitf_keras_models(tmp_path, kind):
    model = _mlp(minitf) if kind == "mlp" else _cnn(minitf, flatten=False)
    _randomize(model, 1)
    x = _DATA[kind]
    expected = model(x).numpy()
    minitf.saved_model.save(model, os.fspath(tmp_path / "saved"))
    model.export(os.fspath(tmp_path / "export"), verbose=False)
    saved = tf_ref.saved_model.load(os.fspath(tmp_path / "saved"))
    _close(saved.signatures["serving_default"](inputs=tf_ref.constant(x))["output_0"], expected)
    exported = tf_ref.saved_model.load(os.fspath(tmp_path / "export"))
    assert sorted(exported.signatures) == ["serve", "serving_default"]
    _close(exported.serve(x), expected)
    assert len(exported.variables) == len(model.variables)
    # the TFLite converter accepts the export and computes the same
    converted = tf_ref.lite.TFLiteConverter.from_saved_model(os.fspath(tmp_path / "export")).convert()
    interpreter = tf_ref.lite.Interpreter(model_content=converted)
    runner = interpreter.get_signature_runner("serving_default")
    _close(runner(**{list(runner.get_input_details())[0]: x})["output_0"], expected)


@pytest.mark.parametrize("kind", ["mlp", "cnn"])
def test_minitf_loads_tf_keras_models(tmp_path, kind):
    tf_ref.keras.utils.set_random_seed(0)
    model = _mlp(tf_ref) if kind == "mlp" else _cnn(tf_ref, flatten=True)
    _randomize(model, 2)
    x = _DATA[kind]
    expected = model(x).numpy()
    tf_ref.saved_model.save(model, os.fspath(tmp_path / "saved"))
    model.export(os.fspath(tmp_path / "export"), verbose=False)
    saved = minitf.saved_model.load(os.fspath(tmp_path / "saved"))
    serve = saved.signatures["serving_default"]
    assert list(serve.structured_outputs) == ["output_0"]
    _close(serve(inputs=minitf.constant(x))["output_0"].numpy(), expected)
    _close(serve(minitf.constant(x[:1]))["output_0"].numpy(), expected[:1])
    exported = minitf.saved_model.load(os.fspath(tmp_path / "export"))
    assert sorted(exported.signatures) == ["serve", "serving_default"]
    _close(exported.serve(x).numpy(), expected)
    assert len(exported.trainable_variables) == len(model.trainable_variables)
    # the loaded function is differentiable: gradients match TF's
    xt = minitf.constant(x)
    with minitf.GradientTape() as tape:
        tape.watch(xt)
        total = minitf.reduce_sum(exported.serve(xt)[:, 0])
    xr = tf_ref.constant(x)
    with tf_ref.GradientTape() as ref_tape:
        ref_tape.watch(xr)
        ref_total = tf_ref.reduce_sum(model(xr)[:, 0])
    np.testing.assert_allclose(tape.gradient(total, xt).numpy(),
                               ref_tape.gradient(ref_total, xr).numpy(), rtol=1e-4, atol=1e-6)


def test_keras_signature_names_match_tf(tmp_path):
    mini, ref = _mlp(minitf), _mlp(tf_ref)
    minitf.saved_model.save(mini, os.fspath(tmp_path / "mini"))
    tf_ref.saved_model.save(ref, os.fspath(tmp_path / "tf"))
    views = [_signature_view(tf_ref.saved_model.load(os.fspath(tmp_path / d)))
             for d in ("mini", "tf")]
    assert views[0] == views[1]


# -- control flow and variables, both ways ------------------------------------------------------------
def _control(lib):
    class Control(lib.Module):
        def __init__(self):
            super().__init__()
            self.v = lib.Variable(2.0)

        @lib.function(input_signature=[lib.TensorSpec([]), lib.TensorSpec([], lib.int32)])
        def f(self, x, n):
            if x > 0:
                y = x * self.v
            else:
                y = x - 1.0
            s = 0.0
            i = 0
            while i < n:
                s += y * self.v
                i += 1
            m = lib.while_loop(lambda j: j < 100, lambda j: j * 2, [1], maximum_iterations=n)[0]
            self.v.assign_add(1.0)
            return y, s, m
    return Control()


@pytest.mark.parametrize("writer,reader", [(minitf, tf_ref), (tf_ref, minitf)])
def test_control_flow_and_state_both_ways(tmp_path, writer, reader):
    module = _control(writer)
    writer.saved_model.save(module, os.fspath(tmp_path))
    loaded = reader.saved_model.load(os.fspath(tmp_path))
    reference = _control(tf_ref)
    for x, n in [(1.5, 0), (1.5, 3), (-2.0, 5), (0.5, 9)]:
        got = loaded.f(reader.constant(x), reader.constant(n))
        want = reference.f(tf_ref.constant(x), tf_ref.constant(n))
        for g, w in zip(got, want):
            _close(g.numpy(), w.numpy())
    assert float(loaded.v.numpy()) == float(reference.v.numpy()) == 6.0


def test_saved_model_pb_is_a_tf_proto(tmp_path):
    """TF's own protobuf parses minitf's file, and minitf's codec reads TF's."""
    from tensorflow.core.protobuf import saved_model_pb2
    _save_guide(minitf, os.fspath(tmp_path / "mini"))
    _save_guide(tf_ref, os.fspath(tmp_path / "tf"))
    proto = saved_model_pb2.SavedModel()
    proto.ParseFromString(open(tmp_path / "mini" / "sigs" / "saved_model.pb", "rb").read())
    meta = proto.meta_graphs[0]
    assert list(meta.meta_info_def.tags) == ["serve"]
    assert sorted(meta.signature_def) == ["__saved_model_init_op", "array_input", "serving_default"]
    assert meta.saver_def.restore_op_name and meta.object_graph_def.nodes
    decoded = codec.decode("SavedModel", open(tmp_path / "tf" / "sigs" / "saved_model.pb",
                                              "rb").read())
    assert sorted(decoded.meta_graphs[0].signature_def) == sorted(
        saved_model_pb2.SavedModel.FromString(open(tmp_path / "tf" / "sigs" / "saved_model.pb",
                                                   "rb").read()).meta_graphs[0].signature_def)


def _custom(lib):
    @lib.custom_gradient
    def clip_gradients(y):
        def backward(dy):
            return lib.clip_by_norm(dy, 0.5)
        return y, backward

    class MyModule(lib.Module):
        @lib.function(input_signature=[lib.TensorSpec(None)])
        def call_custom_grad(self, x):
            return clip_gradients(x)
    return MyModule()


@pytest.mark.parametrize("writer,reader", [(minitf, tf_ref), (tf_ref, minitf)])
def test_custom_gradient_both_ways(tmp_path, writer, reader):
    writer.saved_model.save(_custom(writer), os.fspath(tmp_path),
                            options=writer.saved_model.SaveOptions(experimental_custom_gradients=True))
    loaded = reader.saved_model.load(os.fspath(tmp_path))
    v = reader.Variable(2.0)
    with reader.GradientTape() as tape:
        output = loaded.call_custom_grad(v * v)
    assert float(output.numpy()) == 4.0
    assert float(tape.gradient(output, v).numpy()) == 2.0


def _audio_module(lib, clip):
    """The simple-audio tutorial's export: a file name or a batch of waveforms in, spectrogram
    features (resized) out; no weights, so both libraries compute the same thing."""
    class Audio(lib.Module):
        @lib.function(input_signature=[lib.TensorSpec([], lib.string)])
        def from_file(self, name):
            audio, rate = lib.audio.decode_wav(lib.io.read_file(name), desired_channels=1, desired_samples=800)
            return self.features(lib.squeeze(audio, axis=-1)[lib.newaxis, :]), rate

        @lib.function(input_signature=[lib.TensorSpec([None, 800], lib.float32)])
        def features(self, waves):
            spectrogram = lib.abs(lib.signal.stft(waves, frame_length=63, frame_step=32))[..., lib.newaxis]
            framed = lib.signal.frame(waves, 50, 30, pad_end=True, pad_value=0.5)
            return (lib.image.resize(spectrogram, [8, 8]), lib.image.resize(spectrogram, [5, 3], "nearest"),
                    lib.reduce_sum(framed, axis=-1))

        @lib.function(input_signature=[lib.TensorSpec([None], lib.int32)])
        def names(self, ids):
            return lib.gather(np.array(["down", "go", "yes"]), ids)
    return Audio()


@pytest.mark.parametrize("writer,reader", [(minitf, tf_ref), (tf_ref, minitf)])
def test_audio_export_both_ways(tmp_path, writer, reader):
    clip = tmp_path / "clip.wav"
    clip.write_bytes(tf_ref.audio.encode_wav(
        (0.4 * np.sin(np.arange(700) * 0.07)).astype("float32")[:, None], 16000).numpy())
    writer.saved_model.save(_audio_module(writer, clip), os.fspath(tmp_path / "model"))
    loaded = reader.saved_model.load(os.fspath(tmp_path / "model"))
    reference = _audio_module(tf_ref, clip)
    (got, got_rate), (want, want_rate) = loaded.from_file(str(clip)), reference.from_file(tf_ref.constant(str(clip)))
    assert int(got_rate) == int(want_rate) == 16000
    for g, w in zip(got, want):
        assert tuple(g.shape) == tuple(w.shape)
        _close(g.numpy(), w.numpy())
    waves = np.random.default_rng(0).uniform(-1, 1, (2, 800)).astype("float32")
    for g, w in zip(loaded.features(waves), reference.features(tf_ref.constant(waves))):
        _close(g.numpy(), w.numpy())
    assert loaded.names(np.array([2, 0], "int32")).numpy().tolist() == [b"yes", b"down"]
