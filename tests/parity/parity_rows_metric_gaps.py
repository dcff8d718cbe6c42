"""Parity rows for the Keras metrics filled in from TF 2.21's namespaces: the loss-averaging
metrics (KLDivergence, Poisson, LogCoshError, MeanSquaredLogarithmicError, the hinges,
CosineSimilarity), the loss functions Keras also exports as metrics (KLD, poisson, logcosh,
MSLE, hinge, squared_hinge, categorical_hinge, huber), and the F-scores.

Each metric row runs 1-3 batches (some weighted), reads the result after each, resets and reads
again; configs include invalid ones (TF's exception class compared).
"""
import numpy as np
from hypothesis import strategies as st

from parity_oracle import Case, T
from parity_rows_keras import (OMIT, _metric_call, _pair_case, label_pairs, maybe, metric_cases,
                               values)
from parity_table import Table

TABLE = Table()
add = TABLE.add


def metric_row(row, pairs, weights=True, **options):
    path = f"keras.metrics.{row}"
    add(path, metric_cases(pairs, weights, **options), call=_metric_call(path), rtol=1e-4, atol=1e-6)


# -- loss functions under keras.metrics (the same objects as keras.losses') -------------------
for _row, _kind, _options in (
        ("KLD", "positive", {}), ("poisson", "positive", {}), ("logcosh", "regression", {}),
        ("MSLE", "msle", {}), ("hinge", "hinge", {}), ("squared_hinge", "hinge", {}),
        ("categorical_hinge", "hinge", {}),
        ("huber", "regression", {"delta": maybe(st.sampled_from([1.0, 0.5, 2.0]))})):
    add(f"keras.metrics.{_row}", _pair_case(label_pairs(_kind), **_options), grad=1,
        rtol=1e-4, atol=1e-6)


# -- metrics averaging a per-example loss -----------------------------------------------------
for _name, _kind in (("KLDivergence", "positive"), ("Poisson", "positive"),
                     ("LogCoshError", "regression"), ("MeanSquaredLogarithmicError", "msle"),
                     ("Hinge", "hinge"), ("SquaredHinge", "hinge"), ("CategoricalHinge", "hinge")):
    metric_row(_name, label_pairs(_kind, odd_shapes=False), name=maybe(st.sampled_from(["m", "x"])))
metric_row("CosineSimilarity", label_pairs("regression", odd_shapes=False),
           axis=maybe(st.sampled_from([-1, 0, 1])))


def _config_round_trip(path):
    """get_config, then a metric rebuilt from it updated with the same batch."""
    def call(lib, y_true, y_pred, config):
        cls = lib
        for part in path.split("."):
            cls = getattr(cls, part)
        metric = cls(**config)
        metric.update_state(y_true, y_pred)
        again = cls.from_config(metric.get_config())
        again.update_state(y_true, y_pred)
        return [sorted(metric.get_config().items(), key=str), metric.result(), again.result()]
    return call


# -- F-scores ---------------------------------------------------------------------------------
@st.composite
def multilabel_pairs(draw):
    """(labels in {0, 1}, scores) of shape (batch, classes): ties, zero rows and exact zeros
    included, labels sometimes int; now and then a 1-D or 3-D pair (a ValueError)."""
    batch, classes = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    shape = (batch, classes)
    if draw(st.integers(0, 9)) == 0:
        shape = draw(st.sampled_from([(batch,), (batch, classes, 2)]))
    labels = draw(values("int32", shape, 0, 1))
    n = int(np.prod(shape))
    scores = np.array(draw(st.lists(st.sampled_from([0.0, 0.0, 0.2, 0.5, 0.5, 0.7, 0.9, 1.0]),
                                    min_size=n, max_size=n)), "float32").reshape(shape)
    if draw(st.booleans()):
        scores = np.abs(draw(values("float32", shape, 0, 1)))
    return T(labels.astype(draw(st.sampled_from(["int32", "float32"])))), T(scores)


_AVERAGE = maybe(st.sampled_from([None, "micro", "macro", "weighted", "bogus"]))
_THRESHOLD = maybe(st.sampled_from([None, 0.5, 0.3, 1.0, 0.0, 1.5, 1]))
metric_row("FBetaScore", multilabel_pairs(), average=_AVERAGE, threshold=_THRESHOLD,
           beta=maybe(st.sampled_from([1.0, 2.0, 0.5, 0.0, -1.0, 2])),
           dtype=maybe(st.sampled_from(["float32", "float64"])))
metric_row("F1Score", multilabel_pairs(), average=_AVERAGE, threshold=_THRESHOLD)


# -- IoU family -------------------------------------------------------------------------------
@st.composite
def id_pairs(draw, classes=3, one_hot_true=False, one_hot_pred=False):
    """(true ids, predicted ids) in [-1, classes] (out-of-range ids count 0), sometimes float ids
    (truncated), 2-D batches, or one-hot labels / scores for the OneHot metrics."""
    shape = draw(st.sampled_from([(4,), (2, 3), (1,), (3, 1)]))
    true = draw(values("int32", shape, -1 if not one_hot_true else 0, classes if not one_hot_true else classes - 1))
    pred = draw(values("int32", shape, -1 if not one_hot_pred else 0, classes if not one_hot_pred else classes - 1))
    if one_hot_true:
        true = np.eye(classes, dtype="float32")[true]
    elif draw(st.integers(0, 4)) == 0:
        true = true + np.float32(0.5)
    if one_hot_pred:
        pred = np.abs(draw(values("float32", shape + (classes,), 0, 1)))
    elif draw(st.integers(0, 4)) == 0:
        pred = pred.astype("float32") + np.float32(0.75)
    return T(true), T(pred)


@st.composite
def binary_iou_pairs(draw):
    shape = draw(st.sampled_from([(4,), (2, 3), (3, 1)]))
    labels = draw(values("int32", shape, 0, 1))
    n = int(np.prod(shape))
    scores = np.array(draw(st.lists(st.sampled_from([0.0, 0.3, 0.5, 0.5, 0.7, 1.0]), min_size=n,
                                    max_size=n)), "float32").reshape(shape)
    return T(labels.astype(draw(st.sampled_from(["int32", "float32"])))), T(scores)


_IOU_DTYPE = maybe(st.sampled_from(["int32", "float32", "float64"]))
metric_row("IoU", id_pairs(), num_classes=st.just(3),
           target_class_ids=st.sampled_from([[0], [0, 2], [1, 2], (2,), [3]]),
           ignore_class=maybe(st.sampled_from([None, 0, 2])), dtype=_IOU_DTYPE)
metric_row("MeanIoU", id_pairs(), num_classes=st.just(3), ignore_class=maybe(st.sampled_from([None, 1])),
           dtype=_IOU_DTYPE)
metric_row("BinaryIoU", binary_iou_pairs(), target_class_ids=maybe(st.sampled_from([(0, 1), [1], [0]])),
           threshold=maybe(st.sampled_from([0.5, 0.3, 0.7])))
metric_row("OneHotIoU", id_pairs(one_hot_true=True, one_hot_pred=True), num_classes=st.just(3),
           target_class_ids=st.sampled_from([[0], [0, 2], [1]]), ignore_class=maybe(st.sampled_from([None, 0])))
metric_row("OneHotMeanIoU", id_pairs(one_hot_true=True, one_hot_pred=True), num_classes=st.just(3),
           ignore_class=maybe(st.sampled_from([None, 2])))



# -- R2Score ----------------------------------------------------------------------------------
@st.composite
def regression_columns(draw):
    """(y_true, y_pred) of shape (batch, outputs) with ties and constant columns (a zero total
    sum of squares); sometimes rank-1 or rank-3 (a ValueError), or y_true with a trailing 1."""
    batch, outputs = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    shape = (batch, outputs)
    if draw(st.integers(0, 9)) == 0:
        shape = draw(st.sampled_from([(batch,), (batch, outputs, 2)]))
    n = int(np.prod(shape))
    pool = st.sampled_from([-2.0, -0.5, 0.0, 0.0, 1.0, 1.0, 3.0])
    y_true = np.array(draw(st.lists(pool, min_size=n, max_size=n)), "float32").reshape(shape)
    y_pred = np.array(draw(st.lists(pool, min_size=n, max_size=n)), "float32").reshape(shape)
    if draw(st.booleans()):
        y_pred = draw(values("float32", shape, -2, 3))
    return T(y_true), T(y_pred)


metric_row("R2Score", regression_columns(),
           class_aggregation=maybe(st.sampled_from([None, "uniform_average", "variance_weighted_average", "x"])),
           num_regressors=maybe(st.sampled_from([0, 1, 2, 5, -1])),
           dtype=maybe(st.sampled_from(["float32", "float64"])))


# -- the best rate under a constraint ---------------------------------------------------------
from parity_rows_keras import binary_scores  # noqa: E402  (the Precision/Recall rows' pairs)

_NUM_THRESHOLDS = maybe(st.sampled_from([200, 1, 2, 3, 10, 0]))
for _name, _arg in (("SensitivityAtSpecificity", "specificity"), ("SpecificityAtSensitivity", "sensitivity"),
                    ("PrecisionAtRecall", "recall"), ("RecallAtPrecision", "precision")):
    metric_row(_name, binary_scores(), num_thresholds=_NUM_THRESHOLDS,
               class_id=maybe(st.sampled_from([None, 0, 1])),
               **{_arg: st.sampled_from([0.0, 0.5, 0.8, 1.0, 1.5, -0.1])})


# -- correlations -----------------------------------------------------------------------------
@st.composite
def correlated_pairs(draw, variable=False):
    """(y_true, y_pred) of shape (batch, n >= 2) with ties and shifted copies; float32/float64.
    Constant rows (NaN in both libraries) are left to the tie pool's chance."""
    dtype = draw(st.sampled_from(["float32", "float64"]))
    shape = draw(st.sampled_from([(2, 3), (3, 4), (1, 5), (4, 2)]))
    y_true = draw(values(dtype, shape, -2, 2))
    y_pred = y_true * dtype_cast(draw(st.sampled_from([1.0, -1.0, 0.5])), dtype) + draw(values(dtype, shape, -1, 1))
    if draw(st.booleans()):
        y_true = np.round(y_true).astype(dtype)  # ties
    return T(y_true), T(y_pred.astype(dtype))


def dtype_cast(value, dtype):
    return np.array(value, dtype)


for _fn in ("pearson_correlation", "concordance_correlation"):
    add(f"keras.metrics.{_fn}", _pair_case(correlated_pairs(), axis=maybe(st.sampled_from([-1, 0, 1]))),
        grad=1, rtol=1e-3, atol=1e-5)
for _name in ("PearsonCorrelation", "ConcordanceCorrelation"):
    metric_row(_name, correlated_pairs(), axis=maybe(st.sampled_from([-1, 0])))


# -- focal cross-entropies (losses and metric-namespace functions) -----------------------------
from parity_rows_keras import _loss_class_call, _xent_pairs, loss_class_cases  # noqa: E402

_BFCE = {"apply_class_balancing": maybe(st.booleans()), "alpha": maybe(st.sampled_from([0.25, 0.5, 0.9])),
         "gamma": maybe(st.sampled_from([2.0, 0.0, 1.5])), "from_logits": maybe(st.booleans()),
         "label_smoothing": maybe(st.sampled_from([0.0, 0.1, 0.5])), "axis": maybe(st.sampled_from([-1, 0]))}
_CFCE = {"alpha": maybe(st.sampled_from([0.25, 1.0])), "gamma": maybe(st.sampled_from([2.0, 0.0, 1.5])),
         "from_logits": maybe(st.booleans()), "label_smoothing": maybe(st.sampled_from([0.0, 0.1])),
         "axis": maybe(st.sampled_from([-1, 0]))}
add("keras.losses.binary_focal_crossentropy", _pair_case(_xent_pairs("binary"), **_BFCE), grad=1,
    rtol=1e-4, atol=1e-6)
add("keras.losses.categorical_focal_crossentropy", _pair_case(_xent_pairs("categorical"), **_CFCE), grad=1,
    rtol=1e-4, atol=1e-6)
add("keras.losses.BinaryFocalCrossentropy", loss_class_cases(_xent_pairs("binary"), **_BFCE),
    call=_loss_class_call("keras.losses.BinaryFocalCrossentropy"), grad=1, rtol=1e-4, atol=1e-6)
add("keras.losses.CategoricalFocalCrossentropy", loss_class_cases(_xent_pairs("categorical"), **_CFCE),
    call=_loss_class_call("keras.losses.CategoricalFocalCrossentropy"), grad=1, rtol=1e-4, atol=1e-6)


# -- Dice and Tversky ---------------------------------------------------------------------------
_AXIS = maybe(st.sampled_from([None, -1, 0, [0, 1]]))
add("keras.losses.dice", _pair_case(label_pairs("binary", odd_shapes=False), axis=_AXIS), grad=1,
    rtol=1e-4, atol=1e-6)
add("keras.losses.tversky", _pair_case(label_pairs("binary", odd_shapes=False), axis=_AXIS,
                                       alpha=maybe(st.sampled_from([0.5, 0.3, 0.0])),
                                       beta=maybe(st.sampled_from([0.5, 0.7, 1.0]))), grad=1, rtol=1e-4, atol=1e-6)
add("keras.losses.Dice", loss_class_cases(label_pairs("binary", odd_shapes=False), axis=maybe(st.sampled_from([None, -1]))),
    call=_loss_class_call("keras.losses.Dice"), grad=1, rtol=1e-4, atol=1e-6)
add("keras.losses.Tversky", loss_class_cases(label_pairs("binary", odd_shapes=False),
                                             axis=maybe(st.sampled_from([None, -1])),
                                             alpha=maybe(st.sampled_from([0.5, 0.3])),
                                             beta=maybe(st.sampled_from([0.5, 0.7]))),
    call=_loss_class_call("keras.losses.Tversky"), grad=1, rtol=1e-4, atol=1e-6)


# -- keras.activations that forward to keras.ops ----------------------------------------------------
from parity_kops import tensor_then, unary_cases  # noqa: E402
from parity_strategies import FLOATS  # noqa: E402

A = "keras.activations."
_INTS = ("int32", "int64")
for _name in ("log_sigmoid", "hard_tanh", "tanh_shrink", "sparse_sigmoid", "sparse_plus"):
    add(A + _name, st.one_of(unary_cases(FLOATS, low=-5.0, high=5.0), unary_cases(_INTS, low=-3, high=3)), grad=1)
for _name in ("soft_shrink", "hard_shrink"):
    add(A + _name, st.one_of(unary_cases(FLOATS, low=-5.0, high=5.0),
                             tensor_then(threshold=lambda a: st.sampled_from([0.5, 0.0, 2.0]), dtypes=FLOATS)),
        grad=1)
add(A + "squareplus", st.one_of(unary_cases(FLOATS, low=-5.0, high=5.0),
                                tensor_then(b=lambda a: st.sampled_from([4, 0, 1.5]), dtypes=FLOATS)), grad=1)
add(A + "celu", st.one_of(unary_cases(FLOATS, low=-5.0, high=5.0),
                          tensor_then(alpha=lambda a: st.sampled_from([0.5, 2.0]), dtypes=FLOATS)), grad=1)
add(A + "threshold", tensor_then(lambda a: st.sampled_from([0.0, 0.5, -1.0]),
                                 lambda a: st.sampled_from([0.0, -2.0]), dtypes=FLOATS), grad=1)
add(A + "glu", tensor_then(axis=lambda a: maybe(st.sampled_from([-1, 0])), dtypes=FLOATS,
                           shape=st.sampled_from([(2, 4), (4,), (2, 3)])), grad=1)
add(A + "sparsemax", tensor_then(axis=lambda a: maybe(st.sampled_from([-1, 0])), dtypes=FLOATS,
                                 shape=st.sampled_from([(2, 3), (3,), (2, 3, 4), (2, 1)])), grad=1)
TABLE.known(A + "sparse_plus", lambda c, v: v.kind == "error_mismatch" and "Cannot convert 0.25" in v.detail,
            "BUG: keras.ops.sparse_plus on an integer tensor raises InvalidArgumentError (AddV2 dtypes) where "
            "Keras on TF raises TypeError (it cannot convert 0.25 to the integer dtype); the fix belongs in "
            "minitf/keras_ops/nn_activations.py, which keras.activations.sparse_plus forwards to")
