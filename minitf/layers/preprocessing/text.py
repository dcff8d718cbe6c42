"""TextVectorization: strings -> standardized -> split -> n-grams -> vocabulary indices or counts.

The steps follow Keras 3: the standardization uses tf.strings.lower (ASCII) and Keras' punctuation
regex; 'whitespace' splitting is tf.strings.split; the vocabulary lives in an inner StringLookup
whose mask token is '' (index 0 pads 'int' outputs). minitf has no tf.strings.ngrams or
unicode_split; the character split and n-gram joining are written here.
"""
import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.layers.preprocessing import utils as preprocessing_utils
from minitf.layers.base import Layer
from minitf.layers.preprocessing.lookup import StringLookup
from minitf.layers.preprocessing.numeric import encode_categorical
from minitf.ops import string_ops
from minitf.ragged import string_ops as ragged_string_ops
from minitf.ops.constant import convert_to_tensor
from minitf.ragged.ragged_tensor import RaggedTensor
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["TextVectorization"]

_STRIP_REGEX = r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']'
_STANDARDIZE = ("lower_and_strip_punctuation", "lower", "strip_punctuation")
_SPLIT = ("whitespace", "character")


def _ngrams(tokens, widths):
    """TF's string n-grams of one row: every width in turn, tokens joined by a space."""
    out = []
    for n in widths:
        out.extend(b" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
    return out


def _rows(value):
    """A split result (RaggedTensor, tensor or list of lists) as a list of lists of bytes."""
    if isinstance(value, RaggedTensor):
        return [[t if isinstance(t, bytes) else str(t).encode() for t in row] for row in value.to_list()]
    arr = preprocessing_utils.numpy_of(value)
    return [list(row) for row in arr.reshape(arr.shape[0], -1)] if arr.ndim else [[arr.item()]]


@export("layers.TextVectorization", "keras.layers.TextVectorization")
class TextVectorization(Layer):
    """Turns a batch of strings into token indices ('int'), or multi-hot, count or TF-IDF vectors,
    as Keras' TextVectorization.

    Args:
        max_tokens: the largest vocabulary size, the padding '' and OOV '[UNK]' tokens included.
        standardize: 'lower_and_strip_punctuation' (default), 'lower', 'strip_punctuation', None, or
            a callable from a string tensor to a string tensor.
        split: 'whitespace' (default), 'character', None, or a callable from strings to a
            RaggedTensor of tokens.
        ngrams: None, an int n (all 1..n-grams) or a tuple of widths.
        output_mode: 'int' (default), 'multi_hot', 'count' or 'tf_idf'.
        output_sequence_length: in 'int' mode, pad with 0 or truncate every row to this length
            (otherwise rows are padded to the longest one).
        pad_to_max_tokens: make encoded outputs `max_tokens` wide.
        vocabulary: a list or file of tokens; or learn it with `adapt`.
        idf_weights: IDF weights for 'tf_idf' with a given vocabulary.
        sparse: must be False in minitf.
        ragged: in 'int' mode, return a RaggedTensor instead of padding.
        encoding: the text encoding; default 'utf-8'.
    """

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation", split="whitespace", ngrams=None,
                 output_mode="int", output_sequence_length=None, pad_to_max_tokens=False, vocabulary=None,
                 idf_weights=None, sparse=False, ragged=False, encoding="utf-8", name=None, **kwargs):
        vocabulary_size = kwargs.pop("vocabulary_size", None)
        kwargs.pop("has_input_vocabulary", None)
        kwargs.setdefault("autocast", False)
        super().__init__(name=name, **kwargs)
        if not (standardize is None or callable(standardize) or standardize in _STANDARDIZE):
            raise ValueError(f"TextVectorization {self.name!r}: the `standardize` argument must be one of "
                             f"{_STANDARDIZE}, None or a callable. Received: standardize={standardize}")
        if not (split is None or callable(split) or split in _SPLIT):
            raise ValueError(f"TextVectorization {self.name!r}: the `split` argument must be one of {_SPLIT}, "
                             f"None or a callable. Received: split={split}")
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in ("int", "one_hot", "multi_hot", "count", "tf_idf"):
            raise ValueError(f"TextVectorization {self.name!r}: the `output_mode` argument must be one of "
                             f"('int', 'one_hot', 'multi_hot', 'count', 'tf_idf'). Received: "
                             f"output_mode={output_mode}")
        if isinstance(ngrams, list):
            ngrams = tuple(ngrams)
        if not (ngrams is None or isinstance(ngrams, int) or
                isinstance(ngrams, tuple) and all(isinstance(i, int) for i in ngrams)):
            raise ValueError(f"TextVectorization {self.name!r}: `ngrams` must be None, an integer, or a tuple "
                             f"of integers. Received: ngrams={ngrams}")
        if output_mode == "int" and not (output_sequence_length is None or isinstance(output_sequence_length, int)):
            raise ValueError(f"TextVectorization {self.name!r}: `output_sequence_length` must be either None or "
                             f"an integer when `output_mode` is 'int'. Received: "
                             f"output_sequence_length={output_sequence_length}")
        if output_mode != "int" and output_sequence_length is not None:
            raise ValueError(f"TextVectorization {self.name!r}: `output_sequence_length` must not be set if "
                             f"`output_mode` is not 'int'. Received output_sequence_length="
                             f"{output_sequence_length}.")
        if ragged and output_mode != "int":
            raise ValueError(f"TextVectorization {self.name!r}: `ragged` must not be true if `output_mode` is "
                             f"'{output_mode}'. `ragged=True` is only supported in 'int' mode.")
        self._standardize = standardize
        self._split = split
        self._ngrams_arg = ngrams
        self._ngrams = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else ngrams
        self._ragged = ragged
        self._output_mode = output_mode
        self._output_sequence_length = output_sequence_length
        self._encoding = encoding
        self._lookup_layer = StringLookup(max_tokens=max_tokens, vocabulary=vocabulary, idf_weights=idf_weights,
                                          pad_to_max_tokens=pad_to_max_tokens, mask_token="",
                                          output_mode=output_mode, sparse=sparse, encoding=encoding,
                                          vocabulary_size=vocabulary_size, name=f"{self.name}_lookup")

    # -- the text pipeline ----------------------------------------------------------------------------
    def _preprocess(self, inputs):
        """(rows of token bytes, or a dense array of tokens when split is None; was it a scalar)."""
        if isinstance(inputs, RaggedTensor):
            return _rows(inputs), False
        if isinstance(inputs, (list, tuple)) and inputs and all(isinstance(v, RaggedTensor) for v in inputs):
            inputs = preprocessing_utils.numpy_of([v.to_list() for v in inputs])
        x = inputs if isinstance(inputs, Tensor) else convert_to_tensor(preprocessing_utils.numpy_of(inputs), dtypes.string)
        if x.dtype != dtypes.string:
            raise TypeError(f"TextVectorization {self.name!r}: expected string inputs, got {x.dtype.name}.")
        if self._standardize in ("lower", "lower_and_strip_punctuation"):
            x = string_ops.lower(x)
        if self._standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
            x = string_ops.regex_replace(x, _STRIP_REGEX, "")
        if callable(self._standardize):
            x = self._standardize(x)
        if self._split is None:
            arr = preprocessing_utils.numpy_of(x)
            if self._ngrams is not None:
                raise ValueError(f"TextVectorization {self.name!r}: ngrams need split tokens; set `split`.")
            return arr, False
        scalar = len(x.shape) == 0
        if scalar:
            x = convert_to_tensor(preprocessing_utils.numpy_of(x).reshape(1), dtypes.string)
        if len(x.shape) > 1:
            if x.shape[-1] != 1:
                raise ValueError(f"TextVectorization {self.name!r}: when using `TextVectorization` to tokenize "
                                 f"strings, the input rank must be 1 or the last shape dimension must be 1. "
                                 f"Received: inputs.shape={tuple(x.shape)} with rank={len(x.shape)}")
            x = convert_to_tensor(preprocessing_utils.numpy_of(x)[..., 0], dtypes.string)
        if self._split == "whitespace":
            rows = _rows(ragged_string_ops.split(x))
        elif self._split == "character":
            rows = [[c.encode("utf-8") for c in s.decode("utf-8", errors="replace")] for s in preprocessing_utils.numpy_of(x)]
        else:
            rows = _rows(self._split(x))
        if self._ngrams is not None:
            rows = [_ngrams(row, self._ngrams) for row in rows]
        return rows, scalar

    @preprocessing_utils.adapts_when_run()
    def adapt(self, data, batch_size=None, steps=None):
        """Learn the vocabulary (and IDF weights) from strings: an array or list (one document per
        string), a tensor, a tf.data.Dataset of batches or an iterable of batches."""
        lookup = self._lookup_layer
        if lookup.input_vocabulary is not None:
            raise ValueError(f"TextVectorization {self.name!r}: cannot adapt the layer after setting a static "
                             f"vocabulary via `vocabulary` argument or `set_vocabulary()` method.")
        batches, _ = preprocessing_utils.adapt_batches(data, self.name, steps=steps)
        documents = []
        for batch in batches:
            if not isinstance(batch, RaggedTensor) and preprocessing_utils.numpy_of(batch).ndim == 0:
                batch = preprocessing_utils.numpy_of(batch).reshape(1)
            rows, _ = self._preprocess(batch)
            if self._split is None:
                rows = [[t] for t in np.asarray(rows).reshape(-1)] if np.ndim(rows) <= 1 else \
                    [list(r) for r in np.asarray(rows).reshape(np.shape(rows)[0], -1)]
            documents.extend(rows)
        lookup._learn(documents)

    @dispatch.add_dispatch_support  # works on raw arrays: one graph node when traced
    def call(self, inputs):
        lookup = self._lookup_layer
        rows, scalar = self._preprocess(inputs)
        if self._split is None:
            return lookup.call(convert_to_tensor(rows, dtypes.string))
        lookup._called = True
        if self._output_mode != "int" and lookup._depth() is None:
            lookup.call(convert_to_tensor(np.zeros(0, object), dtypes.string))  # raises Keras' error
        lookup._check_table()
        flat = [t for row in rows for t in row]
        ids = lookup._lookup(flat) if flat else np.zeros(0, np.int64)
        splits = np.cumsum([0] + [len(row) for row in rows])
        id_rows = [ids[splits[i]:splits[i + 1]] for i in range(len(rows))]
        if self._output_mode != "int":
            depth = lookup._depth()
            out = np.stack([encode_categorical(r, lookup._encode_mode(), depth, dtype=np.int64) for r in id_rows]) \
                if id_rows else np.zeros((0, depth), np.int64)
            result = lookup._finish(out)
            return convert_to_tensor(result.numpy()[0]) if scalar else result
        if self._ragged:
            rt = RaggedTensor.from_row_splits(convert_to_tensor(ids.astype(np.int64)),
                                              convert_to_tensor(splits.astype(np.int64)))
            return rt[0] if scalar else rt
        length = self._output_sequence_length
        if length is None:
            length = max((len(r) for r in id_rows), default=0)
        dense = np.zeros((len(id_rows), length), np.int64)
        for i, r in enumerate(id_rows):
            r = r[:length]
            dense[i, :len(r)] = r
        return convert_to_tensor(dense[0] if scalar else dense)

    # -- vocabulary ---------------------------------------------------------------------------------
    def get_vocabulary(self, include_special_tokens=True):
        """The vocabulary in index order ('' and '[UNK]' first unless include_special_tokens=False)."""
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self):
        """The vocabulary size, padding and OOV tokens included."""
        return self._lookup_layer.vocabulary_size()

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Replace the vocabulary (and IDF weights in 'tf_idf' mode)."""
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights=idf_weights)

    def load_assets(self, dir_path):
        """Read the vocabulary Keras 3 keeps in a `.keras` file's assets for an adapted layer."""
        self._lookup_layer.load_assets(dir_path)

    def _keras_extra_weights(self):
        """The inner lookup's 'idf_weights' ('tf_idf' mode), which Keras 3 also stores in this
        layer's own weights group."""
        return self._lookup_layer._keras_extra_weights()

    def _load_keras_extra_weights(self, values):
        """Give the inner lookup the 'idf_weights' stored in this layer's weights group."""
        self._lookup_layer._load_keras_extra_weights(values)

    def compute_output_shape(self, input_shape):
        """(batch, output_sequence_length) in 'int' mode, else (batch, vocabulary size)."""
        shape = TensorShape(input_shape).as_list()
        batch = shape[0] if shape else None
        if self._output_mode == "int":
            return TensorShape([batch, self._output_sequence_length])
        return TensorShape([batch, self._lookup_layer._depth()])

    def get_config(self):
        """Keras' keys; an adapted vocabulary (and IDF weights) are written in too."""
        config = super().get_config()
        lookup_config = self._lookup_layer.get_config()
        config.update({"max_tokens": self._lookup_layer.max_tokens, "standardize": self._standardize,
                       "split": self._split,
                       "ngrams": self._ngrams_arg, "output_mode": self._output_mode,
                       "output_sequence_length": self._output_sequence_length,
                       "pad_to_max_tokens": self._lookup_layer.pad_to_max_tokens,
                       "sparse": self._lookup_layer.sparse, "ragged": self._ragged,
                       "vocabulary": lookup_config["vocabulary"],
                       "idf_weights": lookup_config["idf_weights"], "encoding": self._encoding,
                       "vocabulary_size": self.vocabulary_size()})
        return config

