"""Checkpoint save+restore of 10M float32 parameters plus Adam slots, vs plain h5py.

minitf's save is atomic (fresh temp file, fsync, rename, directory fsync; the replaced file is
freed on a background thread) and its restore validates every value before assigning. The
baseline writes the same arrays with bare h5py over one file (truncated in place) and reads them
back; it is reported twice: without any fsync, and with an fsync of the written file, which is
the durability minitf's save pays for. Each run takes the best of 3; the ratios of several runs
are printed with their median and spread.
Run: python benchmarks/bench_checkpoint.py [runs]
"""
import os
import sys
import tempfile
import time

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import minitf as tf  # noqa: E402

SHAPES = [(2000, 2500), (2500, 1600), (1000,), (1000, 1000)]  # 10M parameters


class Model(tf.Module):
    """Four float32 variables, 10M parameters in all."""

    def __init__(self, rng):
        super().__init__()
        self.weights = [tf.Variable(rng.normal(size=s).astype(np.float32)) for s in SHAPES]


def build():
    rng = np.random.default_rng(0)
    model = Model(rng)
    opt = tf.optimizers.Adam()
    opt.build(model.weights)
    return model, opt


def best(fn, repeats=3):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def one_run(ckpt, arrays, directory):
    """Best-of-3 seconds: minitf save, restore; h5py write, write+fsync, read."""
    prefix = os.path.join(directory, "ckpt")
    plain = os.path.join(directory, "plain.h5")

    def plain_write(sync=False):
        with h5py.File(plain, "w") as f:
            for i, a in enumerate(arrays):
                f.create_dataset(str(i), data=a)
        if sync:
            fd = os.open(plain, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

    def plain_read():
        with h5py.File(plain, "r") as f:
            return [f[str(i)][...] for i in range(len(arrays))]
    return {"save": best(lambda: ckpt.write(prefix)),
            "restore": best(lambda: ckpt.restore(prefix).assert_consumed()),
            "h5_write": best(plain_write),
            "h5_write_fsync": best(lambda: plain_write(sync=True)),
            "h5_read": best(plain_read)}


def _spread(values):
    values = sorted(values)
    return f"median {values[len(values) // 2]:.2f} (min {values[0]:.2f}, max {values[-1]:.2f})"


def main(runs=5):
    model, opt = build()
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    ckpt.save_counter  # noqa: B018 (made lazily, as in TF: write() alone would not save it)
    arrays = [v._value for v in model.weights] + [s._value for _, _, s in opt._slot_vars]
    megabytes = sum(a.nbytes for a in arrays) / 1e6
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as d:
        results = [one_run(ckpt, arrays, d) for _ in range(runs)]
    print(f"checkpoint of {megabytes:.0f} MB (10M params + Adam m, v), {runs} runs, best of 3 each")
    last = results[-1]
    print(f"  last run MB/s: minitf save {megabytes / last['save']:.0f}, restore "
          f"{megabytes / last['restore']:.0f}; h5py write {megabytes / last['h5_write']:.0f}, "
          f"write+fsync {megabytes / last['h5_write_fsync']:.0f}, read "
          f"{megabytes / last['h5_read']:.0f}")
    ratios = {
        "save / h5py write (no fsync)": [r["save"] / r["h5_write"] for r in results],
        "save / h5py write + fsync": [r["save"] / r["h5_write_fsync"] for r in results],
        "restore / h5py read": [r["restore"] / r["h5_read"] for r in results],
        "save+restore / h5py (no fsync)": [(r["save"] + r["restore"]) / (r["h5_write"] + r["h5_read"])
                                           for r in results],
        "save+restore / h5py (fsync)": [(r["save"] + r["restore"]) /
                                        (r["h5_write_fsync"] + r["h5_read"]) for r in results],
    }
    print("  time ratios minitf/h5py (lower is better):")
    for name, values in ratios.items():
        print(f"    {name:32s} {_spread(values)}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
