"""tf.keras.utils.pad_sequences (also tf.keras.preprocessing.sequence.pad_sequences)."""
import numpy as np
from minitf.api_export import export

__all__ = ["pad_sequences"]


@export("utils.pad_sequences", "keras.utils.pad_sequences",
        "keras.preprocessing.sequence.pad_sequences")
def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre", value=0.0):
    """Pad (and cut) a list of sequences to one length: a numpy array (num_samples, maxlen, ...).

    Sequences shorter than `maxlen` get `value` added before them (`padding='pre'`, the default)
    or after ('post'); longer ones lose their first steps (`truncating='pre'`) or their last
    ('post'). Each step may itself be an array; all steps must share one shape.

    Args:
        sequences: A list of sequences (lists or arrays).
        maxlen: The output length (None: the longest sequence's length).
        dtype: The output dtype; use `object` for variable-length strings.
        padding: 'pre' or 'post'.
        truncating: 'pre' or 'post'.
        value: The padding value.

    Returns:
        A numpy array of shape (len(sequences), maxlen) + step shape.

    Raises:
        ValueError: `sequences` is not a list of iterables, steps of different shapes, a string
            `value` with a non-string dtype, or an unknown padding/truncating.
    """
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    num_samples = len(sequences)
    lengths = []
    sample_shape = ()
    found_shape = False
    for x in sequences:
        try:
            lengths.append(len(x))
        except TypeError as e:
            raise ValueError(f"`sequences` must be a list of iterables. Found non-iterable: {x}") from e
        # the step shape comes from the first non-empty sequence and is checked on all others
        if not found_shape and len(x):
            sample_shape = np.asarray(x).shape[1:]
            found_shape = True
    if maxlen is None:
        maxlen = int(np.max(lengths)) if lengths else 0
    is_dtype_str = np.issubdtype(dtype, np.str_) or np.issubdtype(dtype, np.bytes_)
    if isinstance(value, str) and dtype is not object and not is_dtype_str:
        raise ValueError(f"`dtype` {dtype} is not compatible with `value`'s type: {type(value)}\n"
                         "You should set `dtype=object` for variable length strings.")
    if padding not in ("pre", "post"):
        raise ValueError(f'Padding type "{padding}" not understood')
    if truncating not in ("pre", "post"):
        raise ValueError(f'Truncating type "{truncating}" not understood')
    x = np.full((num_samples, maxlen) + sample_shape, value, dtype=dtype)
    for idx, s in enumerate(sequences):
        if not len(s) or maxlen == 0:
            continue
        trunc = s[-maxlen:] if truncating == "pre" else s[:maxlen]
        trunc = np.asarray(trunc, dtype=dtype)
        if trunc.shape[1:] != sample_shape:
            raise ValueError(f"Shape of sample {trunc.shape[1:]} of sequence at position {idx} is different "
                             f"from expected shape {sample_shape}")
        if padding == "post":
            x[idx, :len(trunc)] = trunc
        else:
            x[idx, -len(trunc):] = trunc
    return x
