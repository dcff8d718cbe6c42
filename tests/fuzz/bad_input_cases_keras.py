"""The bad-input fuzz's Keras and tf.data cases: layers' constructors and calls, Sequential,
Model.compile/fit/evaluate/predict, optimizers, losses, metrics and Dataset arguments.
`keras_cases()` yields (func, fn, cases, names) groups for bad_input_cases.CASES.

Layers' random weights and training's random initial state differ between the libraries, so
where a call is accepted its fn returns what is deterministic: output shapes and dtypes, the
number of epochs run, a constructed object's hyperparameters, a loss on fixed data.
"""
import numpy as np

from bad_input_harness import A, T

NAN, INF = float("nan"), float("inf")
X = T(np.arange(6, dtype=np.float32).reshape(2, 3))
XI = T(np.arange(6, dtype=np.int32).reshape(2, 3))
SEQ = T(np.ones((2, 5, 3), np.float32))
IMG = T(np.ones((1, 4, 4, 2), np.float32))
XTRAIN = np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3)
YTRAIN = np.linspace(0, 1, 8, dtype=np.float32).reshape(8, 1)


# An error inside a model's loop may name the layer at fault ("... of layer 'dense_3' is
# incompatible ...") or the compile() argument to change instead of the method itself.
LOOP_NAMES = ("of layer", "compile()")


def _shape(y):
    return list(y.shape), y.dtype.name


def layer(name, probe=None):
    """fn constructing `keras.layers.<name>(*args)`, then calling it on `probe` (a tensor made
    by the fn's caller) and returning the output's shape and dtype."""
    def call(lib, *args, **kwargs):
        obj = getattr(lib.keras.layers, name)(*args, **kwargs)
        if probe is None:
            return obj.name.startswith(_snake(name))
        return _shape(obj(lib.constant(probe)))
    return call


def _snake(name):
    return "".join("_" + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(name))


def layer_call(name, *ctor_args, **ctor_kwargs):
    """fn calling a `keras.layers.<name>(*ctor_args)` layer on the case's arguments."""
    def call(lib, *args, **kwargs):
        obj = getattr(lib.keras.layers, name)(*ctor_args, **ctor_kwargs)
        return _shape(obj(*args, **kwargs))
    return call


def layer_call_values(name, *ctor_args, **ctor_kwargs):
    """As layer_call, for deterministic layers: the output's values are compared."""
    def call(lib, *args, **kwargs):
        return getattr(lib.keras.layers, name)(*ctor_args, **ctor_kwargs)(*args, **kwargs)
    return call


def _model(lib, compiled=True):
    model = lib.keras.Sequential([lib.keras.Input((3,)), lib.keras.layers.Dense(1)])
    if compiled:
        model.compile(optimizer="sgd", loss="mse")
    return model


def fit(lib, *args, **kwargs):
    kwargs.setdefault("verbose", 0)
    history = _model(lib).fit(*args, **kwargs)
    return len(history.history.get("loss", []))


def fit_uncompiled(lib, *args, **kwargs):
    _model(lib, compiled=False).fit(*args, verbose=0, **kwargs)


def evaluate(lib, *args, **kwargs):
    kwargs.setdefault("verbose", 0)
    result = _model(lib).evaluate(*args, **kwargs)
    if isinstance(result, dict):
        return sorted(result)
    return type(result).__name__ if not isinstance(result, list) else len(result)


def predict(lib, *args, **kwargs):
    kwargs.setdefault("verbose", 0)
    return list(np.shape(_model(lib).predict(*args, **kwargs)))


def compile_(lib, *args, **kwargs):
    model = _model(lib, compiled=False)
    model.compile(*args, **kwargs)
    model.fit(XTRAIN, YTRAIN, epochs=1, verbose=0)
    return True


def sequential(lib, *args, **kwargs):
    return len(lib.keras.Sequential(*args, **kwargs).layers)


def optimizer(name):
    def call(lib, *args, **kwargs):
        opt = getattr(lib.keras.optimizers, name)(*args, **kwargs)
        return float(np.asarray(opt.learning_rate))
    return call


Y_TRUE = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], np.float32)
Y_PRED = np.array([[0.2, 0.7, 0.1], [0.5, 0.3, 0.2]], np.float32)


def loss_ctor(name):
    """fn constructing `keras.losses.<name>`, then applying it to fixed targets and predictions."""
    def call(lib, *args, **kwargs):
        loss = getattr(lib.keras.losses, name)(*args, **kwargs)
        y_true = Y_TRUE if not name.startswith("Sparse") else np.array([1, 0])
        return loss(lib.constant(y_true), lib.constant(Y_PRED))
    return call


def loss_call(name):
    def call(lib, *args, **kwargs):
        return getattr(lib.keras.losses, name)()(*args, **kwargs)
    return call


def metric_ctor(name):
    """fn constructing `keras.metrics.<name>`, updating it once on fixed data, its result."""
    def call(lib, *args, **kwargs):
        metric = getattr(lib.keras.metrics, name)(*args, **kwargs)
        if name == "Mean":
            metric.update_state(lib.constant([1.0, 2.0]))
        else:
            metric.update_state(lib.constant(Y_TRUE), lib.constant(Y_PRED))
        return metric.result()
    return call


def metric_update(name):
    def call(lib, *args, **kwargs):
        metric = getattr(lib.keras.metrics, name)()
        metric.update_state(*args, **kwargs)
        return metric.result()
    return call


def dataset(build):
    """fn building a Dataset with `build(lib, *args)` and listing its elements."""
    def call(lib, *args, **kwargs):
        return list(build(lib, *args, **kwargs).as_numpy_iterator())
    return call


def _range_ds(lib):
    return lib.data.Dataset.from_tensor_slices(lib.constant([1, 2, 3, 4, 5]))


def shuffled_count(lib, *args, **kwargs):
    return sorted(int(e) for e in _range_ds(lib).shuffle(*args, **kwargs).as_numpy_iterator())


def two_args(x, y):
    return x


def double(x):
    return x * 2


def pair(x):
    return x, x * 2


def no_args():
    return 1


def keras_cases():
    """(func, fn, cases, names) for every Keras and tf.data group."""
    yield "keras.layers.Dense", layer("Dense", np.ones((2, 3), np.float32)), [
        A(0), A(-1), A(1.5), A("a"), A(None), A(3, activation="foo"),
        A(3, kernel_initializer="foo"), A(3, bogus=1), A(3, kernel_regularizer="foo"), A(NAN),
        A(), A([3]), A(3, bias_initializer=5), A(3, kernel_constraint="foo"), A(3, dtype="foo"),
        A(True), A(np.int64(4)), A(3, use_bias="yes")], ("Dense",)
    yield "keras.layers.Dense.__call__", layer_call("Dense", 3), [
        A(None), A("a"), A(T(np.float32(1.0))), A(XI), A([[1.0, "a"]]), A(X, bogus=1), A(),
        A(T(np.ones((2, 0), np.float32))), A({"a": X}), A([[1, 2], [3]])], ("Dense",)
    yield "keras.layers.Conv2D", layer("Conv2D", np.ones((1, 5, 5, 2), np.float32)), [
        A(0, 3), A(-1, 3), A(1.5, 3), A("a", 3), A(None, 3), A(2, 0), A(2, -1), A(2, "a"),
        A(2, (1, 2, 3)), A(2, 3, strides=0), A(2, 3, padding="foo"), A(2, 3, data_format="foo"),
        A(2, 3, dilation_rate=0), A(2, 3, activation="foo"), A(2, 3, groups=0), A(2),
        A(2, 3, bogus=1), A(2, 1.5), A(2, 3, strides=-1), A(2, 3, groups=3),
        A(2, 3, strides=2, dilation_rate=2), A(2, 3, padding="causal")], ("Conv2D", "conv")
    yield "keras.layers.Conv2D.__call__", layer_call("Conv2D", 2, 3), [
        A(T(np.ones((4, 4, 2), np.float32))), A(None), A("a"), A(IMG), A(T(np.ones((1, 4, 4, 2), np.int32))),
        A(IMG, bogus=1), A(T(np.ones((1, 2, 2, 2), np.float32)))], ("Conv2D", "conv")
    yield "keras.layers.Embedding", layer("Embedding", np.array([[1, 2]], np.int32)), [
        A(10, 1.5), A(0, 3), A(-1, 3), A("a", 3), A(10, None), A(None, 3), A(10, 0), A(10, -2),
        A(10, 3, embeddings_initializer="foo"), A(10, 3, input_length=5), A(10), A(10.0, 3),
        A(10, 3, bogus=1), A(NAN, 3), A(10, 3, embeddings_regularizer="foo"), A(10, "3")], \
        ("Embedding",)
    yield "keras.layers.Embedding.__call__", layer_call("Embedding", 10, 3), [
        A(T(np.array([[10]], np.int32))), A(T(np.array([[-1]], np.int32))), A(None), A("a"),
        A(T(np.array([[1.0, 2.0]], np.float32))), A(T(np.array([["a"]], object))), A(),
        A(T(np.array([[1]], np.int32)), bogus=1)], ("Embedding", "GatherV2", "ResourceGather")
    yield "keras.layers.Dropout", layer("Dropout"), [
        A(1.5), A(-0.1), A("a"), A(None), A(NAN), A(0.5, noise_shape="a"), A(0.5, seed="a"),
        A(1.0), A(), A(0.5, bogus=1), A(INF), A([0.5]), A(0.5, seed=1.5)], ("Dropout",)
    yield "keras.layers.Dropout.__call__", layer_call_values("Dropout", 0.5), [
        A(None), A("a"), A(X, training=False), A(X, bogus=1), A(), A(XI, training=False)], ("Dropout",)
    yield "keras.layers.LSTM", layer("LSTM", np.ones((2, 5, 3), np.float32)), [
        A(0), A(-1), A(1.5), A("a"), A(None), A(4, activation="foo"), A(4, dropout=2.0),
        A(4, recurrent_dropout=-1.0), A(4, return_sequences="yes"), A(), A(4, bogus=1),
        A(4, kernel_initializer="foo"), A(4, dropout="a"), A(NAN)], ("LSTM",)
    yield "keras.layers.LSTM.__call__", layer_call("LSTM", 4), [
        A(X), A(None), A("a"), A(SEQ, bogus=1), A(T(np.ones((2, 5, 3, 1), np.float32))),
        A(SEQ, initial_state="a"), A(SEQ, mask="a")], ("LSTM",)
    yield "keras.layers.BatchNormalization", layer("BatchNormalization", np.ones((2, 3), np.float32)), [
        A(axis=5), A(momentum="a"), A(axis="a"), A(axis=1.5), A(beta_initializer="foo"),
        A(bogus=1), A(axis=[1, 1]), A(epsilon="a"), A(axis=None), A(gamma_regularizer="foo"),
        A(axis=-3), A(momentum=None)], ("BatchNormalization", "batch_normalization")
    yield "keras.layers.BatchNormalization.__call__", layer_call("BatchNormalization"), [
        A(None), A("a"), A(T(np.float32(1.0))), A(X, training="yes"), A(X, bogus=1), A()], \
        ("BatchNormalization", "batch_normalization")
    yield "keras.layers.Flatten", layer("Flatten", np.ones((2, 3, 2), np.float32)), [
        A(data_format="foo"), A(bogus=1), A(data_format=5), A("channels_first", 3),
        A(data_format=None)], ("Flatten",)
    yield "keras.layers.Flatten.__call__", layer_call("Flatten"), [
        A(None), A("a"), A(T(np.float32(1.0))), A(X, bogus=1), A(), A([[1, 2], [3]])], ("Flatten",)
    yield "keras.layers.Reshape", layer("Reshape", np.ones((2, 6), np.float32)), [
        A(None), A("a"), A((-1, -1)), A((2.5,)), A((-2, 3)), A(-1), A((5,)), A(), A((2, 3), bogus=1),
        A(((2, 3),)), A((NAN,)), A(("2", 3)), A((0, -1))], ("Reshape",)
    yield "keras.layers.Reshape.__call__", layer_call("Reshape", (3, 2)), [
        A(T(np.ones((2, 5), np.float32))), A(None), A("a"), A(X, bogus=1), A()], ("Reshape",)

    yield "keras.Sequential", sequential, [
        A("a"), A([1, 2]), A([None]), A(layers=5), A(bogus=1), A([lambda x: x]),
        A(["dense"]), A({"a": 1}), A(3)], ("Sequential",)
    yield "Model.compile", compile_, [
        A(optimizer="foo", loss="mse"), A(optimizer="sgd", loss="foo"),
        A(optimizer="sgd", loss="mse", metrics="foo"), A(optimizer="sgd", loss="mse", metrics=5),
        A(optimizer=5, loss="mse"), A(optimizer="sgd", loss=5), A(optimizer="sgd", loss="mse", bogus=1),
        A(optimizer="sgd", loss="mse", loss_weights="a"), A(optimizer="sgd", loss="mse", metrics=["foo"]),
        A(optimizer="sgd", loss="mse", steps_per_execution=0), A(optimizer="sgd", loss=None),
        A(optimizer=None, loss="mse"), A(optimizer="sgd", loss="mse", metrics=["mae"])], \
        ("compile", "optimizer", "loss", "metric")
    yield "Model.fit", fit, [
        A(XTRAIN, 1.5), A(XTRAIN, None), A(XTRAIN, YTRAIN, batch_size=0),
        A(XTRAIN, YTRAIN, batch_size=-1), A(XTRAIN, YTRAIN, batch_size=1.5),
        A(XTRAIN, YTRAIN, batch_size="a"), A(XTRAIN, YTRAIN, epochs=-1), A(XTRAIN, YTRAIN, epochs=1.5),
        A(XTRAIN, YTRAIN, epochs="a"), A(XTRAIN, YTRAIN, validation_split=1.5),
        A(XTRAIN, YTRAIN, validation_split=-0.1), A(XTRAIN, YTRAIN, validation_split="a"),
        A(XTRAIN, YTRAIN[:5]), A("a", YTRAIN), A(XTRAIN, YTRAIN, verbose="loud"),
        A(XTRAIN, YTRAIN, class_weight="a"), A(XTRAIN, YTRAIN, sample_weight=np.ones(3)),
        A(XTRAIN, YTRAIN, callbacks=5), A(XTRAIN, YTRAIN, bogus=1), A(XTRAIN, YTRAIN, epochs=None),
        A(XTRAIN, YTRAIN, batch_size=None, epochs=2), A(XTRAIN, YTRAIN, validation_data="a"),
        A(XTRAIN, YTRAIN, validation_data=(XTRAIN,)), A(None, YTRAIN), A(XTRAIN[:, :2], YTRAIN),
        A(XTRAIN, YTRAIN, epochs=0), A(XTRAIN, YTRAIN, steps_per_epoch="a"),
        A(XTRAIN, YTRAIN, batch_size=NAN), A(XTRAIN, YTRAIN, validation_split=NAN),
        A(XTRAIN, YTRAIN, epochs=2, initial_epoch=5), A(XTRAIN, YTRAIN, shuffle="batch"),
        A(XTRAIN, YTRAIN, batch_size=True)], LOOP_NAMES + ("fit",)
    yield "Model.fit", fit_uncompiled, [A(XTRAIN, YTRAIN)], LOOP_NAMES + ("fit",)
    yield "Model.evaluate", evaluate, [
        A(XTRAIN, 1.5), A(XTRAIN, YTRAIN, batch_size=0), A(XTRAIN, YTRAIN, batch_size=-1),
        A(XTRAIN, YTRAIN, batch_size=1.5), A(XTRAIN, YTRAIN, batch_size="a"), A(XTRAIN, YTRAIN[:5]),
        A("a", YTRAIN), A(XTRAIN, YTRAIN, bogus=1), A(XTRAIN, YTRAIN, steps="a"),
        A(XTRAIN, YTRAIN, return_dict=True), A(None), A(XTRAIN, YTRAIN, verbose="loud"),
        A(XTRAIN, YTRAIN, sample_weight=np.ones(3)), A(XTRAIN[:, :2], YTRAIN),
        A(XTRAIN, YTRAIN, callbacks=5)], LOOP_NAMES + ("evaluate",)
    yield "Model.predict", predict, [
        A(None), A("a"), A(XTRAIN, batch_size=0), A(XTRAIN, batch_size=-1), A(XTRAIN, batch_size=1.5),
        A(XTRAIN, batch_size="a"), A(XTRAIN[:, :2]), A(XTRAIN, bogus=1), A(XTRAIN, steps="a"),
        A(XTRAIN, verbose="loud"), A(XTRAIN, callbacks=5), A(), A([[1.0, "a", 2.0]]),
        A(XTRAIN, batch_size=NAN)], LOOP_NAMES + ("predict",)

    for name in ("SGD", "Adam", "RMSprop"):
        yield f"keras.optimizers.{name}", optimizer(name), [
            A(learning_rate="x"), A(learning_rate=None), A(learning_rate=[1.0]), A(bogus=1),
            A(learning_rate=-0.1), A(learning_rate=NAN), A(weight_decay="a"), A(clipnorm=-1.0),
            A(clipnorm=1.0, global_clipnorm=1.0), A(clipvalue="a"), A(learning_rate=0.0),
            A(learning_rate={"a": 1}), A(ema_momentum=2.0), A(use_ema="x"), A(name=5),
            A(learning_rate=INF)] + {
                "SGD": [A(momentum=-1.0), A(momentum=2.0), A(momentum="a"), A(nesterov="x")],
                "Adam": [A(beta_1="a"), A(epsilon=None), A(amsgrad="x"), A(beta_2=None)],
                "RMSprop": [A(rho="a"), A(momentum=-1.0), A(epsilon="a"), A(centered="x")]}[name], (name,)

    for name in ("MeanSquaredError", "CategoricalCrossentropy", "SparseCategoricalCrossentropy",
                 "BinaryCrossentropy"):
        yield f"keras.losses.{name}", loss_ctor(name), [
            A(reduction="foo"), A(reduction=None), A(bogus=1), A(name=5), A(reduction=5),
            A(dtype="foo")] + ([A(from_logits="yes"), A(label_smoothing="a"), A(axis="a"),
                                A(label_smoothing=2.0)] if name != "MeanSquaredError" else []) \
            + ([A(ignore_class="a")] if name.startswith("Sparse") else []), (name,)
    for name in ("MeanSquaredError", "CategoricalCrossentropy"):
        yield f"keras.losses.{name}.__call__", loss_call(name), [
            A(Y_TRUE, Y_PRED[:, :2]), A("a", "b"), A(None, Y_PRED), A(Y_TRUE), A(Y_TRUE, Y_PRED, bogus=1),
            A(Y_TRUE, Y_PRED, sample_weight="a"), A(Y_TRUE, Y_PRED, sample_weight=np.ones(5)),
            A(Y_TRUE[0], Y_PRED)], (name, "loss")
    yield "keras.losses.SparseCategoricalCrossentropy.__call__", loss_call("SparseCategoricalCrossentropy"), [
        A(np.array([1, 5]), Y_PRED), A(np.array([1, -1]), Y_PRED), A(np.array([1, 0, 1]), Y_PRED),
        A(np.array([0.5, 1.0]), Y_PRED), A("a", Y_PRED)], ("SparseCategoricalCrossentropy", "loss")

    yield "keras.metrics.Mean", metric_ctor("Mean"), [
        A(name=5), A(dtype="foo"), A(bogus=1), A("m", "float32", 3)], ("Mean",)
    yield "keras.metrics.Mean.update_state", metric_update("Mean"), [
        A("a"), A(None), A([1.0, 2.0], sample_weight=[1.0, 2.0, 3.0]), A([1.0], bogus=1), A(),
        A([[1, 2], [3]])], ("Mean", "update_state")
    # (AUC(multi_label=True) is left out: TF accepts it and minitf does not implement it)
    yield "keras.metrics.AUC", metric_ctor("AUC"), [
        A(num_thresholds=1), A(curve="foo"), A(summation_method="foo"), A(num_thresholds="a"),
        A(thresholds=[2.0]), A(bogus=1), A(num_thresholds=1.5), A(num_thresholds=None)], \
        ("AUC",)
    yield "keras.metrics.Precision", metric_ctor("Precision"), [
        A(thresholds=2.0), A(thresholds=-0.5), A(thresholds="a"), A(top_k="a"), A(bogus=1),
        A(class_id="a"), A(thresholds=[0.5, 1.5])], ("Precision",)
    yield "keras.metrics.Accuracy", metric_ctor("Accuracy"), [
        A(dtype="foo"), A(bogus=1), A(name=5)], ("Accuracy",)

    slices = lambda lib, *a, **k: lib.data.Dataset.from_tensor_slices(*a, **k)  # noqa: E731
    yield "tf.data.Dataset.from_tensor_slices", dataset(slices), [
        A(None), A(T(np.float32(1.0))), A(([1, 2], [1, 2, 3])), A([[1, 2], [3]]),
        A({"a": [1], "b": [1, 2]}), A([1, "a"]), A(5), A(), A([1, 2], bogus=1), A("abc"),
        A(np.zeros((0, 2), np.float32)), A({"a": [1, 2], "b": 3}), A(object())], \
        ("from_tensor_slices", "Dataset")
    # (batch(2, num_parallel_calls=-5) aborts TF 2.21's process: left out)
    yield "tf.data.Dataset.batch", dataset(lambda lib, *a, **k: _range_ds(lib).batch(*a, **k)), [
        A(0), A(-1), A("a"), A(1.5), A(None), A(2, drop_remainder="x"), A(2, bogus=1), A(),
        A(NAN), A([2]), A(T(np.array([2, 2], np.int64)))], \
        ("batch", "BatchDataset")
    yield "tf.data.Dataset.shuffle", shuffled_count, [
        A(0), A(-2), A("a"), A(None), A(1.5), A(2, seed="a"), A(), A(2, bogus=1),
        A(2, reshuffle_each_iteration="x"), A([2])], ("shuffle", "ShuffleDataset")
    yield "tf.data.Dataset.map", dataset(lambda lib, *a, **k: _range_ds(lib).map(*a, **k)), [
        A(None), A(5), A("a"), A(two_args), A(double, num_parallel_calls=-5),
        A(double, num_parallel_calls="a"), A(), A(double, bogus=1), A(pair), A(no_args),
        A(double, num_parallel_calls=0), A(double, deterministic="x")], \
        ("map", "MapDataset")
