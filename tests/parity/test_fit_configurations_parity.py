"""Whole training runs against Keras 3 (TF 2.21): after keras.utils.set_random_seed, models start
from TF's weights, so fit's history must equal TF's to float32 rounding for each configuration:
class and sample weights, weighted validation data, steps over a repeated dataset, several
losses, metrics and optimizers (clipping, schedules, weight decay, EMA, gradient accumulation),
regularization losses and steps_per_execution."""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")

_RNG = np.random.default_rng(0)
X = _RNG.normal(size=(100, 6)).astype("float32")
Y = (X[:, :2].sum(1) > 0).astype("int32")
Y_REAL = X[:, :1] * 2 + 1
SAMPLE_WEIGHTS = _RNG.uniform(0.5, 2, size=100).astype("float32")


def _model(lib, outputs=2, activation=None, regularized=False):
    lib.keras.backend.clear_session()  # automatic names (metrics' too) count from zero in both libraries
    lib.keras.utils.set_random_seed(3)
    layers = lib.keras.layers
    hidden = layers.Dense(4, kernel_regularizer=lib.keras.regularizers.l2(0.1)) if regularized else \
        layers.Dense(8, activation="relu")
    return lib.keras.Sequential([lib.keras.Input((6,)), hidden, layers.Dense(outputs, activation=activation)])


def _history(lib, config):
    keras = lib.keras
    sce = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    sgd = keras.optimizers.SGD(0.05)
    fit = dict(epochs=2, batch_size=25, verbose=0, shuffle=False)
    if config == "class_weight":
        model, compiled, data = _model(lib), (sgd, sce), dict(x=X, y=Y, class_weight={0: 1.0, 1: 3.0}, batch_size=16)
    elif config == "sample_weight":
        model, compiled, data = _model(lib), (sgd, sce), dict(x=X, y=Y, sample_weight=SAMPLE_WEIGHTS, batch_size=16)
    elif config == "weighted_validation":
        model, compiled = _model(lib), (sgd, sce)
        data = dict(x=X[:80], y=Y[:80], validation_data=(X[80:], Y[80:], SAMPLE_WEIGHTS[80:]), batch_size=16)
    elif config == "steps_over_a_repeated_dataset":
        model, compiled = _model(lib), (sgd, sce)
        data = dict(x=lib.data.Dataset.from_tensor_slices((X, Y)).batch(10).repeat(), steps_per_epoch=3,
                    shuffle=True)
    elif config == "regression_metrics":
        model, compiled = _model(lib, 1), (sgd, "mse", ["mae", keras.metrics.RootMeanSquaredError()])
        data = dict(x=X, y=Y_REAL, batch_size=32)
    elif config == "adam_clipnorm":
        model, compiled, data = _model(lib), (keras.optimizers.Adam(0.01, clipnorm=0.5), sce), dict(x=X, y=Y)
    elif config == "adamw_schedule":
        schedule = keras.optimizers.schedules.ExponentialDecay(0.01, 3, 0.9)
        model, compiled, data = _model(lib), (keras.optimizers.AdamW(schedule, weight_decay=0.01), sce), dict(x=X, y=Y)
    elif config == "rmsprop_ema":
        model, compiled, data = _model(lib), (keras.optimizers.RMSprop(0.01, use_ema=True), sce), dict(x=X, y=Y)
    elif config == "binary_auc_precision":
        model = _model(lib, 1, "sigmoid")
        compiled = (sgd, "binary_crossentropy", ["accuracy", keras.metrics.AUC(), keras.metrics.Precision()])
        data = dict(x=X, y=Y[:, None].astype("float32"), batch_size=20)
    elif config == "regularization_loss":
        model, compiled, data = _model(lib, regularized=True), (sgd, sce), dict(x=X, y=Y)
    elif config == "gradient_accumulation":
        model, compiled = _model(lib), (keras.optimizers.SGD(0.05, gradient_accumulation_steps=2), sce)
        data = dict(x=X, y=Y)
    else:  # steps_per_execution
        model, compiled, data = _model(lib), (sgd, sce), dict(x=X, y=Y)
    optimizer, loss, metrics = (list(compiled) + [["accuracy"]])[:3]
    model.compile(optimizer, loss, metrics=metrics, steps_per_execution=2 if config == "steps_per_execution" else 1)
    history = model.fit(**{**fit, **data}).history
    return {key: [float(v) for v in history[key]] for key in history}


@pytest.mark.parametrize("config", ["class_weight", "sample_weight", "weighted_validation",
                                    "steps_over_a_repeated_dataset", "regression_metrics", "adam_clipnorm",
                                    "adamw_schedule", "rmsprop_ema", "binary_auc_precision", "regularization_loss",
                                    "gradient_accumulation", "steps_per_execution"])
def test_fit_history_matches_tf(config):
    ours, theirs = _history(minitf, config), _history(tf_ref, config)
    assert list(ours) == list(theirs)
    for key in ours:
        np.testing.assert_allclose(ours[key], theirs[key], rtol=2e-5, atol=2e-6, err_msg=key)
