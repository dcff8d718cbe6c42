"""Parity rows for tf.signal and the complex-number ops (tf.complex, tf.math.real/imag/conj/
angle): values, dtypes, shapes, errors, and gradients.

The oracle differentiates with respect to floating arguments through floating outputs, so
complex inputs are built inside the call from two float tensors (`tf.complex(re, im)`) and
complex results are returned as (real, imag) pairs: the gradients compared are then those of
the transform itself. A case may instead carry a `raw` argument, passed as it is, for the
dtype and rank errors.
"""
import numpy as np
from hypothesis import strategies as st

from parity_oracle import Case, D, T
from parity_strategies import cases, maybe, tensors
from parity_table import Table, resolve

TABLE = Table()
add = TABLE.add
REAL = ("float32", "float64")
BAD = ("float16", "int32", "complex64", "bool")


def parts(lib, y):
    """A complex result as its (real, imaginary) float parts; anything else as it is."""
    if lib.is_tensor(y) and y.dtype.is_complex:
        return lib.math.real(y), lib.math.imag(y)
    return y


def complex_call(path, **fixed):
    """call(lib, re, im, raw=None, **kw): `path` applied to tf.complex(re, im) (or to `raw`)."""
    def call(lib, re=None, im=None, raw=None, **kwargs):
        x = raw if raw is not None else lib.complex(re, im)
        return parts(lib, resolve(lib, path)(x, **fixed, **kwargs))
    return call


def real_call(path):
    return lambda lib, *args, **kwargs: parts(lib, resolve(lib, path)(*args, **kwargs))


@st.composite
def complex_pair(draw, shape):
    dtype = draw(st.sampled_from(REAL))
    return draw(tensors((dtype,), shape=shape, variable=True)), draw(tensors((dtype,), shape=shape))


@st.composite
def complex_cases(draw, rank, shapes=None, kwargs=None):
    """Mostly (re, im) of a shape of rank >= `rank`; sometimes a raw argument of a wrong dtype
    or rank (the error classes are compared)."""
    shapes = shapes or [(4,) * rank, (2,) + (3,) * rank, (1,) + (5,) * rank, (2,) * rank]
    extra = draw(kwargs) if kwargs is not None else {}
    if draw(st.integers(0, 5)) == 0:
        dtype = draw(st.sampled_from(BAD + ("complex128",)))
        shape = draw(st.sampled_from([(3,) * max(rank - 1, 0), (2,) * rank]))
        return Case((), dict(raw=draw(tensors((dtype,), shape=shape)), **extra))
    re, im = draw(complex_pair(draw(st.sampled_from(shapes))))
    return Case((re, im), extra)


# -- complex numbers --------------------------------------------------------------------------

add("complex", st.one_of(
    st.tuples(tensors(REAL, shape=(2, 3), variable=True), tensors(REAL, shape=(3,))),
    st.tuples(tensors(("float16", "int32", "float64"), shape=(2,)), tensors(("float32",), shape=(2,))),
    st.tuples(tensors(("float32",), shape=(2,)), tensors(("float32",), shape=(3,)))).map(Case), grad=2)
for _name in ("math.real", "math.imag", "math.conj", "math.angle"):
    add(_name, st.one_of(
        complex_cases(1, shapes=[(3,), (2, 2), ()]),
        st.tuples(tensors(REAL + ("int32", "bool"), variable=True)).map(lambda a: Case((), {"raw": a[0]})),
        st.just(Case((), {"raw": T(np.array([b"a"], dtype=object))}))),
        call=complex_call(_name), grad=2 if _name != "math.angle" else 1)


# -- Fourier transforms -----------------------------------------------------------------------

for _rank, _suffix in ((1, ""), (2, "2d"), (3, "3d")):
    for _name in (f"signal.fft{_suffix}", f"signal.ifft{_suffix}"):
        add(_name, complex_cases(_rank), call=complex_call(_name), grad=2)


def lengths(rank):
    """fft_length arguments: inferred, shorter, longer, odd/even, and a few invalid ones."""
    good = st.lists(st.sampled_from([2, 3, 4, 5, 7, 8]), min_size=rank, max_size=rank)
    return maybe(st.one_of(good, good, st.sampled_from([[4] * (rank + 1), 4, [0] * rank])))


def rfft_cases(rank):
    shape = st.sampled_from([(6,) * rank, (2,) + (5,) * rank, (3,) * rank, (2,) * max(rank - 1, 0)])
    return cases(tensors(REAL + ("float16", "int32", "complex64"), shape=shape, variable=True),
                 fft_length=lengths(rank).filter(lambda v: not isinstance(v, list) or 0 not in v))


for _rank, _suffix in ((1, ""), (2, "2d"), (3, "3d")):
    add(f"signal.rfft{_suffix}", rfft_cases(_rank), call=real_call(f"signal.rfft{_suffix}"), grad=2)
    # inner lengths n give the default fft_length 2(n - 1): n >= 2 keeps it positive (TF aborts on 0)
    add(f"signal.irfft{_suffix}",
        complex_cases(_rank, shapes=[(3,) * _rank, (2,) + (4,) * _rank, (5,) * _rank],
                      kwargs=st.one_of(st.just({}), lengths(_rank).map(
                          lambda v: {} if not isinstance(v, list) or 0 in v else {"fft_length": v}))),
        call=complex_call(f"signal.irfft{_suffix}"), grad=2)

for _name in ("signal.fftshift", "signal.ifftshift"):
    add(_name, cases(tensors(REAL + ("int32", "complex64"), shape=st.sampled_from([(5,), (2, 3), (4, 1, 3), ()]),
                             variable=True),
                     axes=maybe(st.sampled_from([None, 0, -1, 1, [0, -1], (1,), 3]))), grad=1)


# -- frames and windows -----------------------------------------------------------------------

add("signal.frame", cases(
    tensors(REAL + ("int32",), shape=st.sampled_from([(10,), (2, 7), (3, 4, 2), (0,), ()]), variable=True),
    st.sampled_from([1, 3, 4, 12, 0, -1, [2], 2.0]), st.sampled_from([1, 2, 3, 0]),
    pad_end=maybe(st.booleans()), pad_value=maybe(st.sampled_from([0, -1, 0.5])),
    axis=maybe(st.sampled_from([-1, 0, 1, -2, 3]))), grad=2)
add("signal.overlap_and_add", cases(
    tensors(REAL + ("int32",), shape=st.sampled_from([(3, 4), (2, 3, 5), (1, 2), (0, 4), (3, 0), (4,)]),
            variable=True),
    st.sampled_from([1, 2, 3, 4, 5, 0, 2.0])), grad=2)

_LENGTHS = st.sampled_from([0, 1, 2, 5, 8, 9, -1, 2.5, [3]])
_WINDOW_DTYPES = st.sampled_from(["float32", "float64", "float16", "int32"]).map(D)
for _name in ("signal.hann_window", "signal.hamming_window"):
    add(_name, cases(_LENGTHS, periodic=maybe(st.booleans()), dtype=maybe(_WINDOW_DTYPES)))
add("signal.kaiser_window", cases(_LENGTHS.filter(lambda n: n != 0), beta=maybe(st.sampled_from([0.5, 12.0, 4])),
                                  dtype=maybe(_WINDOW_DTYPES)))
add("signal.kaiser_bessel_derived_window", cases(st.sampled_from([2, 4, 6, 9, -1, 2.5]),
                                                 beta=maybe(st.sampled_from([0.5, 12.0])),
                                                 dtype=maybe(_WINDOW_DTYPES)))
add("signal.vorbis_window", cases(_LENGTHS, dtype=maybe(_WINDOW_DTYPES)))

_WINDOW_FNS = ["default", "none", "hamming", "inverse"]


def window_fn(lib, which, step=2):
    return {"default": lib.signal.hann_window, "none": None, "hamming": lib.signal.hamming_window,
            "inverse": lib.signal.inverse_stft_window_fn(step)}[which]


def stft_call(lib, x, fl, fs, which="default", **kwargs):
    if which == "default":
        return parts(lib, lib.signal.stft(x, fl, fs, **kwargs))
    return parts(lib, lib.signal.stft(x, fl, fs, window_fn=window_fn(lib, which), **kwargs))


add("signal.stft", cases(
    tensors(REAL + ("float16", "int32"), shape=st.sampled_from([(20,), (2, 16), (9,)]), variable=True),
    st.sampled_from([4, 5, 8]), st.sampled_from([2, 3]), st.sampled_from(_WINDOW_FNS[:3]),
    fft_length=maybe(st.sampled_from([4, 8, 16, 5])), pad_end=maybe(st.booleans())),
    call=stft_call, grad=2)


def inverse_stft_call(lib, re=None, im=None, raw=None, fl=4, fs=2, which="default", **kwargs):
    z = raw if raw is not None else lib.complex(re, im)
    if which == "default":
        return lib.signal.inverse_stft(z, fl, fs, **kwargs)
    return lib.signal.inverse_stft(z, fl, fs, window_fn=window_fn(lib, which, fs), **kwargs)


add("signal.inverse_stft", complex_cases(1, shapes=[(3, 5), (2, 4, 5), (3, 3)], kwargs=st.fixed_dictionaries(
    {"fl": st.sampled_from([4, 6, 8]), "fs": st.sampled_from([2, 3]), "which": st.sampled_from(_WINDOW_FNS)},
    optional={"fft_length": st.sampled_from([8, 4])})), call=inverse_stft_call, grad=2)
add("signal.inverse_stft_window_fn", cases(st.sampled_from([1, 2, 3, 4]), st.sampled_from([4, 5, 8]),
                                           st.sampled_from(["float32", "float64"]).map(D),
                                           st.sampled_from(["hann", "hamming"])),
    call=lambda lib, step, fl, dtype, fwd: lib.signal.inverse_stft_window_fn(
        step, forward_window_fn=getattr(lib.signal, f"{fwd}_window"))(fl, dtype=dtype))
add("signal.mdct", cases(tensors(REAL + ("int32",), shape=st.sampled_from([(16,), (2, 12), (10,)]), variable=True),
                         st.sampled_from([4, 8, 6]), window_fn=maybe(st.just(None)), pad_end=maybe(st.booleans()),
                         norm=maybe(st.sampled_from([None, "ortho"]))), grad=2)
add("signal.inverse_mdct", cases(tensors(REAL, shape=st.sampled_from([(3, 4), (2, 2, 6), (4,)]), variable=True),
                                 window_fn=maybe(st.just(None)), norm=maybe(st.sampled_from([None, "ortho", "x"]))),
    grad=2)
TABLE.known("signal.inverse_mdct", lambda case, verdict: case.kwargs.get("norm") == "x",
            "INTENTIONAL: TF falls through to an UnboundLocalError on an unknown norm; minitf raises "
            "ValueError naming the accepted values (None, 'ortho'), as dct does")


# -- mel features and cosine transforms -------------------------------------------------------

add("signal.linear_to_mel_weight_matrix", cases(
    num_mel_bins=maybe(st.sampled_from([1, 8, 20, 0])), num_spectrogram_bins=maybe(st.sampled_from([1, 2, 33, 129])),
    sample_rate=maybe(st.sampled_from([8000, 16000.0, 0, 22050])),
    lower_edge_hertz=maybe(st.sampled_from([0.0, 125.0, -1.0, 5000.0])),
    upper_edge_hertz=maybe(st.sampled_from([3800.0, 4000.0, 7600.0])),
    dtype=maybe(st.sampled_from(["float32", "float64", "int32"]).map(D))))
add("signal.mfccs_from_log_mel_spectrograms",
    cases(tensors(REAL + ("float16",), shape=st.sampled_from([(3, 20), (2, 4, 8), (5,), (2, 0), ()]), variable=True)),
    grad=2)
for _name in ("signal.dct", "signal.idct"):
    add(_name, cases(tensors(REAL + ("float16", "int32"), shape=st.sampled_from([(6,), (2, 5), (3, 2), (1,), ()]),
                             variable=True),
                     type=maybe(st.sampled_from([1, 2, 3, 4, 5])), n=maybe(st.sampled_from([None, 3, 8, 0])),
                     norm=maybe(st.sampled_from([None, "ortho", "forward"])), axis=maybe(st.sampled_from([-1, 0]))),
        grad=2)


def _crops(name, case):
    """Whether fft_length crops a transformed dimension of this case's input."""
    kw = case.kwargs
    if name == "signal.stft":
        return kw.get("fft_length") is not None and kw["fft_length"] < case.args[1]
    source = case.args[0] if case.args else kw.get("raw")
    shape = np.shape(source.value)
    if name == "signal.inverse_stft":
        fft = kw.get("fft_length", 1 << int(np.ceil(np.log2(kw.get("fl", 4)))))
        return shape[-1] > fft // 2 + 1
    lengths = kw.get("fft_length")
    if not isinstance(lengths, list):
        return False
    want = list(lengths)
    if name.startswith("signal.irfft"):
        want[-1] = want[-1] // 2 + 1
    return any(have > n for have, n in zip(shape[len(shape) - len(want):], want))


for _name in ("signal.rfft", "signal.rfft2d", "signal.irfft", "signal.irfft2d", "signal.inverse_stft",
              "signal.stft"):
    TABLE.known(_name, lambda case, verdict, name=_name: verdict.kind == "tf_raises" and _crops(name, case),
                "INTENTIONAL: where fft_length crops the transformed dimension TF's gradient fails on "
                "mismatched shapes; minitf gives the exact gradient (zero for the cropped samples), "
                "checked by finite differences in tests/ops/test_fft.py")
