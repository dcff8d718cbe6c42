"""tf.io.decode_raw and tf.io.encode_base64/decode_base64: every out_type against numpy,
byte order, fixed_length, and TF's errors."""
import base64

import numpy as np
import pytest

import minitf as tf

RNG = np.random.default_rng(4)


@pytest.mark.parametrize("name", ["float16", "float32", "float64", "int8", "int16", "int32", "int64",
                                  "uint8", "uint16", "complex64", "complex128"])
@pytest.mark.parametrize("little_endian", [True, False])
def test_every_numeric_out_type_matches_numpy(name, little_endian):
    values = RNG.normal(size=(2, 3, 4)) * 100
    if np.dtype(name).kind == "c":
        values = values + 1j * values[::-1]
    order = "<" if little_endian else ">"
    arr = values.astype(np.dtype(name).newbyteorder(order))
    strings = [[row.tobytes() for row in block] for block in arr]
    y = tf.io.decode_raw(strings, getattr(tf, name), little_endian=little_endian)
    assert y.dtype.name == name and y.shape == (2, 3, 4)
    np.testing.assert_array_equal(y.numpy(), values.astype(name))


def test_bool_and_bfloat16():
    assert tf.io.decode_raw(b"\x00\x02\x00\x01", tf.bool).numpy().tolist() == [False, True, False, True]
    y = tf.io.decode_raw(np.array([1.5, -2.0], "<f4").view("<u2")[1::2].tobytes(), tf.bfloat16)
    assert y.numpy().tolist() == [1.5, -2.0]


def test_fixed_length_pads_and_cuts():
    y = tf.io.decode_raw([b"\x01\x02", b"\x03\x04\x05\x06\x07\x08"], tf.int16, fixed_length=4)
    assert y.numpy().tolist() == [[513, 0], [1027, 1541]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="multiple of the size"):
        tf.io.decode_raw(b"\x01\x02", tf.int16, fixed_length=3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="greater than zero"):
        tf.io.decode_raw(b"\x01\x02", tf.int16, fixed_length=0)


def test_decode_raw_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="same size"):
        tf.io.decode_raw([b"\x01\x02", b"\x03\x04\x05\x06"], tf.int16)
    with pytest.raises(tf.errors.InvalidArgumentError, match="not a multiple of 2"):
        tf.io.decode_raw(b"\x01\x02\x03", tf.int16)
    with pytest.raises(tf.errors.InvalidArgumentError, match="out_type"):
        tf.io.decode_raw(b"\x01\x02\x03\x04", tf.uint32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="string"):
        tf.io.decode_raw(tf.constant([1, 2]), tf.uint8)
    assert tf.io.decode_raw([b"", b""], tf.int32).shape == (2, 0)


def test_base64_round_trip_is_web_safe():
    data = [bytes(RNG.integers(0, 256, size=n, dtype=np.uint8)) for n in range(8)]
    enc = tf.io.encode_base64(data)
    for e, d in zip(enc.numpy(), data):
        assert e == base64.urlsafe_b64encode(d).rstrip(b"=")
    assert tf.io.encode_base64(b"hi", pad=True).numpy() == b"aGk="
    assert tf.io.decode_base64(enc).numpy().tolist() == data
    assert tf.io.decode_base64([b"aGk=", b"aGk"]).numpy().tolist() == [b"hi", b"hi"]


@pytest.mark.parametrize("bad, match", [(b"a+Gk", "Invalid character"), (b"a", "1 modulo 4"),
                                        (b"a\nGk", "Invalid character")])
def test_decode_base64_errors(bad, match):
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        tf.io.decode_base64(bad)
