"""Connectionist temporal classification: tf.nn.ctc_loss (TF 2's signature, dense or SparseTensor
labels), ctc_greedy_decoder, ctc_beam_search_decoder and ctc_unique_labels.

The loss runs TF's dense algorithm: a forward-backward pass in log space over the 2(L + 1)
states of each label sequence (label states, then blank states; blank moved to class 0),
normalized at every frame, with TF's log(1e-307) for impossible start and end states. Its
gradient with respect to the logits is TF's: softmax(logits) minus the posterior occupancy of
each class, zero past each sequence's length, scaled by the upstream gradient of each loss.
SparseTensor labels take TF's CTCLoss-kernel path: lengths come from the indices, logit_length
is checked against the number of frames, and an unreachable label sequence costs +inf.
The decoders work on the host (their outputs are SparseTensors of int64 labels).
"""
import heapq
import math

import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.backend import to_host
from minitf.ops._core import Op, Tensor, thread_state, array_module, as_tensor, record
from minitf.ops.constant import cast
from minitf.ops.math import multiply
from minitf.ops.indexing import getitem
from minitf.ops.shaping import concat, reshape, transpose
from minitf.sparse.sparse_tensor import SparseTensor
from minitf.api_export import export

__all__ = ["ctc_loss", "ctc_greedy_decoder", "ctc_beam_search_decoder", "ctc_unique_labels"]

CTC_LOSS = Op("CTCLossDense", dtypes=("float32", "float64"))
_LOG_0 = float(np.float32(np.log(1e-307)))  # TF's stand-in for log(0) in the start/end states


def _lse(xp, *parts):
    """logsumexp of equally shaped arrays (elementwise across them), -inf where all are -inf."""
    stack = xp.stack(parts)
    m = stack.max(axis=0)
    safe = xp.where(xp.isfinite(m), m, xp.zeros((), m.dtype))
    with np.errstate(divide="ignore"):
        return safe + xp.log(xp.exp(stack - safe).sum(axis=0))


def _lse_last(xp, a, keepdims=False):
    m = a.max(axis=-1, keepdims=True)
    safe = xp.where(xp.isfinite(m), m, xp.zeros((), m.dtype))
    with np.errstate(divide="ignore"):
        out = safe + xp.log(xp.exp(a - safe).sum(axis=-1, keepdims=True))
    return out if keepdims else out[..., 0]


def ctc_loss_and_grad_raw(logits, labels, label_length, logit_length):
    """(loss [B], grad [T, B, C]) of CTC with blank class 0, on raw arrays of logits' module.

    logits [T, B, C] (time major), labels [B, L] (classes 1..C-1 within label_length),
    label_length and logit_length [B] host int arrays.
    """
    xp = array_module(logits)
    dt = logits.dtype
    frames, batch, classes = logits.shape
    width = labels.shape[1]
    lsm = logits - _lse_last(xp, logits, keepdims=True)
    lab = xp.asarray(np.clip(labels, 0, classes - 1).astype(np.int64))
    idx = xp.broadcast_to(lab[None], (frames, batch, width))
    label_lp = xp.take_along_axis(lsm, idx, axis=2)
    obs_start = xp.full((frames, batch, 1), -np.inf, dtype=dt)
    obs_blank = xp.broadcast_to(lsm[:, :, :1], (frames, batch, width + 1))
    obs_lab = xp.concatenate([obs_start, label_lp], axis=2)  # label states 0..L (0: the start)

    # label state j (2..L) may follow label state j - 1 only when the two labels differ
    allow = np.zeros((batch, width + 1))
    if width >= 2:
        allow[:, 2:] = np.where(labels[:, :-1] == labels[:, 1:], -np.inf, 0.0)
    allow = xp.asarray(allow.astype(dt))
    none = xp.full((batch, 1), -np.inf, dtype=dt)
    init_lab = xp.full((batch, width + 1), _LOG_0, dtype=dt)
    init_lab[:, 0] = 0
    init_blk = xp.full((batch, width + 1), _LOG_0, dtype=dt)
    final_np = np.full((batch, width + 1), _LOG_0)
    final_np[np.arange(batch), label_length] = 0.0
    final = xp.asarray(final_np.astype(dt))
    mask_np = (np.arange(frames)[:, None] < logit_length[None, :]).astype(dt)
    mask = xp.asarray(mask_np)

    def normalize(a, b):
        total = _lse_last(xp, xp.concatenate([a, b], axis=1), keepdims=True)
        return a - total, b - total, total[:, 0]

    # forward: alpha after each frame (TF's normalized recursion)
    fwd = []
    a_lab, a_blk = init_lab, init_blk
    for t in range(frames):
        # label state j comes from itself, from blank j - 1, and from label j - 1 (the start
        # state for j = 1; for j >= 2 only between different labels)
        skip = xp.concatenate([none, a_lab[:, :-1] + allow[:, 1:]], axis=1)
        n_lab = _lse(xp, a_lab, xp.concatenate([none, a_blk[:, :-1]], axis=1), skip)
        n_blk = _lse(xp, a_blk, a_lab)
        a_lab, a_blk, _ = normalize(n_lab + obs_lab[t], n_blk + obs_blank[t])
        fwd.append((a_lab, a_blk))

    # backward: beta before each frame, reset to the final states past each sequence's end
    bwd = [None] * frames
    b_lab, b_blk = final, final
    cum = xp.zeros(batch, dtype=dt)
    for t in range(frames - 1, -1, -1):
        s_lab, s_blk = b_lab + obs_lab[t], b_blk + obs_blank[t]
        nxt = xp.concatenate([s_lab[:, 1:] + allow[:, 1:], none], axis=1)
        n_lab = _lse(xp, s_lab, s_blk, nxt)
        n_blk = _lse(xp, s_blk, xp.concatenate([s_lab[:, 1:], none], axis=1))
        n_lab, n_blk, total = normalize(n_lab, n_blk)
        m = mask[t][:, None]
        cum = cum + total * mask[t]
        b_lab = xp.where(m > 0, n_lab, final)
        b_blk = xp.where(m > 0, n_blk, final)
        bwd[t] = (b_lab, b_blk)
    log_likelihood = bwd[0][0][:, 0] + cum

    # posteriors of each state at each frame, then per class
    grad = xp.exp(lsm)
    onehot_np = np.zeros((batch, width, classes - 1))
    valid = (labels >= 1) & (labels <= classes - 1)
    bi, li = np.nonzero(valid)
    onehot_np[bi, li, labels[bi, li] - 1] = 1.0
    onehot = xp.asarray(onehot_np.astype(dt))
    for t in range(frames):
        nb_lab, nb_blk = bwd[t + 1] if t + 1 < frames else (final, final)
        p_lab, p_blk = fwd[t][0] + nb_lab, fwd[t][1] + nb_blk
        p_lab, p_blk, _ = normalize(p_lab, p_blk)
        occ_blank = xp.exp(p_blk).sum(axis=1)
        occ_labels = xp.einsum("bl,blc->bc", xp.exp(p_lab[:, 1:]), onehot)
        occ = xp.concatenate([occ_blank[:, None], occ_labels], axis=1)
        grad[t] = (grad[t] - occ) * mask[t][:, None]
    return -log_likelihood, grad


def _int_vector(value, name, op_name, batch):
    raw = np.asarray(to_host(as_tensor(value)._value) if not isinstance(value, np.ndarray) else value)
    if raw.dtype.kind not in "iu":
        raise errors.invalid_argument(op_name, f"{name} must hold integers, got {raw.dtype.name}")
    if raw.shape != (batch,):
        raise errors.invalid_argument(
            op_name, f"{name} must be a vector of one length per batch entry ({batch}), got shape "
                     f"{list(raw.shape)}")
    return raw.astype(np.int64)


def _dense_loss(logits, labels_np, label_length, logit_length, sparse):
    """The loss op on time-major logits with blank at class 0; records TF's gradient."""
    frames = logits._value.shape[0]
    loss_raw, grad_raw = ctc_loss_and_grad_raw(logits._value, labels_np, label_length, logit_length)
    if sparse:  # TF's CTCLoss kernel: an unreachable label sequence has probability 0
        repeats = np.array([int(np.sum(r[:n][1:] == r[:n][:-1])) if n > 1 else 0
                            for r, n in zip(labels_np, label_length)])
        unreachable = label_length + repeats > np.minimum(logit_length, frames)
        if unreachable.any():
            # probability 0: the loss is +inf and TF's kernel leaves the softmax as the gradient
            xp = array_module(loss_raw)
            gone = xp.asarray(unreachable)
            loss_raw = xp.where(gone, xp.asarray(np.inf, loss_raw.dtype), loss_raw)
            v = logits._value
            soft = xp.exp(v - _lse_last(xp, v, keepdims=True))
            live = xp.asarray((np.arange(frames)[:, None] < logit_length[None, :]).astype(v.dtype))
            grad_raw = xp.where(gone[None, :, None], soft * live[:, :, None], grad_raw)
    loss = Tensor(loss_raw)
    if thread_state.active:
        grad = Tensor(grad_raw)
        record(CTC_LOSS, (logits,), (loss,), lambda g: multiply(reshape(g, (1, -1, 1)), grad))
    return loss


def _blank_first(logits, blank):
    """Logits with the blank class moved to index 0 of the last axis (differentiably)."""
    def part(a, b):
        return getitem(logits, (Ellipsis, slice(a, b)))
    return concat([part(blank, blank + 1), part(0, blank), part(blank + 1, None)], axis=2)


@export("nn.ctc_loss")
@dispatch.add_dispatch_support
def ctc_loss(labels, logits, label_length, logit_length, logits_time_major=True, unique=None,
             blank_index=None, name=None):
    """The negative log-likelihood of each label sequence under CTC.

    Args:
      labels: int [batch, max_label_length] (padded; with label_length) or a SparseTensor of
        int32 values (label_length may be None; blank_index is then required).
      logits: float [frames, batch, classes] (time major) or [batch, frames, classes]; the
        unnormalized scores (a log-softmax is applied).
      label_length: int [batch], the length of each dense label sequence.
      logit_length: int [batch], the number of valid frames of each sequence.
      logits_time_major: the layout of `logits`.
      unique: optional (unique labels, index) from ctc_unique_labels: a speed-up in TF; the
        loss is the same without it, so it is accepted and not needed here.
      blank_index: the blank class (default 0 for dense labels; negative counts from the end).
      name: ignored.

    Returns:
      The loss [batch] in logits' dtype (float16 is computed in float32). Its gradient with
      respect to the logits is TF's (softmax minus class posteriors, zero past logit_length).

    Raises:
      ValueError: SparseTensor labels without blank_index.
      InvalidArgumentError: mismatched batch sizes, labels outside [0, classes), label_length
        above the labels' width, int64 SparseTensor values, or (SparseTensor labels) a
        logit_length above the number of frames.
    """
    sparse = isinstance(labels, SparseTensor)
    if sparse and blank_index is None:
        raise ValueError("Argument `blank_index` must be provided when `labels` is a `SparseTensor`.")
    x = as_tensor(logits)
    if x._value.ndim != 3:
        raise errors.invalid_argument("CTCLoss", f"logits must be 3-D [frames, batch, classes], got shape "
                                                 f"{list(x.shape)}")
    orig = x.dtype
    if orig.name in ("float16", "bfloat16"):
        x = cast(x, dtypes.float32)
    CTC_LOSS.check_dtype(x)
    if not logits_time_major:
        x = transpose(x, [1, 0, 2])
    frames, batch, classes = x._value.shape
    blank = 0 if blank_index is None else int(blank_index)
    if blank < 0:
        blank += classes
    if not 0 <= blank < classes:
        raise errors.invalid_argument("CTCLoss", f"blank_index {blank_index} is out of range for {classes} classes")
    if sparse:
        if labels.values.dtype != dtypes.int32:
            raise errors.invalid_argument(
                "CTCLoss", f"cannot compute CTCLoss as input #2(zero-based) was expected to be a int32 tensor "
                           f"but is a {labels.values.dtype.name} tensor; cast the SparseTensor's values to int32")
        idx = np.asarray(to_host(labels.indices._value)).astype(np.int64)
        vals = np.asarray(to_host(labels.values._value)).astype(np.int64)
        rows = int(np.asarray(to_host(labels.dense_shape._value))[0])
        lengths = np.bincount(idx[:, 0], minlength=rows)[:rows] if idx.size else np.zeros(rows, np.int64)
        dense = np.zeros((rows, max(int(lengths.max(initial=0)), 1)), np.int64)
        for (r, c), v in zip(idx, vals):
            dense[r, c] = v
        label_length = lengths
        labels_np = dense
        logit_len = _int_vector(logit_length, "logit_length", "CTCLoss", batch)
        if rows != batch:
            raise errors.invalid_argument("CTCLoss", f"len(labels) != batch_size: {rows} label rows for "
                                                     f"{batch} sequences")
        bad = np.flatnonzero(logit_len > frames)
        if bad.size:
            raise errors.invalid_argument("CTCLoss", f"sequence_length({bad[0]}) <= {frames}: logit_length "
                                                     f"{logit_len[bad[0]]} exceeds the {frames} frames")
        for b in range(rows):  # TF's CTCLoss kernel checks each sequence in turn
            if lengths[b] == 0:
                raise errors.invalid_argument("CTCLoss", f"Labels length is zero in batch {b}: the CTCLoss "
                                                         f"kernel needs at least one label per sequence")
            if lengths[b] > logit_len[b]:
                raise errors.invalid_argument(
                    "CTCLoss", f"Not enough time for target transition sequence (required: {lengths[b]}, "
                               f"available: {logit_len[b]}){b}: give each sequence at least as many frames "
                               f"as labels")
    else:
        labels_np = np.asarray(to_host(as_tensor(labels)._value))
        if labels_np.ndim != 2 or labels_np.shape[0] != batch:
            raise errors.invalid_argument(
                "CTCLoss", f"labels must be [batch, max_label_length] with batch {batch}, got shape "
                           f"{list(labels_np.shape)}")
        labels_np = labels_np.astype(np.int64)
        label_length = _int_vector(label_length, "label_length", "CTCLoss", batch)
        logit_len = _int_vector(logit_length, "logit_length", "CTCLoss", batch)
    if (label_length > labels_np.shape[1]).any() or (label_length < 0).any():
        raise errors.invalid_argument("CTCLoss", f"label_length {label_length.tolist()} must be within "
                                                 f"[0, {labels_np.shape[1]}] (the labels' width)")
    used = np.arange(labels_np.shape[1])[None, :] < label_length[:, None]
    if ((labels_np < 0) | (labels_np >= classes))[used].any():
        raise errors.invalid_argument("CTCLoss", f"labels must be class ids in [0, {classes}), got "
                                                 f"{labels_np[used].tolist()}")
    if blank != 0:
        x = _blank_first(x, blank)
        labels_np = np.where(labels_np < blank, labels_np + 1, labels_np)
    loss = _dense_loss(x, labels_np, label_length, logit_len, sparse)
    return cast(loss, orig) if orig.name in ("float16", "bfloat16") else loss


# -- decoders ------------------------------------------------------------------------------------

def _decoder_inputs(inputs, sequence_length, op_name):
    # TF's generated op converts a non-tensor with its default type, float32
    x = as_tensor(inputs) if hasattr(inputs, "_value") else as_tensor(np.asarray(inputs, np.float32))
    if x._value.ndim != 3:
        raise errors.invalid_argument(op_name, f"inputs is not a 3-Tensor: shape {list(x.shape)}")
    if x.dtype.name not in ("float32", "float64", "float16"):
        raise errors.invalid_argument(op_name, f"Value for attr 'T' of {x.dtype.name} is not in the list of "
                                               f"allowed values: float, double")
    host = np.asarray(to_host(x._value))
    if host.dtype == np.float16:
        host = host.astype(np.float32)
    frames, batch, _ = host.shape
    seq = np.asarray(to_host(as_tensor(sequence_length)._value))
    if seq.ndim != 1 or seq.shape[0] != batch:
        raise errors.FailedPreconditionError(
            None, None, f"len(sequence_length) != batch_size.  len(sequence_length):  {seq.size} batch_size: "
                        f"{batch} [Op:{op_name}]")
    for b, n in enumerate(seq):
        if n > frames:
            raise errors.FailedPreconditionError(
                None, None, f"sequence_length({b}) <= {frames}: {n} frames asked for [Op:{op_name}]")
    return host, seq.astype(np.int64)


def _sparse_paths(paths, batch):
    """A SparseTensor [batch, longest] of int64 labels from one list of labels per batch entry."""
    idx = [[b, i] for b, p in enumerate(paths) for i in range(len(p))]
    vals = [v for p in paths for v in p]
    longest = max((len(p) for p in paths), default=0)
    return SparseTensor(np.asarray(idx, np.int64).reshape(-1, 2), np.asarray(vals, np.int64),
                        np.asarray([batch, longest], np.int64))


@export("nn.ctc_greedy_decoder")
@dispatch.add_dispatch_support
def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """Best-path decoding: the most likely class at each frame, repeats merged (when
    merge_repeated), blanks removed.

    Args:
      inputs: float [frames, batch, classes] logits (time major).
      sequence_length: int [batch], each at most frames.
      merge_repeated: merge consecutive equal classes before dropping blanks.
      blank_index: the blank class (default: the last one; negative counts from the end).

    Returns:
      ([SparseTensor of int64 labels [batch, longest]], log_probabilities [batch, 1]): minus the
      sum over the valid frames of the largest logit.

    Raises:
      FailedPreconditionError: a sequence_length above frames, or one length per batch entry
        missing.
    """
    host, seq = _decoder_inputs(inputs, sequence_length, "CTCGreedyDecoder")
    frames, batch, classes = host.shape
    blank = classes - 1 if blank_index is None else int(blank_index)
    if blank < 0:
        blank += classes
    best = host.argmax(axis=2)
    paths, scores = [], np.zeros((batch, 1), host.dtype)
    for b in range(batch):
        n = int(seq[b])
        path, prev = [], -1
        for t in range(n):
            c = int(best[t, b])
            if c != blank and not (merge_repeated and c == prev):
                path.append(c)
            prev = c
        paths.append(path)
        scores[b, 0] = -host[:n, b].max(axis=1).sum() if n else 0.0
    return [_sparse_paths(paths, batch)], Tensor(scores)


def _log_softmax_host(v):
    m = v.max(axis=-1, keepdims=True)
    return v - (m + np.log(np.exp(v - m).sum(axis=-1, keepdims=True)))


def _logadd(a, b):
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    m = max(a, b)
    return m + math.log1p(math.exp(-abs(a - b)))


class _Leaves:
    """TF's beam of leaves: at most `width` prefixes with their (blank, label, total) log
    probabilities, the lowest one evicted first (a heap with lazy deletion)."""

    def __init__(self, width):
        self.width, self.entries, self.heap, self.count = width, {}, [], 0

    def push(self, prefix, probs):
        self.entries[prefix] = probs
        self.count += 1
        heapq.heappush(self.heap, (probs[2], self.count, prefix))

    def bottom(self):
        while True:
            total, _, prefix = self.heap[0]
            probs = self.entries.get(prefix)
            if probs is not None and probs[2] == total:
                return prefix, total
            heapq.heappop(self.heap)

    def pop_bottom(self):
        prefix, _ = self.bottom()
        heapq.heappop(self.heap)
        del self.entries[prefix]

    def candidate(self, total):
        return total > -math.inf and (len(self.entries) < self.width or total > self.bottom()[1])


def _beam_search(lp, blank, beam_width, top_paths):
    """TF's CTC beam search (CTCBeamSearchDecoder with no scorer and merge_repeated=False) over
    log-probabilities lp [frames, classes]: every beam's probabilities are updated, then each
    beam, best first, offers its one-label extensions while its old probability would still
    enter the beam; an extension enters when it beats the lowest leaf, which is evicted."""
    beams = {(): (0.0, -math.inf, 0.0)}  # prefix -> (log p ending in blank, in its label, total)
    classes = lp.shape[1]
    for t in range(lp.shape[0]):
        row = lp[t]
        leaves = _Leaves(beam_width)
        order = sorted(beams, key=lambda p: -beams[p][2])
        for prefix in order:
            old_b, old_l, old_t = beams[prefix]
            new_l = -math.inf
            if prefix:
                new_l = old_l
                parent = beams.get(prefix[:-1])
                if parent is not None:
                    same = len(prefix) > 1 and prefix[-2] == prefix[-1]
                    new_l = _logadd(new_l, parent[0] if same else parent[2])
                new_l += row[prefix[-1]]
            new_b = old_t + row[blank]
            leaves.push(prefix, (new_b, new_l, _logadd(new_b, new_l)))
        dead = set()  # evicted beams re-offered as children that failed: TF resets their old probabilities
        for prefix in order:
            old_b, _, old_t = beams[prefix]
            if prefix in dead or not leaves.candidate(old_t):
                continue
            for c in range(classes):
                if c == blank:
                    continue
                child = prefix + (c,)
                if child in leaves.entries:
                    continue
                label = row[c] + (old_b if prefix and prefix[-1] == c else old_t)
                if leaves.candidate(label):
                    if len(leaves.entries) == beam_width:
                        leaves.pop_bottom()
                    leaves.push(child, (-math.inf, label, label))
                else:
                    dead.add(child)
        beams = dict(leaves.entries)
    ranked = sorted(beams.items(), key=lambda kv: -kv[1][2])
    if len(ranked) < top_paths:
        raise errors.invalid_argument("CTCBeamSearchDecoder", f"Less leaves in the beam search than requested: "
                                                              f"{len(ranked)} < top_paths {top_paths}")
    return [list(p) for p, _ in ranked[:top_paths]], [v[2] for _, v in ranked[:top_paths]]


@export("nn.ctc_beam_search_decoder")
@dispatch.add_dispatch_support
def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1):
    """Beam-search decoding (no language model; repeated labels are not merged in the output):
    the top_paths most likely label sequences per batch entry, blank the last class.

    Returns:
      (a list of top_paths SparseTensors of int64 labels, log_probabilities [batch, top_paths]).

    Raises:
      InvalidArgumentError: top_paths above beam_width. FailedPreconditionError: bad lengths.
    """
    beam_width, top_paths = int(beam_width), int(top_paths)
    host, seq = _decoder_inputs(inputs, sequence_length, "CTCBeamSearchDecoder")
    if top_paths > beam_width:
        raise errors.invalid_argument("CTCBeamSearchDecoder", f"requested more paths than the beam width: "
                                                              f"top_paths {top_paths} > beam_width {beam_width}")
    if top_paths < 1:
        raise errors.invalid_argument("CTCBeamSearchDecoder", f"top_paths must be >= 1, got {top_paths}")
    frames, batch, classes = host.shape
    lp = _log_softmax_host(host.astype(np.float64))
    per_rank = [[[] for _ in range(batch)] for _ in range(top_paths)]
    scores = np.full((batch, top_paths), -np.inf, dtype=host.dtype)
    for b in range(batch):
        paths, logps = _beam_search(lp[:int(seq[b]), b], classes - 1, beam_width, top_paths)
        for k, (p, s) in enumerate(zip(paths, logps)):
            per_rank[k][b] = p
            scores[b, k] = s
    return [_sparse_paths(per_rank[k], batch) for k in range(top_paths)], Tensor(scores)


@export("nn.ctc_unique_labels")
@dispatch.add_dispatch_support
def ctc_unique_labels(labels, name=None):
    """For each row of int labels [batch, length]: its distinct labels in order of first
    appearance, zero-padded to length (int64), and the index of each label among them (int32)."""
    host = np.asarray(to_host(as_tensor(labels)._value))
    if host.ndim != 2:
        raise errors.invalid_argument("ctc_unique_labels", f"labels must be [batch, length], got shape "
                                                           f"{list(host.shape)}")
    ys = np.zeros(host.shape, np.int64)
    idx = np.zeros(host.shape, np.int32)
    for b, row in enumerate(host):
        seen = {}
        for i, v in enumerate(row.tolist()):
            idx[b, i] = seen.setdefault(v, len(seen))
        ys[b, :len(seen)] = list(seen)
    return [Tensor(ys), Tensor(idx)]
