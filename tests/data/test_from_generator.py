"""Dataset.from_generator's conversions and errors, as TF 2.21 has them (each case was run there)."""
import numpy as np
import pytest

import minitf as tf

S = tf.TensorSpec


def _run(gen, sig, **kw):
    return [tf.nest.map_structure(lambda t: (t.dtype.name, np.asarray(t.numpy()).tolist()), e)
            for e in tf.data.Dataset.from_generator(gen, output_signature=sig, **kw)]


@pytest.mark.parametrize("values, spec, want", [
    ([1, 2], S([], tf.float32), [("float32", 1.0), ("float32", 2.0)]),        # int -> float
    ([np.int32(1)], S([], tf.float32), [("float32", 1.0)]),
    ([1.5], S([], tf.int32), [("int32", 1)]),                                 # float -> int truncates
    ([np.float64(1.5)], S([], tf.float32), [("float32", 1.5)]),
    ([np.int64(3)], S([], tf.int32), [("int32", 3)]),
    ([300], S([], tf.int8), [("int8", 44)]),                                  # wraps, as TF
    ([True], S([], tf.int32), [("int32", 1)]),
    ([1], S([], tf.bool), [("bool", True)]),
    (["a"], S([], tf.string), [("string", b"a")]),
    ([[1, 2], [1, 2, 3]], S([None], tf.int32), [("int32", [1, 2]), ("int32", [1, 2, 3])]),
    ([tf.constant([1, 2])], S([2], tf.float32), [("float32", [1.0, 2.0])]),
])
def test_conversions(values, spec, want):
    assert _run(lambda: iter(values), spec) == want


def test_none_for_a_float_is_nan_as_in_tf():
    assert np.isnan(_run(lambda: iter([None]), S([], tf.float32))[0][1])


@pytest.mark.parametrize("values, spec, match", [
    (["a"], S([], tf.int32), "could not be converted to the expected type. The expected type was int32"),
    ([1], S([], tf.string), "could not be converted to the expected type. The expected type was string"),
    ([[[1], [1, 2]]], S([None, None], tf.int32), "could not be converted"),
    ([[1, 2, 3]], S([2], tf.int32), r"of shape \(3,\) where an element of shape \(2,\) was expected"),
    ([[1, 2]], S([], tf.int32), r"of shape \(2,\) where an element of shape \(\) was expected"),
    ([1], S([None], tf.int32), r"of shape \(\) where an element of shape \(None,\) was expected"),
    ([(1, 2)], S([], tf.int32), r"of shape \(2,\)"),  # a tuple for one spec is one array
    ([1], (S([], tf.int32), S([], tf.int32)), r"did not match the expected structure. The expected structure "
                                              r"was \(tf.int32, tf.int32\), but the yielded element was 1"),
    ([(1, 2, 3)], (S([], tf.int32), S([], tf.int32)), "did not match the expected structure"),
    ([[1, 2]], (S([], tf.int32), S([], tf.int32)), "did not match"),  # a list is not a tuple
    ([{"a": 1}], {"b": S([], tf.int32)}, r"\{'b': tf.int32\}"),
    ([{"a": 1}], (S([], tf.int32),), "did not match"),
])
def test_errors_are_invalid_argument_while_iterating(values, spec, match):
    ds = tf.data.Dataset.from_generator(lambda: iter(values), output_signature=spec)  # no error yet
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        list(ds)


def test_signature_errors_at_construction():
    with pytest.raises(TypeError, match="subclass of `tf.TypeSpec`"):
        tf.data.Dataset.from_generator(lambda: iter([1]), output_signature=tf.int32)
    with pytest.raises(TypeError, match="either the `output_signature` argument or the `output_types`"):
        tf.data.Dataset.from_generator(lambda: iter([1]))
    with pytest.raises(TypeError, match="callable"):
        tf.data.Dataset.from_generator(iter([1]), output_signature=S([], tf.int32))


def test_args_and_user_errors():
    assert _run(lambda a, b: iter([a + b]), S([], tf.int64), args=(1, 2)) == [("int64", 3)]
    with pytest.raises(ZeroDivisionError):  # the generator's own error reaches the caller unchanged
        list(tf.data.Dataset.from_generator(lambda: (1 / 0 for _ in range(1)), output_signature=S([], tf.float32)))
