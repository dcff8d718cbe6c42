"""Keras losses: function forms and Loss objects against numpy formulas, reductions, weights, gradients."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close
from minitf import losses
from minitf.losses import functions as loss_functions, loss as loss_classes

EPS = 1e-7
rng = np.random.default_rng(0)
Y_TRUE = rng.uniform(0.0, 1.0, (4, 3))
Y_PRED = rng.uniform(0.05, 0.95, (4, 3))
LABELS = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1], [0, 1, 0]], dtype=np.float64)
LOGITS = rng.normal(0.0, 2.0, (4, 3))
PROBS = np.exp(LOGITS) / np.exp(LOGITS).sum(-1, keepdims=True)


def _np(t):
    return np.asarray(t, dtype=np.float64)


def _log_softmax(x):
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


def _bce(t, p):
    p = np.clip(p, EPS, 1 - EPS)
    return -(t * np.log(p) + (1 - t) * np.log(1 - p))


def _signed(t):
    return 2 * t - 1 if np.isin(t, [0, 1]).all() else t


def _huber(t, p, d=1.0):
    e = np.abs(p - t)
    return np.where(e <= d, 0.5 * e ** 2, d * e - 0.5 * d * d).mean(-1)


def _l2n(x):
    return x / np.sqrt(np.maximum((x ** 2).sum(-1, keepdims=True), 1e-12))


REFERENCE = {
    "mean_squared_error": lambda t, p: ((p - t) ** 2).mean(-1),
    "mean_absolute_error": lambda t, p: np.abs(p - t).mean(-1),
    "mean_absolute_percentage_error": lambda t, p: 100 * np.abs((t - p) / np.maximum(np.abs(t), EPS)).mean(-1),
    "mean_squared_logarithmic_error": lambda t, p: ((np.log(np.maximum(p, EPS) + 1)
                                                     - np.log(np.maximum(t, EPS) + 1)) ** 2).mean(-1),
    "huber": _huber,
    "log_cosh": lambda t, p: np.log(np.cosh(p - t)).mean(-1),
    "kl_divergence": lambda t, p: (np.clip(t, EPS, 1) * np.log(np.clip(t, EPS, 1) / np.clip(p, EPS, 1))).sum(-1),
    "poisson": lambda t, p: (p - t * np.log(p + EPS)).mean(-1),
    "cosine_similarity": lambda t, p: -(_l2n(t) * _l2n(p)).sum(-1),
    "hinge": lambda t, p: np.maximum(1 - _signed(t) * p, 0).mean(-1),
    "squared_hinge": lambda t, p: (np.maximum(1 - _signed(t) * p, 0) ** 2).mean(-1),
    "categorical_hinge": lambda t, p: np.maximum(((1 - t) * p).max(-1) - (t * p).sum(-1) + 1, 0),
    "binary_crossentropy": lambda t, p: _bce(t, p).mean(-1),
    "categorical_crossentropy": lambda t, p: -(t * np.log(np.clip(p / p.sum(-1, keepdims=True), EPS, 1 - EPS))).sum(-1),
}
CLASSES = {
    "mean_squared_error": losses.MeanSquaredError, "mean_absolute_error": losses.MeanAbsoluteError,
    "mean_absolute_percentage_error": losses.MeanAbsolutePercentageError,
    "mean_squared_logarithmic_error": losses.MeanSquaredLogarithmicError, "huber": losses.Huber,
    "log_cosh": losses.LogCosh, "kl_divergence": losses.KLDivergence, "poisson": losses.Poisson,
    "cosine_similarity": losses.CosineSimilarity, "hinge": losses.Hinge,
    "squared_hinge": losses.SquaredHinge, "categorical_hinge": losses.CategoricalHinge,
    "binary_crossentropy": losses.BinaryCrossentropy,
    "categorical_crossentropy": losses.CategoricalCrossentropy,
}


def _inputs(name):
    if name in ("categorical_crossentropy", "categorical_hinge"):
        return LABELS, PROBS
    if name in ("hinge", "squared_hinge"):
        return LABELS, LOGITS
    return Y_TRUE, Y_PRED


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_function_forms_match_numpy(name):
    t, p = _inputs(name)
    got = getattr(loss_functions, name)(tf.constant(t), tf.constant(p))
    assert got.shape == (4,)
    np.testing.assert_allclose(_np(got), REFERENCE[name](t, p), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(REFERENCE))
@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "none", None, "mean",
                                       "mean_with_sample_weight"])
def test_loss_objects_and_reductions(name, reduction):
    t, p = _inputs(name)
    per_example = REFERENCE[name](t, p)
    want = {"sum": per_example.sum(), "none": per_example, None: per_example}.get(
        reduction, per_example.mean())
    got = CLASSES[name](reduction=reduction, dtype="float64")(tf.constant(t), tf.constant(p))
    np.testing.assert_allclose(_np(got), want, rtol=1e-10, atol=1e-12)


def test_float32_inputs_and_default_names():
    got = losses.MeanSquaredError()(Y_TRUE.astype(np.float32), Y_PRED.astype(np.float32))
    assert got.dtype == tf.float32 and got.shape == ()
    np.testing.assert_allclose(float(got), ((Y_PRED - Y_TRUE) ** 2).mean(), rtol=1e-6)
    assert losses.MeanSquaredError().name == "mean_squared_error"
    assert losses.Huber().name == "huber_loss"
    assert losses.SparseCategoricalCrossentropy().name == "sparse_categorical_crossentropy"


def test_sample_weight_broadcasting():
    t, p = tf.constant(Y_TRUE), tf.constant(Y_PRED)
    per_example = ((Y_PRED - Y_TRUE) ** 2).mean(-1)
    w = np.array([1.0, 0.0, 2.0, 0.5])
    mse = losses.MeanSquaredError(dtype="float64")
    np.testing.assert_allclose(float(mse(t, p, sample_weight=w)), (per_example * w).sum() / 4)
    np.testing.assert_allclose(float(mse(t, p, sample_weight=w[:, None])), (per_example * w).sum() / 4)
    np.testing.assert_allclose(float(mse(t, p, sample_weight=3.0)), 3 * per_example.mean())
    np.testing.assert_allclose(_np(losses.MeanSquaredError(reduction="none", dtype="float64")(t, p, sample_weight=w)),
                               per_example * w)
    np.testing.assert_allclose(float(losses.MeanSquaredError(reduction="sum", dtype="float64")(t, p, sample_weight=w)),
                               (per_example * w).sum())
    # per-timestep weights on a sequence loss of shape (batch, time)
    t3, p3 = rng.normal(size=(2, 5, 3)), rng.normal(size=(2, 5, 3))
    w2 = rng.uniform(size=(2, 5))
    want = ((((p3 - t3) ** 2).mean(-1)) * w2).sum() / 10
    np.testing.assert_allclose(float(mse(tf.constant(t3), tf.constant(p3), sample_weight=w2)), want)


def test_binary_crossentropy_options():
    t, p = tf.constant(LABELS), tf.constant(Y_PRED)
    smooth = LABELS * 0.8 + 0.1
    # the Loss object returns float32 (Keras' default dtype): compare within float32's precision
    np.testing.assert_allclose(float(losses.BinaryCrossentropy(label_smoothing=0.2)(t, p)),
                               _bce(smooth, Y_PRED).mean(-1).mean(), rtol=2e-7)
    sig = 1 / (1 + np.exp(-LOGITS))
    exact = -(LABELS * np.log(sig) + (1 - LABELS) * np.log(1 - sig))
    np.testing.assert_allclose(_np(losses.binary_crossentropy(t, tf.constant(LOGITS), from_logits=True)),
                               exact.mean(-1), rtol=1e-10)
    huge = tf.constant(np.array([[500.0, -500.0]]))
    np.testing.assert_allclose(_np(losses.binary_crossentropy(tf.constant([[0.0, 1.0]]), huge, from_logits=True)),
                               [500.0])
    # clipped probabilities: log(1e-7) instead of -inf
    np.testing.assert_allclose(_np(losses.binary_crossentropy([[1.0]], [[0.0]])), [-np.log(EPS)], rtol=1e-6)


def test_categorical_crossentropy_options():
    t = tf.constant(LABELS)
    want = -(LABELS * _log_softmax(LOGITS)).sum(-1)
    np.testing.assert_allclose(_np(losses.categorical_crossentropy(t, tf.constant(LOGITS), from_logits=True)),
                               want, rtol=1e-10)
    smooth = LABELS * 0.7 + 0.3 / 3
    np.testing.assert_allclose(
        float(losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.3, dtype="float64")(t, tf.constant(LOGITS))),
        (-(smooth * _log_softmax(LOGITS)).sum(-1)).mean(), rtol=1e-10)
    # unnormalized probabilities are normalized first
    np.testing.assert_allclose(_np(losses.categorical_crossentropy(t, tf.constant(PROBS * 3.0))),
                               -(LABELS * np.log(PROBS)).sum(-1), rtol=1e-9)
    np.testing.assert_allclose(
        _np(losses.categorical_crossentropy(tf.constant(LABELS.T), tf.constant(PROBS.T), axis=0)),
        -(LABELS * np.log(PROBS)).sum(-1), rtol=1e-9)
    with pytest.raises(ValueError):
        losses.categorical_crossentropy(t, tf.constant(PROBS[:, :2]))


def test_sparse_categorical_crossentropy():
    labels = np.array([1, 0, 2, 1])
    want = -_log_softmax(LOGITS)[np.arange(4), labels]
    got = losses.sparse_categorical_crossentropy(tf.constant(labels), tf.constant(LOGITS), from_logits=True)
    np.testing.assert_allclose(_np(got), want, rtol=1e-10)
    got = losses.SparseCategoricalCrossentropy(dtype="float64")(tf.constant(labels[:, None]), tf.constant(PROBS))
    np.testing.assert_allclose(float(got), -np.log(PROBS[np.arange(4), labels]).mean(), rtol=1e-9)
    # integer labels given as floats work too
    got = losses.sparse_categorical_crossentropy(labels.astype(np.float32), PROBS.astype(np.float32))
    np.testing.assert_allclose(_np(got), -np.log(PROBS[np.arange(4), labels]), rtol=1e-5)
    from minitf.errors import errors
    with pytest.raises(errors.InvalidArgumentError, match="outside the valid range"):
        losses.sparse_categorical_crossentropy(tf.constant([3, 0, 0, 0]), tf.constant(LOGITS))


def test_sparse_ignore_class():
    labels = np.array([1, -1, 2, -1])
    keep = labels != -1
    per = np.where(keep, -_log_softmax(LOGITS)[np.arange(4), np.where(keep, labels, 0)], 0.0)
    loss = losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1, dtype="float64")
    np.testing.assert_allclose(float(loss(tf.constant(labels), tf.constant(LOGITS))),
                               per.sum() / keep.sum(), rtol=1e-9)
    # every label ignored: 0, not NaN (Keras divides with divide_no_nan)
    assert float(loss(tf.constant([-1, -1, -1, -1]), tf.constant(LOGITS))) == 0.0
    none = losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1, reduction="none",
                                                dtype="float64")
    np.testing.assert_allclose(_np(none(tf.constant(labels), tf.constant(LOGITS))), per, rtol=1e-10)


def test_huber_delta_and_cosine_axis():
    got = losses.Huber(delta=0.3)(tf.constant(Y_TRUE), tf.constant(Y_PRED))
    np.testing.assert_allclose(float(got), _huber(Y_TRUE, Y_PRED, 0.3).mean())
    got = losses.cosine_similarity(tf.constant(Y_TRUE), tf.constant(Y_PRED), axis=0)
    n = lambda x: x / np.linalg.norm(x, axis=0, keepdims=True)  # noqa: E731
    np.testing.assert_allclose(_np(got), -(n(Y_TRUE) * n(Y_PRED)).sum(0))


GRAD_CASES = {
    "mse": (lambda p: losses.MeanSquaredError(dtype="float64")(Y_TRUE, p), Y_PRED),
    "mae": (lambda p: losses.MeanAbsoluteError(dtype="float64")(Y_TRUE, p), Y_PRED),
    "huber": (lambda p: losses.Huber(delta=0.2, dtype="float64")(Y_TRUE, p), Y_PRED),
    "log_cosh": (lambda p: losses.LogCosh(dtype="float64")(Y_TRUE, p), Y_PRED),
    "bce": (lambda p: losses.BinaryCrossentropy(dtype="float64")(LABELS, p), Y_PRED),
    "bce_logits": (lambda p: losses.BinaryCrossentropy(from_logits=True, dtype="float64")(LABELS, p), LOGITS),
    "cce": (lambda p: losses.CategoricalCrossentropy(dtype="float64")(LABELS, p), PROBS),
    "cce_logits": (lambda p: losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1,
                                                            dtype="float64")(LABELS, p),
                   LOGITS),
    "scce_logits": (lambda p: losses.SparseCategoricalCrossentropy(from_logits=True, dtype="float64")(np.array([1, 0, 2, 1]), p),
                    LOGITS),
    "scce": (lambda p: losses.SparseCategoricalCrossentropy(dtype="float64")(np.array([1, 0, 2, 1]), p), PROBS),
    "kld": (lambda p: losses.KLDivergence(dtype="float64")(PROBS, p), Y_PRED),
    "poisson": (lambda p: losses.Poisson(dtype="float64")(Y_TRUE, p), Y_PRED),
    "cosine": (lambda p: losses.CosineSimilarity(dtype="float64")(Y_TRUE, p), Y_PRED),
    "hinge": (lambda p: losses.SquaredHinge(dtype="float64")(LABELS, p), LOGITS * 0.3),
    "msle": (lambda p: losses.MeanSquaredLogarithmicError(dtype="float64")(Y_TRUE, p), Y_PRED),
}
SMOOTH = {"mse", "log_cosh", "bce", "bce_logits", "cce", "cce_logits", "scce_logits", "scce", "kld",
          "poisson", "cosine", "msle"}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_gradients(case):
    fn, x = GRAD_CASES[case]
    assert_gradients_close(fn, [x], order=2 if case in SMOOTH else 1)


def test_bce_gradient_for_weighted_0d_and_sums():
    w = np.array([0.5, 2.0, 1.0, 0.0])
    assert_gradients_close(lambda p: losses.BinaryCrossentropy(reduction="sum", dtype="float64")(LABELS, p, sample_weight=w),
                           [Y_PRED], order=2)
    # rank-1 inputs give a 0-d per-example loss
    assert_gradients_close(lambda p: loss_functions.mean_squared_error(np.array([1.5, 0.2]), p), [np.array([0.4, 0.1])], order=2)


def test_reduction_validation_and_get():
    with pytest.raises(ValueError, match="reduction"):
        losses.MeanSquaredError(reduction="mean_of_sums")
    assert losses.Reduction.SUM_OVER_BATCH_SIZE == "sum_over_batch_size"
    assert set(losses.Reduction.all()) == {"auto", "none", "sum", "sum_over_batch_size"}
    assert losses.get("mse") is loss_functions.mean_squared_error
    assert losses.get("categorical_crossentropy") is losses.categorical_crossentropy
    assert isinstance(losses.get("BinaryCrossentropy"), losses.BinaryCrossentropy)
    fn = lambda t, p: p  # noqa: E731
    assert losses.get(fn) is fn
    with pytest.raises(ValueError):
        losses.get("not_a_loss")
    cfg = losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1).get_config()
    assert cfg == {"reduction": "sum_over_batch_size", "name": "categorical_crossentropy",
                   "from_logits": True, "label_smoothing": 0.1, "axis": -1}
    again = losses.get(losses.serialize(losses.CategoricalCrossentropy.from_config(cfg)))
    np.testing.assert_allclose(float(again(LABELS, LOGITS)),
                               (-(LABELS * 0.9 + 0.1 / 3) * _log_softmax(LOGITS)).sum(-1).mean(), rtol=1e-6)
    assert losses.serialize(losses.mae) == {"module": "builtins", "class_name": "function",
                                            "config": "mean_absolute_error",
                                            "registered_name": "function"}
    assert losses.deserialize(losses.serialize(losses.mae)) is loss_functions.mean_absolute_error
    got = losses.serialize(losses.Huber(delta=0.5, name="probe"))
    assert got["module"] == "keras.losses" and got["class_name"] == "Huber"
    assert got["registered_name"] is None and got["config"]["name"] == "probe"


def test_custom_loss_subclass():
    class Scaled(losses.Loss):
        def call(self, y_true, y_pred):
            return tf.reduce_mean(tf.abs(y_pred - y_true), axis=-1) * 2.0
    got = Scaled()(tf.constant(Y_TRUE), tf.constant(Y_PRED), sample_weight=np.array([1.0, 1.0, 0.0, 0.0]))
    np.testing.assert_allclose(float(got), (2 * np.abs(Y_PRED - Y_TRUE).mean(-1))[:2].sum() / 4)
    first, second = Scaled(), Scaled()  # Keras' auto_name: unique per process
    assert first.name.startswith("scaled") and second.name.startswith("scaled_")
    assert first.name != second.name
    assert Scaled(name="mine").name == "mine"
    assert Scaled("positional").name == "positional"  # Keras 3: Loss(name, reduction, dtype)
    assert Scaled("x", "sum").reduction == "sum"


def test_compare_with_tensorflow():
    real_tf = pytest.importorskip("tensorflow")
    for name in ["MeanSquaredError", "BinaryCrossentropy", "CategoricalCrossentropy", "Huber",
                 "KLDivergence", "LogCosh", "Poisson", "CosineSimilarity"]:
        want = getattr(real_tf.keras.losses, name)()(LABELS, PROBS).numpy()
        np.testing.assert_allclose(float(getattr(losses, name)()(LABELS, PROBS)), want, rtol=1e-5)


# -- Keras 3 rules: shapes, reductions, dtypes ------------------------------------------------

@pytest.mark.parametrize("fn", [loss_functions.mean_squared_error, loss_functions.mean_absolute_error,
                                loss_functions.mean_absolute_percentage_error,
                                loss_functions.mean_squared_logarithmic_error, losses.huber, loss_functions.log_cosh,
                                losses.cosine_similarity])
def test_regression_functions_squeeze_or_expand_ranks(fn):
    # Keras 3 squeeze_or_expand_to_same_rank: (3, 1) labels with (3,) predictions become (3, 1)
    # pairs; (3, 4) with (3, 4, 1) lose the trailing 1
    col, flat = np.array([[1.0], [2.0], [0.5]], "float32"), np.array([1.5, 1.0, 0.25], "float32")
    want = fn(tf.constant(col), tf.constant(flat[:, None]))
    assert want.shape == (3,)
    np.testing.assert_allclose(_np(fn(col, flat)), _np(want), rtol=1e-6)
    np.testing.assert_allclose(_np(fn(flat, col)), _np(fn(flat[:, None], col)), rtol=1e-6)
    a, b = rng.uniform(0.1, 1, (3, 4)).astype("float32"), rng.uniform(0.1, 1, (3, 4)).astype("float32")
    got = fn(a, b[..., None])
    assert got.shape == (3,)
    np.testing.assert_allclose(_np(got), _np(fn(a, b)), rtol=1e-6)


def test_crossentropy_shape_checks_raise_value_error():
    with pytest.raises(ValueError, match="same rank"):
        losses.binary_crossentropy(np.ones((3, 4), "float32"), np.full((3, 4, 1), 0.3, "float32"))
    with pytest.raises(ValueError, match="same rank"):
        losses.binary_crossentropy(np.ones((5,), "float32"), np.full((5, 1), 0.3, "float32"))
    # the Loss object first squeezes/expands the pair to one rank, as Keras 3
    assert losses.BinaryCrossentropy()(np.ones((5,), "float32"), np.full((5, 1), 0.3, "float32")).shape == ()
    with pytest.raises(ValueError, match="same shape"):
        losses.binary_crossentropy(np.ones((3, 4), "float32"), np.full((3, 1), 0.3, "float32"))
    with pytest.raises(ValueError, match="same shape"):
        losses.categorical_crossentropy(np.eye(3, dtype="float32"), np.full((3, 1), 0.3, "float32"))
    with pytest.raises(IndexError):  # Keras 3 indexes y_pred.shape[-1] unchecked
        losses.categorical_crossentropy(np.float32(1.0), np.float32(0.5))
    from minitf.errors import errors
    with pytest.raises(errors.InvalidArgumentError):  # an axis beyond the rank (TF: Sum's error)
        losses.categorical_crossentropy(np.eye(3, dtype="float32"), np.full((3, 3), 0.3, "float32"),
                                        axis=2, label_smoothing=0.1)


def test_categorical_label_smoothing_uses_the_last_axis():
    # Keras 3 divides by shape[-1] whatever `axis` is (TF: [1.1378, 0.62383, 0.19741])
    got = losses.categorical_crossentropy(np.eye(2, 3, dtype="float32"),
                                          np.array([[.2, .3, .5], [.6, .3, .1]], "float32"),
                                          label_smoothing=0.3, axis=0)
    np.testing.assert_allclose(_np(got), [1.1378, 0.62383, 0.19741], rtol=1e-4)


def test_reduction_names_as_keras3():
    y = np.array([[1., 2.], [3., 4.], [5., 6.]], "float32")
    yp = np.zeros((3, 2), "float32")
    w = np.array([1.0, 0.0, 3.0], "float32")
    expect = {"mean": 31.333334, "sum_over_batch_size": 31.333334, "mean_with_sample_weight": 23.5,
              "sum": 94.0}
    for reduction, value in expect.items():
        got = losses.MeanSquaredError(reduction=reduction)(y, yp, sample_weight=w)
        assert got.dtype == tf.float32
        np.testing.assert_allclose(float(got), value, rtol=1e-6)
    for reduction in (None, "none"):
        np.testing.assert_allclose(_np(losses.MeanSquaredError(reduction=reduction)(y, yp, sample_weight=w)),
                                   [2.5, 0.0, 91.5])
    mws = losses.MeanSquaredError(reduction="mean_with_sample_weight")
    np.testing.assert_allclose(float(mws(y, yp, sample_weight=2.0)), 45.5)
    np.testing.assert_allclose(float(mws(y, yp)), 15.166667, rtol=1e-6)  # no weights: the mean
    assert float(mws(y, yp, sample_weight=np.zeros(3, "float32"))) == 0.0  # divide_no_nan
    with pytest.raises(ValueError, match="reduction"):
        losses.MeanSquaredError(reduction="auto")  # Keras 2's name, rejected by Keras 3
    with pytest.raises(ValueError, match="Invalid Reduction Key"):
        losses.Reduction.validate(None)
    losses.Reduction.validate("auto")  # the legacy class still knows it


def test_loss_objects_compute_in_their_dtype():
    ones, zeros = np.ones((3, 4)), np.zeros((3, 4))  # float64
    mse = losses.MeanSquaredError()
    assert mse.dtype == "float32"
    got = mse(ones, zeros)
    assert got.dtype == tf.float32 and float(got) == 1.0
    assert losses.MeanSquaredError(dtype="float64")(ones.astype("float32"), zeros).dtype == tf.float64
    scce = losses.SparseCategoricalCrossentropy()(np.array([0, 1]), np.array([[.3, .7], [.4, .6]]))
    assert scce.dtype == tf.float32
    np.testing.assert_allclose(float(scce), 0.8574, rtol=1e-4)
    # the function forms keep float64
    assert loss_functions.mean_squared_error(ones, zeros).dtype == tf.float64


def test_loss_function_wrapper_default_name():
    assert loss_classes.LossFunctionWrapper(losses.mse).name.startswith("loss_function_wrapper")
    assert loss_classes.LossFunctionWrapper(losses.mse, name="x").name == "x"


def test_sparse_crossentropy_axis_must_be_last():
    logits = np.zeros((4, 4), "float32")
    with pytest.raises(ValueError, match="axis=-1"):
        losses.sparse_categorical_crossentropy(np.array([3, 0, 0, 0]), logits, axis=0)
    from minitf.errors import errors
    with pytest.raises(errors.InvalidArgumentError):  # Keras' SelectV2 masking fails first
        losses.sparse_categorical_crossentropy(np.array([0, 1, 1, 0]), np.zeros((4, 2), "float32"),
                                               ignore_class=1, axis=0)
    assert losses.sparse_categorical_crossentropy(np.array([3, 0, 0, 0]), logits, axis=1).shape == (4,)


def test_single_class_categorical_crossentropy_warns():
    with pytest.warns(SyntaxWarning, match="binary_crossentropy"):
        got = losses.categorical_crossentropy(np.ones((2, 1), "float32"), np.full((2, 1), 0.4, "float32"))
    np.testing.assert_allclose(_np(got), [0.0, 0.0], atol=1e-6)


def test_cosine_similarity_treats_a_scalar_prediction_as_a_vector():
    """keras.ops.normalize makes a 0-d input a 1-vector: values from Keras 3.15."""
    y_true = tf.constant([0.14, 0.39, 0.14, 0.14, 0.89])
    loss = tf.keras.losses.CosineSimilarity(axis=0)(
        y_true, tf.constant(0.76), sample_weight=tf.constant([0.5, 0.26, 1.7, 1.39, 0.5]))
    np.testing.assert_allclose(loss.numpy(), -1.4767866, rtol=1e-6)
    np.testing.assert_allclose(tf.keras.losses.cosine_similarity(y_true, tf.constant(0.76), axis=0).numpy(),
                               -1.6974559, rtol=1e-6)
