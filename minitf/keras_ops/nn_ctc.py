"""CTC: keras.ops.ctc_loss and ctc_decode (Keras 3 on TF), and the Keras 2 backend's
ctc_batch_cost, ctc_decode and ctc_label_dense_to_sparse, over minitf's CTC ops."""
import numpy as np

from minitf.keras_core import config
from minitf.keras_ops.core import convert, keras_op
from minitf.keras_ops.dtypes import result_type
from minitf.ops import array as array_ops
from minitf.ops import compare as CMP
from minitf.ops import constant as constant_ops
from minitf.sparse import ctc as CTC
from minitf.ops import math as math_ops
from minitf.ops.gather import where as tf_where
from minitf.sparse.conversion import to_dense
from minitf.sparse.sparse_tensor import SparseTensor
from minitf.api_export import export

__all__ = ["ctc_loss", "ctc_decode", "ctc_batch_cost", "legacy_ctc_decode",
           "ctc_label_dense_to_sparse"]


@export("keras.ops.ctc_loss", "keras.ops.nn.ctc_loss")
@keras_op
def ctc_loss(target, output, target_length, output_length, mask_index=0):
    """The CTC loss of the padded integer labels `target` (batch, max_label) under the logits
    `output` (batch, frames, classes); `mask_index` is the blank class."""
    target, output = constant_ops.cast(convert(target), "int32"), convert(output)
    out_dtype = result_type(output.dtype, "float32")
    compute = "float32" if out_dtype == "float64" else out_dtype
    loss = CTC.ctc_loss(labels=target, logits=constant_ops.cast(output, compute), label_length=target_length,
                        logit_length=output_length, blank_index=mask_index,
                        logits_time_major=False)
    return constant_ops.cast(loss, out_dtype)


def _dense(decoded, shape):
    return [to_dense(SparseTensor(st.indices, st.values, shape), default_value=-1) for st in decoded]


@export("keras.ops.ctc_decode", "keras.ops.nn.ctc_decode")
@keras_op
def ctc_decode(inputs, sequence_lengths, strategy="greedy", beam_width=100, top_paths=1,
               merge_repeated=True, mask_index=0):
    """The most likely label sequences of the logits `inputs` (batch, frames, classes):
    ('greedy' or 'beam_search'); returns (labels [paths, batch, frames] padded with -1, scores)."""
    inputs = convert(inputs)
    samples, steps = int(inputs.shape[0]), int(inputs.shape[1])
    x = array_ops.transpose(inputs, [1, 0, 2])
    x = constant_ops.cast(x, result_type(x.dtype, "float32"))
    lengths = convert(sequence_lengths, "int32")
    if strategy == "greedy":
        decoded, scores = CTC.ctc_greedy_decoder(x, lengths, merge_repeated=merge_repeated,
                                                 blank_index=mask_index)
    elif strategy == "beam_search":
        if mask_index is not None:  # the beam decoder's blank is the last class
            classes = int(x.shape[-1])
            order = [i for i in range(classes) if i != mask_index % classes] + [mask_index % classes]
            x = array_ops.gather(x, order, axis=-1)
        decoded, scores = CTC.ctc_beam_search_decoder(x, lengths, beam_width=beam_width,
                                                      top_paths=top_paths)
    else:
        raise ValueError(f"Invalid strategy {strategy}. Supported values are 'greedy' and "
                         f"'beam_search'.")
    dense = constant_ops.cast(array_ops.stack(_dense(decoded, [samples, steps]), axis=0), "int32")
    if strategy == "beam_search" and mask_index is not None:
        blank = mask_index % int(inputs.shape[-1])
        dense = tf_where(CMP.greater_equal(dense, blank), math_ops.add(dense, 1), dense)
    return dense, scores


@export("keras.backend.ctc_label_dense_to_sparse")
@keras_op
def ctc_label_dense_to_sparse(labels, label_lengths):
    """The first label_lengths[i] labels of each row of `labels` as a SparseTensor."""
    labels, lengths = convert(labels), convert(label_lengths)
    host, n = labels.numpy(), lengths.numpy().reshape(-1)
    rows, cols = host.shape[:2]
    keep = np.arange(cols)[None, :] < n[:, None]
    index = np.argwhere(keep).astype(np.int64)
    values = host[keep]
    return SparseTensor(index, constant_ops.constant(values, dtype=labels.dtype), np.array([rows, cols],
                                                                                np.int64))


@export("keras.backend.ctc_batch_cost")
@keras_op
def ctc_batch_cost(y_true, y_pred, input_length, label_length):
    """Keras 2's CTC loss of the softmax outputs y_pred (batch, frames, classes; the blank is the
    last class) per batch entry, shape (batch, 1)."""
    label_length = constant_ops.cast(array_ops.squeeze(convert(label_length), [-1]), "int32")
    input_length = constant_ops.cast(array_ops.squeeze(convert(input_length), [-1]), "int32")
    sparse = ctc_label_dense_to_sparse(y_true, label_length)
    sparse = SparseTensor(sparse.indices, constant_ops.cast(sparse.values, "int32"), sparse.dense_shape)
    y_pred = math_ops.log(math_ops.add(array_ops.transpose(convert(y_pred), [1, 0, 2]), config.epsilon()))
    loss = CTC.ctc_loss(labels=sparse, logits=y_pred, label_length=None,
                        logit_length=input_length, blank_index=-1)
    return array_ops.expand_dims(loss, 1)


@export("keras.backend.ctc_decode")
@keras_op
def legacy_ctc_decode(y_pred, input_length, greedy=True, beam_width=100, top_paths=1):
    """Keras 2's CTC decoding of softmax outputs (blank last): ([dense labels per path, -1
    padded], log probabilities). Beam-search paths merge repeated labels, as TF 1's decoder."""
    y_pred = convert(y_pred)
    samples, steps = int(y_pred.shape[0]), int(y_pred.shape[1])
    logp = math_ops.log(math_ops.add(array_ops.transpose(y_pred, [1, 0, 2]), config.epsilon()))
    lengths = constant_ops.cast(convert(input_length), "int32")
    if greedy:
        decoded, log_prob = CTC.ctc_greedy_decoder(logp, lengths)
    else:
        decoded, log_prob = CTC.ctc_beam_search_decoder(logp, lengths, beam_width=beam_width,
                                                        top_paths=top_paths)
        decoded = [_merge_repeats(st) for st in decoded]
    return _dense(decoded, [samples, steps]), log_prob


def _merge_repeats(st):
    index, values = st.indices.numpy(), st.values.numpy()
    keep, out_index, last = [], [], {}
    for (row, _), v in zip(index, values):
        if last.get(row) == v:
            continue
        last[row] = v
        keep.append(v)
        out_index.append([row, sum(1 for r, _ in out_index if r == row)])
    return SparseTensor(np.array(out_index, np.int64).reshape(-1, 2),
                        np.array(keep, values.dtype), st.dense_shape)
