"""tf.keras.utils.timeseries_dataset_from_array: sliding windows over an array, as a tf.data.Dataset."""
import numpy as np

from minitf.convert import convert_to_tensor
from minitf.data.dataset import AUTOTUNE, Dataset
from minitf.ops.gather import gather
from minitf.api_export import export

__all__ = ["timeseries_dataset_from_array"]


def _check_args(data, start_index, end_index, sampling_rate, sequence_stride):
    """Keras' argument checks, with its messages."""
    if start_index:
        if start_index < 0:
            raise ValueError(f"`start_index` must be 0 or greater. Received: start_index={start_index}")
        if start_index >= len(data):
            raise ValueError(f"`start_index` must be lower than the length of the data. Received: "
                             f"start_index={start_index}, for data of length {len(data)}")
    if end_index:
        if start_index and end_index <= start_index:
            raise ValueError(f"`end_index` must be higher than `start_index`. Received: "
                             f"start_index={start_index}, and end_index={end_index} ")
        if end_index >= len(data):
            raise ValueError(f"`end_index` must be lower than the length of the data. Received: "
                             f"end_index={end_index}, for data of length {len(data)}")
        if end_index <= 0:
            raise ValueError(f"`end_index` must be higher than 0. Received: end_index={end_index}")
    if sampling_rate <= 0:
        raise ValueError(f"`sampling_rate` must be higher than 0. Received: sampling_rate={sampling_rate}")
    if sampling_rate >= len(data):
        raise ValueError(f"`sampling_rate` must be lower than the length of the data. Received: "
                         f"sampling_rate={sampling_rate}, for data of length {len(data)}")
    if sequence_stride <= 0:
        raise ValueError(f"`sequence_stride` must be higher than 0. Received: sequence_stride={sequence_stride}")
    if sequence_stride >= len(data):
        raise ValueError(f"`sequence_stride` must be lower than the length of the data. Received: "
                         f"sequence_stride={sequence_stride}, for data of length {len(data)}")


@export("utils.timeseries_dataset_from_array", "keras.preprocessing.timeseries_dataset_from_array",
        "keras.utils.timeseries_dataset_from_array")
def timeseries_dataset_from_array(data, targets, sequence_length, sequence_stride=1, sampling_rate=1,
                                  batch_size=128, shuffle=False, seed=None, start_index=None, end_index=None,
                                  format="tf"):  # noqa: A002
    """A dataset of windows over `data`: window i holds `data[p + j * sampling_rate]` for
    j < `sequence_length`, starting at p = start_index + i * sequence_stride.

    With `targets`, each window is paired with `targets[p]` (its first step's index), so for
    next-step prediction pass `targets=data[sequence_length:]`.

    Args:
        data: An array (or list) of timesteps along axis 0.
        targets: Values for each start index, or None for windows alone.
        sequence_length: Steps per window.
        sequence_stride: Steps between the starts of consecutive windows.
        sampling_rate: Steps between the timesteps taken inside a window.
        batch_size: Windows per batch (None: single windows).
        shuffle: Shuffle the windows' order (numpy's RandomState(seed), then a buffer shuffle).
        seed: The shuffle's seed.
        start_index, end_index: Only use `data[start_index:end_index]`.
        format: 'tf' only (Keras' 'grain' is not available).

    Returns:
        A `tf.data.Dataset` of windows, or of (windows, targets) pairs.

    Raises:
        ValueError: Out-of-range indices, strides or rates (Keras' checks).
    """
    _check_args(data, start_index, end_index, sampling_rate, sequence_stride)
    if format != "tf":
        raise ValueError(f"`format` should be \"tf\" (minitf has no grain support). Received: format={format}")
    start_index = start_index or 0
    end_index = len(data) if end_index is None else end_index
    num_seqs = end_index - start_index - (sequence_length - 1) * sampling_rate
    if targets is not None:
        num_seqs = min(num_seqs, len(targets))
    index_dtype = "int32" if num_seqs < 2147483647 else "int64"
    start_positions = np.arange(0, num_seqs, sequence_stride, dtype=index_dtype)
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(start_positions)
    # converted once with TF's rules (a list of floats becomes float32, an array keeps its dtype)
    steps = convert_to_tensor(data[start_index:end_index])
    offsets = np.arange(0, sequence_length * sampling_rate, sampling_rate, dtype=index_dtype)

    def window(i):
        return gather(steps, start_positions[int(i)] + offsets)

    dataset = Dataset.range(len(start_positions)).map(window, num_parallel_calls=AUTOTUNE)
    if targets is not None:
        target_values = convert_to_tensor(targets[start_index:end_index])
        target_ds = Dataset.range(len(start_positions)).map(
            lambda i: gather(target_values, start_positions[int(i)]), num_parallel_calls=AUTOTUNE)
        dataset = Dataset.zip((dataset, target_ds))
    dataset = dataset.prefetch(AUTOTUNE)
    if batch_size is not None:
        if shuffle:
            dataset = dataset.shuffle(buffer_size=batch_size * 8, seed=seed)
        return dataset.batch(batch_size)
    if shuffle:
        dataset = dataset.shuffle(buffer_size=1024, seed=seed)
    return dataset
