"""The metrics that average a loss function over every example seen (KL divergence, Poisson,
log-cosh, MSLE, the hinges, cosine similarity), and the loss functions Keras 3 also exports
under tf.keras.metrics (KLD, poisson, logcosh, MSLE, hinge, squared_hinge, categorical_hinge,
huber): those are the losses' own function objects, as in Keras 3."""
from minitf.losses.functions import (categorical_hinge, hinge, huber, kl_divergence, log_cosh,
                                     mean_squared_logarithmic_error, poisson, squared_hinge)
from minitf.losses.functions import _l2_normalize, _pred_true  # one normalisation rule for both
from minitf.metrics.base import Metric, wrapper_class
from minitf.ops import reduce as reduce_ops
from minitf.losses.reduction import squeeze_or_expand_to_same_rank
from minitf.api_export import export, export_value

__all__ = ["KLDivergence", "Poisson", "LogCoshError", "MeanSquaredLogarithmicError", "Hinge",
           "SquaredHinge", "CategoricalHinge", "CosineSimilarity", "cosine_similarity"]

# the loss functions, public in the metrics namespaces too (the same objects, as Keras 3)
KLD = kld = kullback_leibler_divergence = kl_divergence
export_value("kl_divergence", "metrics.KLD", "metrics.kld", "metrics.kullback_leibler_divergence",
             "keras.metrics.KLD", "keras.metrics.kld", "keras.metrics.kullback_leibler_divergence")
export_value("poisson", "metrics.poisson", "keras.metrics.poisson")
export_value("log_cosh", "metrics.logcosh", "keras.metrics.logcosh")
export_value("mean_squared_logarithmic_error", "metrics.MSLE", "metrics.msle",
             "keras.metrics.MSLE", "keras.metrics.msle")
export_value("hinge", "metrics.hinge", "keras.metrics.hinge")
export_value("squared_hinge", "metrics.squared_hinge", "keras.metrics.squared_hinge")
export_value("categorical_hinge", "metrics.categorical_hinge", "keras.metrics.categorical_hinge")
export_value("huber", "metrics.huber", "keras.metrics.huber")


def cosine_similarity(y_true, y_pred, axis=-1):
    """sum(l2_normalize(y_true) * l2_normalize(y_pred)) along `axis`: the CosineSimilarity
    metric's per-example value (the loss of that name is its negative)."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return reduce_ops.reduce_sum(_l2_normalize(y_true, axis) * _l2_normalize(y_pred, axis), axis=axis)


def _name_and_dtype(self):
    # Keras 3's get_config of these metrics keeps only the name and dtype
    return Metric.get_config(self)


def _metric(class_name, fn, default_name, doc, **defaults):
    cls = wrapper_class(class_name, fn, default_name, doc, **defaults)
    cls.__module__ = __name__
    cls.get_config = _name_and_dtype
    return cls


KLDivergence = _metric("KLDivergence", kl_divergence, "kl_divergence",
                       "The mean over examples of sum(y_true * log(y_true / y_pred)) along the last axis "
                       "(both clipped to [1e-7, 1]).")
export_value("KLDivergence", "metrics.KLDivergence", "keras.metrics.KLDivergence")
Poisson = _metric("Poisson", poisson, "poisson",
                  "The mean over examples of mean(y_pred - y_true * log(y_pred + 1e-7)).")
export_value("Poisson", "metrics.Poisson", "keras.metrics.Poisson")
LogCoshError = _metric("LogCoshError", log_cosh, "logcosh",
                       "The mean over examples of mean(log(cosh(y_pred - y_true))) along the last axis.")
export_value("LogCoshError", "metrics.LogCoshError", "keras.metrics.LogCoshError")
MeanSquaredLogarithmicError = _metric(
    "MeanSquaredLogarithmicError", mean_squared_logarithmic_error, "mean_squared_logarithmic_error",
    "The mean over examples of mean((log(y_true + 1) - log(y_pred + 1))^2), values clipped at 1e-7.")
export_value("MeanSquaredLogarithmicError", "metrics.MeanSquaredLogarithmicError",
             "keras.metrics.MeanSquaredLogarithmicError")
Hinge = _metric("Hinge", hinge, "hinge",
                "The mean over examples of mean(max(1 - y_true * y_pred, 0)); 0/1 labels become -1/1.")
export_value("Hinge", "metrics.Hinge", "keras.metrics.Hinge")
SquaredHinge = _metric("SquaredHinge", squared_hinge, "squared_hinge",
                       "The mean over examples of mean(max(1 - y_true * y_pred, 0)^2); 0/1 labels become -1/1.")
export_value("SquaredHinge", "metrics.SquaredHinge", "keras.metrics.SquaredHinge")
CategoricalHinge = _metric("CategoricalHinge", categorical_hinge, "categorical_hinge",
                           "The mean over examples of max(0, max((1 - y_true) * y_pred) - sum(y_true * y_pred) + 1).")
export_value("CategoricalHinge", "metrics.CategoricalHinge", "keras.metrics.CategoricalHinge")
CosineSimilarity = _metric(
    "CosineSimilarity", cosine_similarity, "cosine_similarity",
    "The mean over examples of the cosine similarity of y_true and y_pred along `axis` (-1).\n\n"
    "Args: name ('cosine_similarity'), dtype, axis (-1). As in Keras 3, get_config keeps only\n"
    "the name and dtype, so a metric rebuilt from it uses axis=-1.", axis=-1)
export_value("CosineSimilarity", "metrics.CosineSimilarity", "keras.metrics.CosineSimilarity")
