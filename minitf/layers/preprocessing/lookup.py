"""Vocabulary lookup layers: StringLookup and IntegerLookup (Keras 3's IndexLookup rules).

Indices are laid out as Keras lays them out: the mask token (index 0, only in 'int' mode and
when `mask_token` is set), then `num_oov_indices` OOV indices, then the vocabulary. Unknown
strings go to an OOV index by TF's Fingerprint64 bucket, unknown integers by floormod. `adapt`
orders tokens by count, ties by token, both descending, as Keras does.

The tables are Python dicts. The vocabulary of an adapted layer is written into its config
(`vocabulary`), where Keras also reads it; Keras itself writes adapted vocabularies to an
`assets/` file inside `.keras` archives, which minitf's loader reads (`load_assets`).
"""
import collections
import os

import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors.errors import FailedPreconditionError, InvalidArgumentError
from minitf.keras_core import config as keras_config
from minitf.layers.preprocessing import utils as preprocessing_utils
from minitf.layers.base import Layer
from minitf.layers.preprocessing.numeric import encode_categorical
from minitf.ops.constant import convert_to_tensor
from minitf.ops.string_hash import to_hash_bucket_fast
from minitf.ragged.ragged_tensor import RaggedTensor
from minitf.api_export import export

__all__ = ["StringLookup", "IntegerLookup"]

_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")


class _IndexLookup(Layer):
    """The shared machinery of StringLookup and IntegerLookup."""

    _string = True

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=None, vocabulary=None,
                 idf_weights=None, invert=False, output_mode="int", sparse=False, pad_to_max_tokens=False,
                 oov_method="floormod", salt=None, vocabulary_size=None, **kwargs):
        kwargs.pop("has_input_vocabulary", None)
        super().__init__(**kwargs)
        kind = type(self).__name__
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError(f"{kind} {self.name!r}: if set, `max_tokens` must be greater than 1. "
                             f"Received: max_tokens={max_tokens}")
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError(f"{kind} {self.name!r}: if pad_to_max_tokens is True, must set `max_tokens`. "
                             f"Received: max_tokens={max_tokens}")
        if num_oov_indices < 0:
            raise ValueError(f"{kind} {self.name!r}: `num_oov_indices` must be greater than or equal to 0. "
                             f"Received: num_oov_indices={num_oov_indices}")
        if oov_method not in ("floormod", "farmhash"):
            raise ValueError(f"{kind} {self.name!r}: the `oov_method` argument must be one of "
                             f"('floormod', 'farmhash'). Received: oov_method={oov_method}")
        if salt is not None:
            raise NotImplementedError(f"{kind} {self.name!r}: a `salt` needs TF's keyed SipHash, which minitf "
                                      f"does not implement; leave salt=None.")
        output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
        if output_mode not in _MODES:
            raise ValueError(f"{kind} {self.name!r}: the `output_mode` argument must be one of {_MODES}. "
                             f"Received: output_mode={output_mode}")
        if invert and output_mode != "int":
            raise ValueError(f"{kind} {self.name!r}: `output_mode` must be `'int'` when `invert` is true. "
                             f"Received: output_mode={output_mode}")
        if sparse and output_mode == "int":
            raise ValueError(f"{kind} {self.name!r}: `sparse` may only be true if `output_mode` is 'one_hot', "
                             f"'multi_hot', 'count' or 'tf_idf'. Received: sparse={sparse} and "
                             f"output_mode={output_mode}")
        preprocessing_utils.refuse_sparse(sparse, self)
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError(f"{kind} {self.name!r}: `idf_weights` should only be set if `output_mode` is "
                             f"'tf_idf'. Received: idf_weights={idf_weights} and output_mode={output_mode}")
        if output_mode == "tf_idf" and vocabulary is not None and idf_weights is None:
            raise ValueError(f"{kind} {self.name!r}: when specifying the `vocabulary` argument, in TF-IDF "
                             f"output mode, the `idf_weights` argument must also be provided.")
        self.invert = invert
        self.max_tokens = max_tokens
        self.num_oov_indices = num_oov_indices
        self.mask_token = mask_token
        self.oov_token = oov_token
        self.output_mode = output_mode
        self.sparse = sparse
        self.pad_to_max_tokens = pad_to_max_tokens
        self.oov_method = oov_method
        self.salt = salt
        self._frozen_vocab_size = vocabulary_size
        self._size_from_config = vocabulary_size is not None and vocabulary is None
        self.input_vocabulary = vocabulary if not isinstance(vocabulary, str) else None
        self.input_idf_weights = idf_weights
        self._tokens = []
        self._index = {}
        self.idf_weights = None
        self._adapted = False
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)

    # -- tokens -------------------------------------------------------------------------------
    def _key(self, token):
        """A token as the tables keep it: bytes for strings, int for integers."""
        if self._string:
            return token.encode(self.encoding) if isinstance(token, str) else bytes(token)
        return int(token)

    def _out(self, key):
        """A table key as get_vocabulary returns it."""
        return key.decode(self.encoding) if self._string else key

    def _oov_start_index(self):
        return 1 if self.mask_token is not None and self.output_mode == "int" else 0

    def _token_start_index(self):
        return self._oov_start_index() + self.num_oov_indices

    def vocabulary_size(self):
        """The size of the vocabulary, mask and OOV indices included."""
        return len(self._tokens) + self._token_start_index()

    def get_vocabulary(self, include_special_tokens=True):
        """The vocabulary in index order; with `include_special_tokens`, the mask and OOV tokens
        first, so that a token's position is its index."""
        vocab = [self._out(t) for t in self._tokens]
        if not include_special_tokens:
            return vocab
        oov = self.oov_token
        head = [self.mask_token] * self._oov_start_index() + [oov] * self.num_oov_indices
        return head + vocab

    def load_assets(self, dir_path):
        """Read the vocabulary a Keras 3 `.keras` file keeps in `<assets>/<layer path>/vocabulary.txt`
        (written for adapted layers), unless the config already gave one. In 'tf_idf' mode the IDF
        weights come from the weights file (`_load_keras_extra_weights`, read first, as Keras
        reads its variables before its assets)."""
        path = os.path.join(dir_path, "vocabulary.txt")
        if self._table_ready or not os.path.isfile(path):
            return
        if self.output_mode != "tf_idf":
            self.set_vocabulary(path)
        elif self.idf_weights is not None:
            with open(path, encoding="utf-8") as f:
                count = len(f.read().splitlines())
            self.set_vocabulary(path, idf_weights=self.idf_weights[:count])  # without pad_to_max_tokens' zeros

    def _keras_extra_weights(self):
        """What Keras 3 stores beside the numbered variables of this layer's weights group: in
        'tf_idf' mode the IDF weights (one per index, OOV indices first) as 'idf_weights'."""
        if self.output_mode != "tf_idf" or self.idf_weights is None:
            return {}
        return {"idf_weights": np.asarray(self.idf_weights, dtype=keras_config.floatx())}

    def _load_keras_extra_weights(self, values):
        """Take the 'idf_weights' a weights file holds for this layer (in 'tf_idf' mode)."""
        idf = values.get("idf_weights")
        if self.output_mode != "tf_idf" or idf is None:
            return
        idf = np.asarray(idf)
        if idf.ndim != 1:
            raise ValueError(f"{type(self).__name__} {self.name!r}: the stored `idf_weights` must be 1-D; "
                             f"received shape {idf.shape}.")
        self.idf_weights = idf.astype(keras_config.floatx())

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Replace the vocabulary (a list, array, tensor or a file path with one token a line) and,
        in 'tf_idf' mode, the IDF weights (one per token)."""
        kind = type(self).__name__
        if self.output_mode == "tf_idf" and idf_weights is None:
            raise ValueError(f"{kind} {self.name!r}: `idf_weights` must be set if output_mode is 'tf_idf'.")
        if self.output_mode != "tf_idf" and idf_weights is not None:
            raise ValueError(f"{kind} {self.name!r}: `idf_weights` should only be set if output_mode is "
                             f"'tf_idf'. Received: output_mode={self.output_mode} and idf_weights={idf_weights}")
        if isinstance(vocabulary, str):
            with open(vocabulary, encoding="utf-8") as f:
                lines = f.read().splitlines()
            while lines and lines[-1] == "":
                lines.pop()
            vocabulary = lines if self._string else [int(v) for v in lines]
        keys = [self._key(v) for v in preprocessing_utils.numpy_of(vocabulary).reshape(-1).tolist()]
        if not keys:
            raise ValueError(f"{kind} {self.name!r}: cannot set an empty vocabulary. Received: "
                             f"vocabulary={vocabulary}")
        special = [self._maybe_key(self.mask_token)] * self._oov_start_index() + \
            [self._maybe_key(self.oov_token)] * self.num_oov_indices
        start = self._token_start_index()
        found_special = keys[:start] == special
        tokens = keys[start:] if found_special else keys
        repeated = [t for t, c in collections.Counter(tokens).items() if c > 1]
        if repeated:
            raise ValueError(f"{kind} {self.name!r}: the passed vocabulary has at least one repeated term. "
                             f"Please uniquify your dataset. The repeated terms are: "
                             f"{[self._out(t) for t in repeated]}")
        mask = self._maybe_key(self.mask_token)
        if self.mask_token is not None and mask in tokens:
            raise ValueError(f"{kind} {self.name!r}: found reserved mask token at unexpected location in "
                             f"`vocabulary`. Either remove all mask and OOV tokens, or include them only at "
                             f"the start of the vocabulary in precisely this order: {special}. Received: "
                             f"mask_token={self.mask_token} at vocabulary index {tokens.index(mask) + start}")
        if self.oov_token is not None and self.invert and self._maybe_key(self.oov_token) in tokens:
            raise ValueError(f"{kind} {self.name!r}: found reserved OOV token at unexpected location in "
                             f"`vocabulary`. Remove it, or put the special tokens first in this order: {special}.")
        if self.max_tokens is not None and start + len(tokens) > self.max_tokens:
            raise ValueError(f"{kind} {self.name!r}: attempted to set a vocabulary larger than the maximum vocab "
                             f"size. Received vocabulary size is {start + len(tokens)}; `max_tokens` is "
                             f"{self.max_tokens}.")
        self._set_tokens(tokens)
        if self.output_mode == "tf_idf":
            weights = np.asarray(preprocessing_utils.numpy_of(idf_weights), dtype=np.float64)
            if weights.ndim != 1:
                raise ValueError(f"{kind} {self.name!r}: TF-IDF data must be a 1-index array. Received: "
                                 f"idf_weights with shape {weights.shape}")
            if len(keys) != len(weights):
                raise ValueError(f"{kind} {self.name!r}: `idf_weights` must be the same length as vocabulary. "
                                 f"len(idf_weights) is {len(weights)}; len(vocabulary) is {len(keys)}")
            front = 0 if found_special else start
            back = (self.max_tokens - front - len(weights)) if self.pad_to_max_tokens else 0
            weights = np.concatenate([np.full(front, np.average(weights)), weights, np.zeros(max(back, 0))])
            self.idf_weights = weights.astype(keras_config.floatx())

    def _maybe_key(self, token):
        return None if token is None else self._key(token)

    def _set_tokens(self, tokens):
        if self._frozen_vocab_size is not None and self.output_mode != "int" and not self.pad_to_max_tokens \
                and self._called and self._token_start_index() + len(tokens) != self._frozen_vocab_size:
            raise RuntimeError(f"{type(self).__name__} {self.name!r}: when using `output_mode="
                               f"{self.output_mode}` and `pad_to_max_tokens=False`, the vocabulary size cannot "
                               f"be changed after the layer is called. Old vocab size is "
                               f"{self._frozen_vocab_size}, new vocab size is "
                               f"{self._token_start_index() + len(tokens)}")
        self._tokens = list(tokens)
        self._table_ready = True
        start = self._token_start_index()
        self._index = {t: start + i for i, t in enumerate(self._tokens)}
        self._frozen_vocab_size = self.vocabulary_size()

    _called = False
    _table_ready = False

    # -- adapt ----------------------------------------------------------------------------------
    @preprocessing_utils.adapts_when_run()
    def adapt(self, data, steps=None):
        """Learn the vocabulary (and, in 'tf_idf' mode, the IDF weights) from `data`: an array, list,
        tensor, RaggedTensor, tf.data.Dataset of batches or iterable of batches. An array or list of
        rank 1 is one token per document; a batch of rank 1 from a dataset is one document."""
        if self.input_vocabulary is not None:
            raise ValueError(f"{type(self).__name__} {self.name!r}: cannot adapt the layer after setting a "
                             f"static vocabulary via `vocabulary` argument or `set_vocabulary()` method.")
        single = isinstance(data, (np.ndarray, list, tuple, RaggedTensor)) or hasattr(data, "numpy") and \
            not hasattr(data, "element_spec")
        batches, _ = preprocessing_utils.adapt_batches(data, self.name, steps=steps)
        self._learn([doc for batch in batches for doc in self._documents(batch, one_token_per_doc=single)])

    def _learn(self, documents):
        """Set the vocabulary (and IDF weights) from documents, each a list of table keys."""
        counts = collections.Counter()
        doc_counts = collections.Counter()
        for doc in documents:
            counts.update(doc)
            doc_counts.update(set(doc))
        num_docs = len(documents)
        if not counts:
            self._frozen_vocab_size = self.vocabulary_size()
            return  # Keras keeps the table it had (none, on a fresh layer)
        for special in (self.mask_token, self.oov_token):
            if special is not None:
                counts.pop(self._key(special), None)
        # count descending, then token descending (Keras' lexsort reversed)
        tokens = sorted(counts, key=lambda t: (counts[t], t), reverse=True)
        if self.max_tokens:
            tokens = tokens[:self.max_tokens - self._token_start_index()]
        if not tokens:
            raise InvalidArgumentError(None, None, f"{type(self).__name__} {self.name!r}: adapt() found no tokens "
                                       f"besides the mask and OOV tokens; keys and values of the lookup table "
                                       f"cannot be empty.")
        self._set_tokens(tokens)
        self._adapted = True
        if self.output_mode == "tf_idf":
            idf = np.log(1 + num_docs / (1 + np.array([doc_counts[t] for t in tokens], dtype=np.float64)))
            idf = idf.astype(np.float32)
            front = np.full(self._token_start_index(), idf.mean() if idf.size else 0.0, dtype=np.float32)
            weights = np.concatenate([front, idf])
            if self.pad_to_max_tokens and self.max_tokens is not None:
                weights = np.concatenate([weights, np.zeros(self.max_tokens - weights.size, np.float32)])
            self.idf_weights = weights.astype(keras_config.floatx())

    def _documents(self, batch, one_token_per_doc):
        """The documents of one adapt batch, each a list of table keys."""
        if isinstance(batch, RaggedTensor):
            return [[self._key(v) for v in np.asarray(row, dtype=object).reshape(-1)] for row in batch.to_list()]
        arr = preprocessing_utils.numpy_of(batch)
        if arr.ndim == 0:
            arr = arr.reshape(1, 1)
        elif arr.ndim == 1:
            arr = arr.reshape(-1, 1) if one_token_per_doc else arr.reshape(1, -1)
        arr = arr.reshape(arr.shape[0], -1)
        return [[self._key(v) for v in row] for row in arr.tolist()]

    # -- lookups -----------------------------------------------------------------------------------
    def _lookup(self, flat):
        """Indices (or, inverted, tokens) of a flat object/int array of keys."""
        self._check_table()
        return self._lookup_keys(flat)

    def _check_table(self):
        """FailedPreconditionError (as TF's uninitialized table) before any vocabulary is set."""
        if not self._table_ready:
            hint = ("pass a `vocabulary` or call `adapt()` first" if not self._size_from_config else
                    f"the config says the vocabulary had {self._frozen_vocab_size} entries but holds none: Keras "
                    f"keeps adapted vocabularies in the assets/ folder of a '.keras' file, which "
                    f"tf.keras.models.load_model reads; otherwise call `set_vocabulary()`")
            raise FailedPreconditionError(None, None, f"{type(self).__name__} {self.name!r}: the lookup table is "
                                          f"not initialized; {hint}.")

    def _lookup_keys(self, flat):
        """The lookup itself: mask, vocabulary, then the OOV rule."""
        if self.invert:
            mask = self._maybe_key(self.mask_token)
            table = {i: t for t, i in self._index.items()}
            oov = self._maybe_key(self.oov_token)
            out = [mask if (self.mask_token is not None and int(i) == 0) else table.get(int(i), oov)
                   for i in flat]
            return np.array(out, dtype=object if self._string else np.int64)
        keys = [self._key(v) for v in flat]
        mask_key = self._maybe_key(self.mask_token)
        mask_value = 0 if self.output_mode == "int" else np.iinfo(np.int64).max
        out = np.empty(len(keys), dtype=np.int64)
        oov_positions = []
        for n, k in enumerate(keys):
            if self.mask_token is not None and k == mask_key:
                out[n] = mask_value
            elif k in self._index:
                out[n] = self._index[k]
            else:
                oov_positions.append(n)
        if oov_positions:
            if self.num_oov_indices == 0:
                raise InvalidArgumentError(None, None, f"{type(self).__name__} {self.name!r}: when "
                                           f"`num_oov_indices=0` all inputs should be in vocabulary, found OOV "
                                           f"values {[self._out(keys[n]) for n in oov_positions]}, consider "
                                           f"setting `num_oov_indices=1`.")
            start = self._oov_start_index()
            if self.num_oov_indices == 1:
                out[oov_positions] = start
            elif not self._string and self.oov_method != "farmhash":
                out[oov_positions] = np.mod(np.array([keys[n] for n in oov_positions]), self.num_oov_indices) + start
            else:
                text = [keys[n] if self._string else str(keys[n]).encode() for n in oov_positions]
                hashed = to_hash_bucket_fast(convert_to_tensor(np.array(text, dtype=object), dtypes.string),
                                             self.num_oov_indices).numpy()
                out[oov_positions] = hashed + start
        return out

    def _value_dtype(self):
        if self.invert:
            return dtypes.string if self._string else dtypes.as_dtype(self.vocabulary_dtype)
        return dtypes.int64

    @dispatch.add_dispatch_support  # works on raw arrays: one graph node when traced
    def call(self, inputs):
        if self.output_mode != "int" and not self.pad_to_max_tokens and self._frozen_vocab_size is None:
            raise RuntimeError(f"{type(self).__name__} {self.name!r}: when using `output_mode="
                               f"{self.output_mode}` and `pad_to_max_tokens=False`, you must set the layer's "
                               f"vocabulary before calling it. Either pass a `vocabulary` argument to the layer, "
                               f"or call `adapt` with some sample data.")
        self._called = True
        if isinstance(inputs, RaggedTensor):
            flat = preprocessing_utils.numpy_of(inputs.flat_values)
            ids = self._lookup(flat.reshape(-1)).reshape(flat.shape)
            if self.output_mode == "int":
                return inputs.with_flat_values(convert_to_tensor(ids, self._value_dtype()))
            rows = inputs.row_splits.numpy()
            depth = self._depth()
            out = np.stack([encode_categorical(ids[rows[i]:rows[i + 1]], self._encode_mode(), depth,
                                               dtype=np.int64) for i in range(len(rows) - 1)])
            return self._finish(out)
        arr = preprocessing_utils.numpy_of(inputs)
        if self._string and not self.invert and arr.dtype != object:
            raise TypeError(f"{type(self).__name__} {self.name!r}: expected string inputs, got {arr.dtype}.")
        if (self.invert or not self._string) and arr.dtype.kind not in "iu":
            raise TypeError(f"{type(self).__name__} {self.name!r}: expected integer inputs, got {arr.dtype}.")
        ids = self._lookup(arr.reshape(-1)).reshape(arr.shape)
        if self.output_mode == "int":
            return convert_to_tensor(ids, self._value_dtype())
        return self._finish(encode_categorical(ids, self._encode_mode(), self._depth(), dtype=np.int64))

    def _encode_mode(self):
        return "count" if self.output_mode == "tf_idf" else self.output_mode

    def _depth(self):
        return self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size

    def _finish(self, encoded):
        if self.output_mode == "tf_idf":
            if self.idf_weights is None:
                raise ValueError(f"{type(self).__name__} {self.name!r}: when `output_mode` is 'tf_idf', "
                                 f"`idf_weights` must be provided.")
            return convert_to_tensor(encoded.astype(self.idf_weights.dtype) * self.idf_weights)
        return convert_to_tensor(encoded, dtypes.int64)

    def compute_output_shape(self, input_shape):
        """The input shape ('int'), or the encoded shape with the vocabulary as depth."""
        return preprocessing_utils.encoded_shape(input_shape, self.output_mode, self._depth())

    def get_config(self):
        """Keras' keys; an adapted vocabulary (and IDF weights) are written in too, so the config
        alone rebuilds the layer."""
        config = super().get_config()
        vocab = self.input_vocabulary
        idf = self.input_idf_weights
        if vocab is None and self._tokens:
            vocab = self.get_vocabulary(include_special_tokens=False)
            if self.output_mode == "tf_idf" and self.idf_weights is not None:
                start = self._token_start_index()
                idf = self.idf_weights[start:start + len(self._tokens)].tolist()
        config.update({"invert": self.invert, "max_tokens": self.max_tokens,
                       "num_oov_indices": self.num_oov_indices, "oov_token": self.oov_token,
                       "mask_token": self.mask_token, "output_mode": self.output_mode, "sparse": self.sparse,
                       "pad_to_max_tokens": self.pad_to_max_tokens, "vocabulary_dtype": self.vocabulary_dtype,
                       "idf_weights": _listify(idf), "vocabulary": _listify(vocab),
                       "vocabulary_size": self._frozen_vocab_size, "oov_method": self.oov_method,
                       "salt": self.salt})
        return config


def _listify(value):
    if value is None:
        return None
    if hasattr(value, "numpy"):
        value = value.numpy()
    value = np.asarray(value).tolist() if not isinstance(value, list) else value
    return [v.decode("utf-8") if isinstance(v, bytes) else v for v in value]


@export("layers.StringLookup", "keras.layers.StringLookup")
class StringLookup(_IndexLookup):
    """Maps strings to integer indices from a vocabulary (or, with `invert=True`, indices back to
    strings), as Keras' StringLookup.

    Args:
        max_tokens: the largest vocabulary size, special tokens included (None: no limit).
        num_oov_indices: how many indices unknown tokens share (hashed); default 1.
        mask_token: a token that maps to 0 ('int' mode); None: no mask.
        oov_token: the token returned for unknown indices when inverting; default '[UNK]'.
        vocabulary: a list, array, tensor or file path of tokens; or learn it with `adapt`.
        idf_weights: IDF weights, one per token, for output_mode='tf_idf'.
        invert: map indices to tokens instead.
        output_mode: 'int' (default), 'one_hot', 'multi_hot', 'count' or 'tf_idf'.
        pad_to_max_tokens: make encoded outputs `max_tokens` wide.
        sparse: must be False in minitf.
        encoding: the text encoding of the tokens; default 'utf-8'.
    """

    _string = True

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]", vocabulary=None,
                 idf_weights=None, invert=False, output_mode="int", pad_to_max_tokens=False, sparse=False,
                 encoding="utf-8", name=None, salt=None, **kwargs):
        self.encoding = encoding
        self.vocabulary_dtype = "string"
        kwargs.pop("vocabulary_dtype", None)
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices, mask_token=mask_token,
                         oov_token=oov_token, vocabulary=vocabulary, idf_weights=idf_weights, invert=invert,
                         output_mode=output_mode, pad_to_max_tokens=pad_to_max_tokens, sparse=sparse, name=name,
                         salt=salt, **kwargs)

    def get_config(self):
        """IndexLookup's keys without vocabulary_dtype, plus encoding."""
        config = super().get_config()
        del config["vocabulary_dtype"]
        config["encoding"] = self.encoding
        return config


@export("layers.IntegerLookup", "keras.layers.IntegerLookup")
class IntegerLookup(_IndexLookup):
    """Maps integers to contiguous indices from a vocabulary (or back, with `invert=True`), as
    Keras' IntegerLookup. Unknown values share the OOV indices by floormod (or Fingerprint64 of
    their decimal text with oov_method='farmhash').

    Args:
        max_tokens, num_oov_indices, vocabulary, idf_weights, invert, output_mode,
        pad_to_max_tokens, sparse: as StringLookup.
        mask_token: an integer that maps to 0; None: no mask.
        oov_token: the value returned for unknown indices when inverting; default -1.
        vocabulary_dtype: 'int64' (default) or 'int32'.
        oov_method: 'floormod' (default) or 'farmhash'.
    """

    _string = False

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1, vocabulary=None,
                 vocabulary_dtype="int64", idf_weights=None, invert=False, output_mode="int", sparse=False,
                 pad_to_max_tokens=False, name=None, oov_method="floormod", salt=None, **kwargs):
        if vocabulary_dtype not in ("int32", "int64"):
            raise ValueError(f"IntegerLookup: the `vocabulary_dtype` argument must be 'int32' or 'int64'. "
                             f"Received: vocabulary_dtype={vocabulary_dtype}")
        self.vocabulary_dtype = vocabulary_dtype
        self.encoding = "utf-8"
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices, mask_token=mask_token,
                         oov_token=oov_token, vocabulary=vocabulary, idf_weights=idf_weights, invert=invert,
                         output_mode=output_mode, sparse=sparse, pad_to_max_tokens=pad_to_max_tokens, name=name,
                         oov_method=oov_method, salt=salt, **kwargs)

