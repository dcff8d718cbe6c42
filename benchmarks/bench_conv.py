"""Single 2-D convolutions, pass by pass: minitf's CPU kernels against TF 2.21 (and an older
minitf), on the shapes of the tutorials' steps.

Shapes: the DCGAN train_step's three geometries (batch 64: 5x5 'same' stride 2 1->64 on 28x28
and 64->128 on 14x14, both also its generator's stride-2 Conv2DTranspose, and the 5x5 stride-1
256<->128 on 7x7) and the DeepDream InceptionV3 prefix (batch 1, a 96x96 image: 1x1, 3x3
stride 1/2 'valid'/'same', 5x5, 1x7/7x1). Passes: forward (Conv2D), input gradient
(Conv2DBackpropInput, also Conv2DTranspose's forward) and filter gradient
(Conv2DBackpropFilter). TF runs `tf.nn.conv2d` / `tf.raw_ops.Conv2DBackprop*` under a
`tf.function`; minitf runs its kernel (`minitf.kernels.numpy`) on raw arrays.

Each contender runs in its own process, one thread (MINITF_NUM_THREADS, OPENBLAS_NUM_THREADS,
TF intra/inter-op 1); rounds alternate the contenders' order, and every figure is the CPU time
per call (time.process_time, so other processes' load does not count) as the median over the
rounds, with the spread (min-max).

    python benchmarks/bench_conv.py [--tf-python .venv-tf/bin/python] [--baseline DIR]
        [--sets dcgan deepdream] [--passes forward input filter] [--rounds 5] [--only REGEX]
    python benchmarks/bench_conv.py --stack   # the older Conv2D(32,3)->Conv2D(64,3) step

`--minitf DIR` times the minitf found at DIR (default: this checkout); `--baseline DIR` adds
the minitf found at DIR (e.g. `git archive HEAD minitf | tar -x -C DIR`)
as a contender. Unset OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE in the command that runs this.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# (name, input shape NHWC, filter shape [KH, KW, C, F], stride, padding)
SETS = {
    "dcgan": [
        ("dcgan 5x5/2 same 1->64 28x28", (64, 28, 28, 1), (5, 5, 1, 64), 2, "SAME"),
        ("dcgan 5x5/2 same 64->128 14x14", (64, 14, 14, 64), (5, 5, 64, 128), 2, "SAME"),
        ("dcgan 5x5/1 same 128->256 7x7", (64, 7, 7, 128), (5, 5, 128, 256), 1, "SAME"),
    ],
    "deepdream": [
        ("dd 3x3/2 valid 3->32 96x96", (1, 96, 96, 3), (3, 3, 3, 32), 2, "VALID"),
        ("dd 3x3/1 valid 32->32 47x47", (1, 47, 47, 32), (3, 3, 32, 32), 1, "VALID"),
        ("dd 3x3/1 same 32->64 45x45", (1, 45, 45, 32), (3, 3, 32, 64), 1, "SAME"),
        ("dd 1x1 64->80 22x22", (1, 22, 22, 64), (1, 1, 64, 80), 1, "VALID"),
        ("dd 3x3/1 valid 80->192 22x22", (1, 22, 22, 80), (3, 3, 80, 192), 1, "VALID"),
        ("dd 1x1 288->64 9x9", (1, 9, 9, 288), (1, 1, 288, 64), 1, "VALID"),
        ("dd 5x5/1 same 48->64 9x9", (1, 9, 9, 48), (5, 5, 48, 64), 1, "SAME"),
        ("dd 3x3/1 same 64->96 9x9", (1, 9, 9, 64), (3, 3, 64, 96), 1, "SAME"),
        ("dd 3x3/1 same 96->96 9x9", (1, 9, 9, 96), (3, 3, 96, 96), 1, "SAME"),
        ("dd 3x3/2 valid 288->384 9x9", (1, 9, 9, 288), (3, 3, 288, 384), 2, "VALID"),
        ("dd 3x3/2 valid 96->96 9x9", (1, 9, 9, 96), (3, 3, 96, 96), 2, "VALID"),
        ("dd 1x1 768->192 4x4", (1, 4, 4, 768), (1, 1, 768, 192), 1, "VALID"),
        ("dd 1x7 same 160->160 4x4", (1, 4, 4, 160), (1, 7, 160, 160), 1, "SAME"),
        ("dd 7x1 same 160->160 4x4", (1, 4, 4, 160), (7, 1, 160, 160), 1, "SAME"),
    ],
}
PASSES = ("forward", "input", "filter")


def _out_size(size, k, stride, padding):
    return -(-size // stride) if padding == "SAME" else (size - k) // stride + 1


def _data(xs, ws, stride, padding, seed=0):
    rng = np.random.default_rng(seed)
    gs = (xs[0], _out_size(xs[1], ws[0], stride, padding), _out_size(xs[2], ws[1], stride, padding), ws[3])
    return [rng.standard_normal(s).astype(np.float32) for s in (xs, ws, gs)]


def _time_calls(fn, budget):
    """CPU seconds per call of `fn`, over at least 3 calls and `budget` seconds, after 2 warm-ups."""
    fn()
    fn()
    calls, start = 0, time.process_time()
    while True:
        fn()
        calls += 1
        spent = time.process_time() - start
        if calls >= 3 and spent >= budget:
            return spent / calls


def _minitf_calls(xs, ws, stride, padding, x, w, g):
    from minitf.kernels import numpy as kernels
    geometry = _find_geometry()
    geo = geometry(xs, ws, stride, padding, "NHWC", 1, "Conv2D")
    return {"forward": lambda: kernels.conv2d(x, w, geo),
            "input": lambda: kernels.conv2d_backprop_input(w, g, geo),
            "filter": lambda: kernels.conv2d_backprop_filter(x, g, geo)}


def _find_geometry():
    """minitf's `_conv_geometry` (its module may move as the ops package is split)."""
    import importlib
    import pkgutil
    import minitf.ops
    for info in pkgutil.iter_modules(minitf.ops.__path__):
        if info.name.startswith("conv"):
            module = importlib.import_module(f"minitf.ops.{info.name}")
            if hasattr(module, "_conv_geometry"):
                return module._conv_geometry
    raise ImportError("minitf.ops has no _conv_geometry")


def _tf_calls(xs, ws, stride, padding, x, w, g):
    """TF's three ops, each called _UNROLL times inside one tf.function on distinct copies of
    its inputs (distinct so that grappler cannot merge the calls): a call of a tf.function
    costs ~0.25 ms, which would swamp the small DeepDream convolutions; inside a graph an op
    costs microseconds."""
    import tensorflow as tf
    strides = [1, stride, stride, 1]
    copies = [[tf.constant(a + np.float32(i * 1e-3)) for i in range(_UNROLL)] for a in (x, w, g)]
    xs_, ws_, gs_ = copies

    def fwd(xs_, ws_):
        return [tf.nn.conv2d(a, b, strides, padding) for a, b in zip(xs_, ws_)]

    def inp(ws_, gs_):
        return [tf.raw_ops.Conv2DBackpropInput(input_sizes=list(xs), filter=b, out_backprop=c,
                                               strides=strides, padding=padding) for b, c in zip(ws_, gs_)]

    def flt(xs_, gs_):
        return [tf.raw_ops.Conv2DBackpropFilter(input=a, filter_sizes=list(ws), out_backprop=c,
                                                strides=strides, padding=padding) for a, c in zip(xs_, gs_)]
    fwd, inp, flt = tf.function(fwd), tf.function(inp), tf.function(flt)
    return {"forward": lambda: fwd(xs_, ws_), "input": lambda: inp(ws_, gs_), "filter": lambda: flt(xs_, gs_)}


_UNROLL = 8


def _child(args):
    if args.lib == "tensorflow":
        import tensorflow as tf
        tf.config.threading.set_intra_op_parallelism_threads(1)
        tf.config.threading.set_inter_op_parallelism_threads(1)
    out = {}
    for set_name in args.sets:
        for name, xs, ws, stride, padding in SETS[set_name]:
            if args.only and not re.search(args.only, name):
                continue
            x, w, g = _data(xs, ws, stride, padding)
            maker = _tf_calls if args.lib == "tensorflow" else _minitf_calls
            calls = maker(xs, ws, stride, padding, x, w, g)
            per = _UNROLL if args.lib == "tensorflow" else 1
            for p in args.passes:
                out[f"{name}|{p}"] = _time_calls(calls[p], args.budget) / per
    print(json.dumps(out))


def _run(python, lib, path, args):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               MINITF_NUM_THREADS="1", TF_NUM_INTRAOP_THREADS="1", TF_NUM_INTEROP_THREADS="1",
               TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=path)
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    cmd = [python, __file__, "--child", "--lib", lib, "--sets", *args.sets, "--passes", *args.passes,
           "--budget", str(args.budget)]
    if args.only:
        cmd += ["--only", args.only]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=3600)
    if out.returncode:
        print(f"{lib} at {path}: {out.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
        return {}
    return json.loads(out.stdout.strip().splitlines()[-1])


def _fmt(ts):
    if not ts:
        return "-"
    return f"{statistics.median(ts) * 1e3:8.3f} ({min(ts) * 1e3:.3f}-{max(ts) * 1e3:.3f})"


def table(args):
    contenders = [("minitf", sys.executable, "minitf", os.path.abspath(args.minitf))]
    if args.baseline:
        contenders.append(("baseline", sys.executable, "minitf", os.path.abspath(args.baseline)))
    if args.tf_python:
        contenders.append(("TF", args.tf_python, "tensorflow", ROOT))
    times = {name: {} for name, *_ in contenders}
    for r in range(args.rounds):
        for name, python, lib, path in (contenders if r % 2 == 0 else contenders[::-1]):
            for key, t in _run(python, lib, path, args).items():
                times[name].setdefault(key, []).append(t)
    keys = list(times["minitf"]) or next((list(t) for t in times.values() if t), [])
    print(f"CPU ms per call, one thread, median (min-max) of {args.rounds} rounds")
    header = f"{'shape':34s} {'pass':8s}" + "".join(f" {name:>26s}" for name, *_ in contenders)
    print(header + ("   minitf/TF" if args.tf_python else ""))
    for key in keys:
        shape, p = key.split("|")
        line = f"{shape:34s} {p:8s}" + "".join(f" {_fmt(times[name].get(key)):>26s}" for name, *_ in contenders)
        if args.tf_python and times["TF"].get(key) and times["minitf"].get(key):
            line += f"   x{statistics.median(times['minitf'][key]) / statistics.median(times['TF'][key]):.2f}"
        print(line, flush=True)
    return times


# -- the older benchmark: forward + backward of Conv2D(32, 3) -> Conv2D(64, 3), batch 64x28x28 --

STACK = [(3, 3, 1, 32), (3, 3, 32, 64)]


def _stack_data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 28, 28, 1)).astype(np.float32)
    ws = [(rng.standard_normal(s) * 0.1).astype(np.float32) for s in STACK]
    g = rng.standard_normal((64, 24, 24, 64)).astype(np.float32)
    return x, ws, g


def _stack_step(tf, x, ws, g):
    xt, gt = tf.constant(x), tf.constant(g)
    vs = [tf.Variable(w) for w in ws]

    def step():
        with tf.GradientTape() as tape:
            y = tf.nn.conv2d(tf.nn.conv2d(xt, vs[0], 1, "VALID"), vs[1], 1, "VALID")
        return tape.gradient(y, vs, output_gradients=gt)
    return step


def stack():
    """Best wall time of the two-layer step, minitf then TF (when importable)."""
    results = {}
    for lib in ("minitf", "tensorflow"):
        try:
            tf = __import__(lib)
        except ImportError:
            print(f"{lib}: not installed, skipped")
            continue
        step = _stack_step(tf, *_stack_data())
        for _ in range(2):
            step()
        best = float("inf")
        for _ in range(9):
            t0 = time.perf_counter()
            step()
            best = min(best, time.perf_counter() - t0)
        results[lib] = best
    print("Conv2D(32,3)->Conv2D(64,3), batch 64x28x28x1, forward+backward (best of 9):")
    for lib, t in results.items():
        print(f"  {lib:<11} {t * 1e3:8.1f} ms")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--child", action="store_true")
    p.add_argument("--lib")
    p.add_argument("--tf-python")
    p.add_argument("--baseline")
    p.add_argument("--minitf", default=ROOT, help="directory holding the minitf under test")
    p.add_argument("--sets", nargs="*", default=list(SETS))
    p.add_argument("--passes", nargs="*", default=list(PASSES))
    p.add_argument("--only", help="regex on the shape names")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--budget", type=float, default=0.1, help="CPU seconds per shape and pass per round")
    p.add_argument("--stack", action="store_true")
    args = p.parse_args()
    if args.stack:
        stack()
    elif args.child:
        _child(args)
    else:
        table(args)


if __name__ == "__main__":
    main()
