"""The order of `Dataset.shuffle`, as TF's ShuffleDataset kernel makes it, so a seeded pipeline
visits its elements in TF's order.

TF seeds a shuffle with the pair (seed, seed2) from `get_seed`. When it reshuffles each
iteration, a seed generator (Philox under that pair) hands the k-th iterator of the dataset its
own pair: samples 2k and 2k+1 of the generator's uint32 stream. The iterator then draws one
uint32 per element from Philox under its pair: the element leaving the buffer is the one at
`draw % n` among the n buffered (oldest first); the oldest takes its place and the buffer refills
at the back. Philox(seed, seed2) means key `seed` and a counter starting at (0, seed2) (64-bit
halves, low first), each block giving four samples in order.
"""
import numpy as np

from minitf.ops import philox
from minitf.ops.random import get_seed

__all__ = ["seed_pair", "pack", "unpack", "iteration_seeds", "Draws", "buffered_shuffle"]

_MASK32 = 0xFFFFFFFF


def seed_pair(op_seed):
    """TF's (seed, seed2) for a shuffle with `op_seed`: from `get_seed`, or fresh entropy when
    neither the global nor the op seed is set (TF draws random seeds then too)."""
    seed, seed2 = get_seed(op_seed)
    if seed is None:
        entropy = np.random.SeedSequence().generate_state(2)
        return int(entropy[0]) >> 1, int(entropy[1])
    return seed, seed2


def pack(seed, seed2):
    """The pair as one non-negative int64 (an iterator checkpoints it in an int64 Variable);
    `seed` is below 2**31, as `get_seed`'s seeds are."""
    return (int(seed) << 32) | (int(seed2) & _MASK32)


def unpack(packed):
    """The pair packed by `pack`."""
    packed = int(packed)
    return packed >> 32, packed & _MASK32


def iteration_seeds(seed, seed2, index):
    """The pair TF's seed generator under (seed, seed2) gives the `index`-th iterator (0-based)."""
    words = philox.stream(seed, (0, seed2), 1, (2 * index) // 4)
    first = (2 * index) % 4
    return int(words[first][0]), int(words[first + 1][0])


class Draws:
    """The uint32 samples of Philox(seed, seed2), one at a time, computed a batch of blocks ahead."""

    def __init__(self, seed, seed2):
        self._key = int(seed)
        self._counter = (0, int(seed2))
        self._block = 0
        self._batch = 16
        self._words = []
        self._next = 0

    def __call__(self):
        if self._next == len(self._words):
            out = philox.blocks(self._key, self._counter, self._batch, self._block)
            self._block += self._batch
            self._batch = min(self._batch * 2, 4096)
            self._words = out.reshape(-1).tolist()
            self._next = 0
        word = self._words[self._next]
        self._next += 1
        return word


def buffered_shuffle(elements, buffer_size, draws):
    """Yield `elements` in TF's shuffle order through a buffer of `buffer_size`, drawing from
    `draws` (a `Draws`)."""
    buffer, head = [], 0  # the buffered elements are buffer[head:], oldest first
    source = iter(elements)
    exhausted = False
    while True:
        while not exhausted and len(buffer) - head < buffer_size:
            try:
                buffer.append(next(source))
            except StopIteration:
                exhausted = True
        count = len(buffer) - head
        if count == 0:
            return
        index = head + draws() % count
        out = buffer[index]
        buffer[index] = buffer[head]
        buffer[head] = None
        head += 1
        if head >= 1024 and 2 * head >= len(buffer):  # drop the emptied front
            del buffer[:head]
            head = 0
        yield out
