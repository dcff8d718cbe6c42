"""Checkpoint save+restore of 10M float32 parameters plus Adam slots, vs plain h5py.

minitf's save is atomic (fresh temp file, fsync, rename, directory fsync; the replaced file is
freed on a background thread) and its restore validates every value before assigning. The
baseline writes the same arrays with bare h5py over one file (truncated in place) and reads them
back; it is reported twice: without any fsync, and with an fsync of the written file, which is
the durability minitf's save pays for. Each run takes the best of 3; the ratios of several runs
are printed with their median and spread.
Run: python benchmarks/bench_checkpoint.py [runs]

`formats` mode: the README's MLP (784-512-512-10) and CNN (Conv32-Conv64-Pool-Dense128-10) with
their Adam slots, saved and restored three ways: minitf in TF's format (the default since issue
26: '.index' + '.data-00000-of-00001', every tensor CRC-32C'd), minitf's older HDF5 format, and
TensorFlow 2.21 itself (in a worker process, so TF's threads and allocator stay out of minitf's
way). The three alternate within each round, rounds repeat, and each figure is the median with
its spread over the rounds (each a best of 3).
Run: python benchmarks/bench_checkpoint.py formats [rounds]
"""
import json
import os
import subprocess
import statistics
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


def _keras_model(lib, kind):
    L = lib.keras.layers
    if kind == "mlp":
        return lib.keras.Sequential([lib.keras.Input((784,)), L.Dense(512, activation="relu"),
                                     L.Dense(512, activation="relu"), L.Dense(10)])
    return lib.keras.Sequential([lib.keras.Input((28, 28, 1)), L.Conv2D(32, 3, activation="relu"),
                                 L.Conv2D(64, 3, activation="relu"), L.MaxPooling2D(), L.Flatten(),
                                 L.Dense(128, activation="relu"), L.Dense(10)])


def _checkpoint(lib, kind):
    """A Checkpoint of `kind`'s model and a built Adam (slots made), and its size in bytes."""
    model = _keras_model(lib, kind)
    opt = lib.keras.optimizers.Adam()
    opt.build(model.trainable_variables)
    ckpt = lib.train.Checkpoint(model=model, optimizer=opt)
    ckpt.save_counter  # noqa: B018 (made now, so write() and read() cover the same variables)
    nbytes = sum(int(np.prod(v.shape)) * 4 for v in list(model.weights) + list(opt.variables))
    return ckpt, nbytes


def _save_restore(write, read, directory, name="c"):
    prefix = os.path.join(directory, name)
    return {"save": best(lambda: write(prefix)), "restore": best(lambda: read(prefix))}


def _tf_worker():
    """Answer 'mlp' / 'cnn' lines on stdin with TF 2.21's save and restore times (JSON)."""
    import tensorflow as real_tf
    made = {kind: _checkpoint(real_tf, kind)[0] for kind in ("mlp", "cnn")}
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as d:
        for line in sys.stdin:
            ckpt = made[line.strip()]
            times = _save_restore(ckpt.write, lambda p: ckpt.read(p).assert_consumed(), d,
                                  line.strip())
            print(json.dumps(times), flush=True)


def formats(rounds=5):
    """minitf's TF format vs its older HDF5 format vs TF 2.21, on the README's MLP and CNN."""
    from minitf.checkpoint.checkpoint import write_hdf5
    from minitf.ops import crc32c
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    worker = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--tf-worker"], env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    made = {kind: _checkpoint(tf, kind) for kind in ("mlp", "cnn")}
    results = {(kind, way): [] for kind in made for way in ("tf-format", "hdf5", "tensorflow")}
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as d:
        for r in range(rounds):
            for kind, (ckpt, _) in made.items():
                ways = ["tf-format", "hdf5", "tensorflow"]
                for way in ways[r % 3:] + ways[:r % 3]:  # alternate who goes first
                    if way == "tf-format":
                        times = _save_restore(ckpt.write, lambda p: ckpt.read(p).assert_consumed(), d,
                                              f"{kind}-tf")
                    elif way == "hdf5":
                        times = _save_restore(lambda p: write_hdf5(ckpt, p),
                                              lambda p: ckpt.read(p).assert_consumed(), d, f"{kind}-h5")
                    else:
                        worker.stdin.write(kind + "\n")
                        worker.stdin.flush()
                        times = json.loads(worker.stdout.readline())
                    results[(kind, way)].append(times)
    worker.stdin.close()
    worker.wait()
    print(f"checkpoint save / restore, {rounds} rounds (best of 3 each), median (min-max) ms; "
          f"CRC-32C by {crc32c.implementation}")
    for kind, (_, nbytes) in made.items():
        print(f"  {kind} ({nbytes / 1e6:.1f} MB with Adam's slots)")
        for way in ("tf-format", "hdf5", "tensorflow"):
            cells = []
            for op in ("save", "restore"):
                ms = [t[op] * 1e3 for t in results[(kind, way)]]
                cells.append(f"{op} {statistics.median(ms):6.1f} ({min(ms):.1f}-{max(ms):.1f})")
            print(f"    {way:11s} " + "   ".join(cells))
        for base in ("hdf5", "tensorflow"):
            for op in ("save", "restore"):
                ratios = [a[op] / b[op] for a, b in zip(results[(kind, "tf-format")], results[(kind, base)])]
                print(f"    tf-format / {base:10s} {op:7s} {_spread(ratios)}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--tf-worker"]:
        _tf_worker()
    elif sys.argv[1:2] == ["formats"]:
        formats(int(sys.argv[2]) if len(sys.argv) > 2 else 5)
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
