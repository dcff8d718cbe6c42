"""tf.train.Checkpoint files both ways with TF 2.21: what minitf saves, TensorFlow restores, and
what TensorFlow saves, minitf restores, every value bit for bit.

Covered: the checkpoint guide's `Net` with `step`, `optimizer`, `net` (and its dataset iterator,
whose state is the one thing that does not cross: see test_guide_iterator_state_stays_behind),
a Keras Sequential, a functional and a subclassed model, each with Adam slots, the DCGAN
tutorial's checkpoint (generator, discriminator, two Adams), other optimizers' slot layouts,
restoring before the model or the optimizer is built (deferred restoration), the key lists and
dtypes of both sides, CheckpointManager state files, the readers, and a multi-block index.

Both libraries run in this process; each test builds the same architecture in both with
`_make(lib, kind)` (`lib` is `tensorflow` or `minitf`). After a restore, one more training step
runs in both libraries from the same state; the two libraries' kernels round differently in the
last bits, so that step is compared within float32 rounding, not bit for bit.
"""
import os

import numpy as np
import pytest

import minitf

tf = pytest.importorskip("tensorflow")

KINDS = ["guide", "sequential", "functional", "subclassed", "dcgan", "sgd_momentum",
         "rmsprop_centered", "amsgrad_schedule", "compiled"]


def _make(lib, kind):
    """({checkpoint name: object}, step function, models) for `kind` built with `lib`."""
    keras = lib.keras
    L = keras.layers
    rng = np.random.default_rng(0)
    x = rng.normal(size=(6, 4)).astype("float32")
    y = rng.normal(size=(6, 3)).astype("float32")
    opt = keras.optimizers.Adam(0.01)
    if kind == "guide":
        class Net(keras.Model):
            """The guide's model: one Dense(5) named l1."""

            def __init__(self):
                super().__init__()
                self.l1 = L.Dense(5)

            def call(self, inputs):
                return self.l1(inputs)
        model, x, y = Net(), np.arange(10.0, dtype="float32")[:2, None], np.ones((2, 5), "float32")
        opt = keras.optimizers.Adam(0.1)
        objects = {"step": lib.Variable(1), "optimizer": opt, "net": model}
    elif kind == "dcgan":
        return _make_dcgan(lib)
    else:
        if kind == "functional":
            inp = keras.Input((4,))
            h = L.Dense(8, activation="tanh")(inp)
            model = keras.Model(inp, L.Dense(3)(L.Concatenate()([h, inp])))
        elif kind == "subclassed":
            class Sub(keras.Model):
                """Dense, BatchNormalization, Dense."""

                def __init__(self):
                    super().__init__()
                    self.d1 = L.Dense(8, activation="relu")
                    self.bn = L.BatchNormalization()
                    self.d2 = L.Dense(3)

                def call(self, inputs, training=False):
                    return self.d2(self.bn(self.d1(inputs), training=training))
            model = Sub()
        else:
            model = keras.Sequential([keras.Input((4,)), L.Dense(8, activation="relu"),
                                      L.Dense(6), L.Dense(3)])
        if kind == "sgd_momentum":
            opt = keras.optimizers.SGD(0.05, momentum=0.9, nesterov=True)
        elif kind == "rmsprop_centered":
            opt = keras.optimizers.RMSprop(0.01, momentum=0.5, centered=True)
        elif kind == "amsgrad_schedule":
            opt = keras.optimizers.Adam(keras.optimizers.schedules.ExponentialDecay(0.05, 3, 0.5),
                                        amsgrad=True)
        objects = {"model": model, "optimizer": opt}
        if kind == "compiled":  # the optimizer is the model's: TF saves it under model/optimizer
            model.compile(optimizer=opt, loss="mse")
            objects = {"model": model}
            return objects, lambda: model.train_on_batch(x, y), [model]

    def step():
        # A smooth loss: mean absolute error's gradients are sums of +-1/n that cancel exactly, and
        # Adam turns the rounding left of an exact zero into an update of up to 1e-3 of its rate,
        # so the two libraries' states drifted apart by chance (1 run in ~20).
        with lib.GradientTape() as tape:
            loss = lib.reduce_mean(lib.square(model(x, training=True) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
    return objects, step, [model]


def _make_dcgan(lib):
    """The DCGAN tutorial's checkpoint, narrower (the layers and their order are the tutorial's)."""
    keras = lib.keras
    L = keras.layers
    generator = keras.Sequential([
        keras.Input((8,)), L.Dense(7 * 7 * 8, use_bias=False), L.BatchNormalization(), L.LeakyReLU(),
        L.Reshape((7, 7, 8)),
        L.Conv2DTranspose(4, (5, 5), strides=(1, 1), padding="same", use_bias=False),
        L.BatchNormalization(), L.LeakyReLU(),
        L.Conv2DTranspose(2, (5, 5), strides=(2, 2), padding="same", use_bias=False),
        L.BatchNormalization(), L.LeakyReLU(),
        L.Conv2DTranspose(1, (5, 5), strides=(2, 2), padding="same", use_bias=False,
                          activation="tanh")])
    discriminator = keras.Sequential([
        keras.Input((28, 28, 1)), L.Conv2D(4, (5, 5), strides=(2, 2), padding="same"), L.LeakyReLU(),
        L.Dropout(0.3), L.Conv2D(8, (5, 5), strides=(2, 2), padding="same"), L.LeakyReLU(),
        L.Dropout(0.3), L.Flatten(), L.Dense(1)])
    g_opt, d_opt = keras.optimizers.Adam(1e-4), keras.optimizers.Adam(1e-4)
    rng = np.random.default_rng(1)
    noise = rng.normal(size=(4, 8)).astype("float32")
    images = rng.uniform(-1, 1, size=(4, 28, 28, 1)).astype("float32")
    bce = keras.losses.BinaryCrossentropy(from_logits=True)

    def step():  # the tutorial's two-tape step, without dropout so both libraries agree
        with lib.GradientTape() as g_tape, lib.GradientTape() as d_tape:
            fake = generator(noise, training=True)
            real_out = discriminator(images, training=False)
            fake_out = discriminator(fake, training=False)
            g_loss = bce(lib.ones_like(fake_out), fake_out)
            d_loss = bce(lib.ones_like(real_out), real_out) + bce(lib.zeros_like(fake_out), fake_out)
        g_grads = g_tape.gradient(g_loss, generator.trainable_variables)
        d_grads = d_tape.gradient(d_loss, discriminator.trainable_variables)
        g_opt.apply_gradients(zip(g_grads, generator.trainable_variables))
        d_opt.apply_gradients(zip(d_grads, discriminator.trainable_variables))
    objects = {"generator_optimizer": g_opt, "discriminator_optimizer": d_opt,
               "generator": generator, "discriminator": discriminator}
    return objects, step, [generator, discriminator]


_WRITES = iter(range(10 ** 6))


def _state(lib, objects, directory):
    """{checkpoint key: numpy value} of everything a checkpoint of `objects` holds, written by
    `lib` itself (the keys are the same in both libraries: test_checkpoint_keys_and_dtypes...)."""
    path = lib.train.Checkpoint(**objects).write(os.path.join(str(directory), f"state-{next(_WRITES)}"))
    reader = lib.train.load_checkpoint(path)
    return {k: np.asarray(reader.get_tensor(k)) for k in reader.get_variable_to_shape_map()
            if k != "_CHECKPOINTABLE_OBJECT_GRAPH"}


def _assert_bitwise(a, b):
    assert sorted(a) == sorted(b) and len(a) > 2
    for key in a:
        u, v = a[key], b[key]
        assert u.dtype == v.dtype and u.shape == v.shape, (key, u.dtype, v.dtype, u.shape, v.shape)
        assert u.tobytes() == v.tobytes(), f"{key} differs"


def _assert_close(a, b):
    assert sorted(a) == sorted(b)
    for key in a:
        np.testing.assert_allclose(a[key], b[key], rtol=2e-5, atol=2e-6, err_msg=key)


def _build(objects, models, kind):
    """Create every variable without changing a value: call the models, build the optimizers
    on the variables they train."""
    if kind == "dcgan":
        models[0](np.zeros((1, 8), "float32"))
        models[1](np.zeros((1, 28, 28, 1), "float32"))
        objects["generator_optimizer"].build(models[0].trainable_variables)
        objects["discriminator_optimizer"].build(models[1].trainable_variables)
        return
    models[0](np.zeros((1, 1 if kind == "guide" else 4), "float32"))
    optimizer = objects["optimizer"] if "optimizer" in objects else models[0].optimizer
    optimizer.build(models[0].trainable_variables)


def _train(lib, kind, steps, directory):
    objects, step, models = _make(lib, kind)
    for _ in range(steps):
        step()
    manager = lib.train.CheckpointManager(lib.train.Checkpoint(**objects), directory, max_to_keep=2)
    return objects, step, models, manager.save()


@pytest.mark.parametrize("kind", KINDS)
def test_tensorflow_restores_what_minitf_saved(kind, tmp_path):
    src_objects, src_step, src_models, path = _train(minitf, kind, 3, str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-1.data-00000-of-00001", "ckpt-1.index"]
    objects, step, models = _make(tf, kind)
    _build(objects, models, kind)  # TF 2.21 cannot restore a Dense built after restore()
    status = tf.train.Checkpoint(**objects).restore(tf.train.latest_checkpoint(str(tmp_path)))
    status.assert_consumed()
    _assert_bitwise(_state(tf, objects, tmp_path), _state(minitf, src_objects, tmp_path))
    step()
    src_step()
    _assert_close(_state(tf, objects, tmp_path), _state(minitf, src_objects, tmp_path))


@pytest.mark.parametrize("kind", KINDS)
def test_minitf_restores_what_tensorflow_saved_before_anything_is_built(kind, tmp_path):
    src_objects, src_step, src_models, path = _train(tf, kind, 3, str(tmp_path))
    objects, step, models = _make(minitf, kind)
    ckpt = minitf.train.Checkpoint(**objects)
    manager = minitf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    assert manager.latest_checkpoint == path and manager.checkpoints == [path]
    status = ckpt.restore(manager.latest_checkpoint)  # nothing is built yet: all deferred
    _build(objects, models, kind)
    status.assert_consumed()
    _assert_bitwise(_state(minitf, objects, tmp_path), _state(tf, src_objects, tmp_path))
    assert int(ckpt.save_counter) == 1
    step()
    src_step()
    _assert_close(_state(minitf, objects, tmp_path), _state(tf, src_objects, tmp_path))
    assert manager.save().endswith("ckpt-2")  # numbering goes on from TF's


@pytest.mark.parametrize("kind", KINDS)
def test_checkpoint_keys_and_dtypes_are_tensorflows(kind, tmp_path):
    listed = {}
    for lib in (tf, minitf):
        _, _, _, path = _train(lib, kind, 1, str(tmp_path / lib.__name__))
        reader = lib.train.load_checkpoint(path)
        listed[lib.__name__] = (sorted(lib.train.list_variables(path)),
                                {k: v.name for k, v in reader.get_variable_to_dtype_map().items()})
    assert listed["minitf"] == listed["tensorflow"]


def test_object_graph_proto_decodes_with_protobuf(tmp_path):
    from tensorflow.core.protobuf import trackable_object_graph_pb2
    objects, _, _, path = _train(minitf, "subclassed", 1, str(tmp_path))
    raw = tf.train.load_checkpoint(path).get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH")
    assert raw == minitf.train.load_checkpoint(path).get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH")
    proto = trackable_object_graph_pb2.TrackableObjectGraph()
    proto.ParseFromString(raw)
    assert proto.SerializeToString() == raw  # byte for byte what protobuf writes
    names = [c.local_name for c in proto.nodes[0].children]
    assert names == ["model", "optimizer", "save_counter"]


def test_readers_agree_on_both_formats(tmp_path):
    for lib in (tf, minitf):
        _, _, _, path = _train(lib, "sequential", 2, str(tmp_path / lib.__name__))
        theirs, ours = tf.train.load_checkpoint(path), minitf.train.load_checkpoint(path)
        assert ours.get_variable_to_shape_map() == theirs.get_variable_to_shape_map()
        for key in theirs.get_variable_to_shape_map():
            assert ours.has_tensor(key)
            a, b = ours.get_tensor(key), theirs.get_tensor(key)
            assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), key
    with pytest.raises(minitf.errors.NotFoundError):
        minitf.train.load_checkpoint(str(tmp_path / "minitf")).get_tensor("nope")


def test_guide_iterator_state_stays_behind(tmp_path):
    """The dataset iterator's position is TF's serialized iterator (a variant tensor) on one
    side and minitf's position variables on the other: neither reads the other's, everything
    else of the guide's checkpoint restores both ways."""
    for src, dst in ((tf, minitf), (minitf, tf)):
        objects, step, models = _make(src, "guide")
        dataset = src.data.Dataset.range(10).batch(2)
        iterator = iter(dataset)
        next(iterator)
        step()
        path = src.train.Checkpoint(iterator=iterator, **objects).save(str(tmp_path / src.__name__ / "c"))
        mine, _, dst_models = _make(dst, "guide")
        _build(mine, dst_models, "guide")
        fresh = iter(dst.data.Dataset.range(10).batch(2))
        status = dst.train.Checkpoint(iterator=fresh, **mine).restore(path)
        status.expect_partial()
        _assert_bitwise(_state(dst, mine, tmp_path), _state(src, objects, tmp_path))
        assert list(np.asarray(next(fresh))) == [0, 1]  # the iterator starts over
    with pytest.raises(minitf.errors.UnimplementedError, match="variant"):
        minitf.train.load_variable(str(tmp_path / "tensorflow" / "c-1"), "iterator/.ATTRIBUTES/ITERATOR_STATE")


def test_state_file_and_managers_interleave(tmp_path):
    directory = str(tmp_path)
    objects, _, _ = _make(tf, "sequential")
    tf_manager = tf.train.CheckpointManager(tf.train.Checkpoint(**objects), directory, max_to_keep=2)
    tf_manager.save()
    mine, _, _ = _make(minitf, "sequential")
    manager = minitf.train.CheckpointManager(minitf.train.Checkpoint(**mine), directory, max_to_keep=2)
    assert manager.restore_or_initialize() == os.path.join(directory, "ckpt-1")
    manager.save()
    manager.save()  # ckpt-1 (TF's) falls out of the window and is deleted
    assert sorted(os.listdir(directory)) == ["checkpoint", "ckpt-2.data-00000-of-00001", "ckpt-2.index",
                                             "ckpt-3.data-00000-of-00001", "ckpt-3.index"]
    state = tf.train.get_checkpoint_state(directory)
    assert state.model_checkpoint_path == os.path.join(directory, "ckpt-3")
    assert list(state.all_model_checkpoint_paths) == [os.path.join(directory, "ckpt-2"),
                                                      os.path.join(directory, "ckpt-3")]
    assert len(state.all_model_checkpoint_timestamps) == 2 and state.last_preserved_timestamp > 0
    again = tf.train.CheckpointManager(tf.train.Checkpoint(**objects), directory, max_to_keep=2)
    assert again.checkpoints == [os.path.join(directory, "ckpt-2"), os.path.join(directory, "ckpt-3")]
    ours = minitf.train.get_checkpoint_state(directory)
    assert ours.all_model_checkpoint_timestamps == list(state.all_model_checkpoint_timestamps)


def test_index_of_many_blocks_both_ways(tmp_path):
    """2500 variables with long names make an index of several 256 KiB blocks."""
    names = [f"{i:05d}" + "y" * 200 for i in range(2500)]
    for src, dst in ((minitf, tf), (tf, minitf)):
        module = src.Module()
        module.vs = {n: src.Variable(np.full((2,), i, "float32")) for i, n in enumerate(names)}
        path = src.train.Checkpoint(m=module).write(str(tmp_path / src.__name__ / "c"))
        assert os.path.getsize(path + ".index") > 2 * 262144
        target = dst.Module()
        target.vs = {n: dst.Variable(np.zeros(2, "float32")) for n in names}
        dst.train.Checkpoint(m=target).read(path).assert_consumed()
        for i in (0, 1234, 2499):
            np.testing.assert_array_equal(target.vs[names[i]].numpy(), [i, i])


def test_tensorflow_defers_a_dense_kernel_badly_itself(tmp_path):
    """Why TF's side builds its models before restoring: TF 2.21 restoring its own checkpoint
    into a Keras 3 Dense built afterwards leaves the kernel unrestored (a second kernel
    variable appears); minitf restores the same files into unbuilt models (test above)."""
    objects, _, models, path = _train(tf, "guide", 1, str(tmp_path))
    fresh, _, fresh_models = _make(tf, "guide")
    status = tf.train.Checkpoint(**fresh).restore(path)
    fresh_models[0](np.zeros((1, 1), "float32"))
    with pytest.raises(AssertionError, match="_kernel"):
        status.assert_existing_objects_matched()


def _more(lib):
    """Layers with sublayers or renamed attributes, a tf.Module with a list, a random Generator."""
    L = lib.keras.layers
    inp = lib.keras.Input((5, 4))
    x = L.Bidirectional(L.LSTM(3, return_sequences=True))(inp)
    x = L.GRU(2, return_sequences=True)(x)
    x = L.MultiHeadAttention(2, 3)(x, x)
    x = L.DepthwiseConv2D(1)(L.SeparableConv2D(2, 2)(L.Reshape((5, 2, 1))(x)))
    model = lib.keras.Model(inp, L.Dense(1)(L.Flatten()(L.BatchNormalization()(x))))
    text = lib.keras.Sequential([lib.keras.Input((3,), dtype="int32"), L.Embedding(10, 4),
                                 L.LayerNormalization(), L.Conv1D(2, 2)])
    module = lib.Module()
    module.w = lib.Variable(np.arange(3.0))
    module.items = [lib.Variable(2.0)]
    generator = lib.random.Generator.from_seed(3)
    generator.normal([2])
    return {"model": model, "text": text, "module": module, "gen": generator}


def test_more_layers_modules_and_generators_both_ways(tmp_path):
    written = {}
    for lib in (tf, minitf):
        written[lib.__name__] = lib.train.Checkpoint(**_more(lib)).write(str(tmp_path / lib.__name__ / "c"))
    assert minitf.train.list_variables(written["minitf"]) == tf.train.list_variables(written["tensorflow"])
    for src, dst in ((tf, minitf), (minitf, tf)):
        objects = _more(dst)
        dst.train.Checkpoint(**objects).read(written[src.__name__]).assert_consumed()
        source = src.train.load_checkpoint(written[src.__name__])
        mine = _state(dst, objects, tmp_path)
        assert len(mine) == len(source.get_variable_to_shape_map()) - 1
        for key, value in mine.items():
            assert value.tobytes() == np.asarray(source.get_tensor(key)).tobytes(), key


def test_state_file_text_with_odd_names_both_ways(tmp_path):
    # TF globs for a checkpoint's files, so a '\\' in a name defeats TF's own latest_checkpoint:
    # that name goes from TF to minitf only
    cases = [('run "1" été', (tf, minitf)), ('run "1" été', (minitf, tf)), ("back\\slash", (tf, minitf))]
    for i, (name, (src, dst)) in enumerate(cases):
        directory = str(tmp_path / str(i))
        manager = src.train.CheckpointManager(src.train.Checkpoint(v=src.Variable(1.0)), directory,
                                              max_to_keep=2, checkpoint_name=name)
        saved = [manager.save() for _ in range(3)]
        again = dst.train.CheckpointManager(dst.train.Checkpoint(v=dst.Variable(0.0)), directory,
                                            max_to_keep=2, checkpoint_name=name)
        assert again.checkpoints == saved[1:] and again.latest_checkpoint == saved[2]
        assert dst.train.latest_checkpoint(directory) == saved[2]
        again.save(checkpoint_number=4)
        state = src.train.get_checkpoint_state(directory)
        assert state.model_checkpoint_path == saved[2][:-1] + "4"
        assert list(state.all_model_checkpoint_paths) == [saved[2], saved[2][:-1] + "4"]
