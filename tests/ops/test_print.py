"""tf.print: TF's text for tensors and structures, the output streams and argument checks."""
import logging
import sys

import numpy as np
import pytest

import minitf as tf


def printed(lib, tmp_path, *args, **kwargs):
    """What `lib.print` writes, read back from a file:// stream."""
    path = tmp_path / f"{lib.__name__}.txt"
    if path.exists():
        path.unlink()
    lib.print(*args, output_stream="file://" + str(path), **kwargs)
    return path.read_text(encoding="utf-8")


# (args, kwargs, TF 2.21's text): the texts were printed by TensorFlow itself
EXPECTED = [
    ((lambda lib: lib.constant([1, 2, 3]),), {}, "[1 2 3]\n"),
    ((lambda lib: lib.range(10),), {}, "[0 1 2 ... 7 8 9]\n"),
    ((lambda lib: lib.range(10),), {"summarize": -1}, "[0 1 2 3 4 5 6 7 8 9]\n"),
    ((lambda lib: lib.range(10),), {"summarize": None}, "[0 1 2 ... 7 8 9]\n"),
    ((lambda lib: lib.reshape(lib.range(100), (10, 10)),), {},
     "[[0 1 2 ... 7 8 9]\n [10 11 12 ... 17 18 19]\n [20 21 22 ... 27 28 29]\n ...\n"
     " [70 71 72 ... 77 78 79]\n [80 81 82 ... 87 88 89]\n [90 91 92 ... 97 98 99]]\n"),
    ((lambda lib: lib.reshape(lib.range(24), (2, 3, 4)),), {"summarize": 2},
     "[[[0 1 2 3]\n  [4 5 6 7]\n  [8 9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 23]]]\n"),
    ((lambda lib: lib.reshape(lib.range(120), (5, 4, 6)),), {"summarize": 1},
     "[[[0 ... 5]\n  ...\n  [18 ... 23]]\n\n ...\n\n [[96 ... 101]\n  ...\n  [114 ... 119]]]\n"),
    (("hello", lambda lib: lib.constant("world"), 3, 2.5), {}, 'hello "world" 3 2.5\n'),
    ((lambda lib: {"a": lib.constant([1.5, 2.0]), "b": [1, lib.constant(2)]},), {}, "{'a': [1.5 2], 'b': [1, 2]}\n"),
    ((lambda lib: lib.constant(3.14159), lambda lib: lib.constant(True), lambda lib: lib.constant([True, False])), {},
     "3.14159 1 [1 0]\n"),
    ((lambda lib: lib.constant([1e-5, 1e10, float("nan"), -float("inf")]),), {}, "[1e-05 1e+10 nan -inf]\n"),
    ((lambda lib: lib.constant(1.0 / 3), lambda lib: lib.constant([0.1, 0.25], lib.float16)), {},
     "0.333333343 [0.0999755859 0.25]\n"),
    ((lambda lib: lib.constant([1.0 / 3, 0.1], lib.float64),), {}, "[0.33333333333333331 0.1]\n"),
    ((lambda lib: lib.zeros((0, 3)),), {}, "[]\n"),
    ((1, 2), {"sep": ",", "end": "!\n"}, "1,2!\n"),
    ((lambda lib: [lib.constant([1, 2]), "x"],), {}, "[[1 2], 'x']\n"),
    ((lambda lib: lib.Variable([1.0, 2.0]),), {}, "[1 2]\n"),
    ((), {}, "\n"),
    ((None, np.array([1, 2])), {}, "None array([1, 2])\n"),
    ((lambda lib: lib.constant("a\tb"),), {}, "a\tb\n"),
    ((lambda lib: lib.constant(["a", 'q"\n']),), {}, '["a" "q\\"\\n"]\n'),
    ((lambda lib: lib.constant([1, -2], lib.int8), lambda lib: lib.constant([2 ** 40], lib.int64)), {},
     "[1 -2] [1099511627776]\n"),
    (("{}", lambda lib: lib.constant(1)), {}, "{} 1\n"),
]


def build(args, lib=tf):
    """The arguments for `lib`: entries written `lambda lib: ...` build a tensor there."""
    return [a(lib) if callable(a) else a for a in args]


@pytest.mark.parametrize("args,kwargs,text", EXPECTED)
def test_text_matches_tf(tmp_path, args, kwargs, text):
    assert printed(tf, tmp_path, *build(args), **kwargs) == text


def test_same_text_as_tensorflow(tmp_path):
    """The same calls through TF itself give the same text (when TF is installed)."""
    tf_ref = pytest.importorskip("tensorflow")
    for args, kwargs, _ in EXPECTED:
        ours = printed(tf, tmp_path, *build(args, tf), **kwargs)
        theirs = printed(tf_ref, tmp_path, *build(args, tf_ref), **kwargs)
        assert ours == theirs, (args, kwargs)


def test_streams(capsys, tmp_path, caplog):
    tf.print(tf.constant([1, 2]), output_stream=sys.stdout)
    tf.print("err", tf.constant(0.5))
    out, err = capsys.readouterr()
    assert out == "[1 2]\n" and err == "err 0.5\n"
    path = tmp_path / "log.txt"
    tf.print("a", output_stream="file://" + str(path))
    tf.print("b", output_stream="file://" + str(path))
    assert path.read_text() == "a\nb\n"  # appended, as TF's kernel does
    with caplog.at_level(logging.INFO):
        tf.print("to the log", output_stream=logging.info)
    assert "to the log" in caplog.text


def test_returns_none(capsys):
    assert tf.print("x") is None


@pytest.mark.parametrize("stream", ["stdout", "log(info)", 3, "file:/x"])
def test_bad_output_stream(stream):
    with pytest.raises(ValueError, match="Unsupported output stream"):
        tf.print("x", output_stream=stream)


def test_unknown_keyword():
    with pytest.raises(ValueError, match="Unrecognized keyword arguments for tf.print"):
        tf.print("x", colour="red")
