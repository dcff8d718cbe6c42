"""tf.audio.decode_wav / encode_wav: round trips, channel and sample selection, rounding, traced use
(a tf.function taking a file name, a dataset map) and hostile files refused with
InvalidArgumentError."""
import struct

import numpy as np
import pytest

import minitf as tf


def _wav(samples, rate=16000, bits=16, audio_format=1, extra_chunk=b"", fmt_size=16):
    samples = np.asarray(samples, dtype="<i2")
    channels = samples.shape[1]
    body = samples.tobytes()
    block = channels * bits // 8
    fmt = struct.pack("<HHIIHH", audio_format, channels, rate, rate * block, block, bits) + b"\0" * (fmt_size - 16)
    chunks = b"fmt " + struct.pack("<I", fmt_size) + fmt + extra_chunk + b"data" + struct.pack("<I", len(body)) + body
    return b"RIFF" + struct.pack("<I", 4 + len(chunks)) + b"WAVE" + chunks


def test_decode_scales_int16_and_reports_the_rate():
    raw = np.array([[0, 1], [-32768, 32767], [16384, -16384]])
    audio, rate = tf.audio.decode_wav(_wav(raw, rate=22050))
    assert audio.dtype == tf.float32 and audio.shape == (3, 2) and rate.dtype == tf.int32 and int(rate) == 22050
    np.testing.assert_array_equal(audio.numpy(), raw.astype(np.float32) / 32768)


def test_desired_channels_and_samples():
    raw = np.array([[1, 2, 3], [4, 5, 6]])
    first, _ = tf.audio.decode_wav(_wav(raw), desired_channels=1)
    assert first.numpy().ravel().tolist() == [1 / 32768, 4 / 32768]
    wider, _ = tf.audio.decode_wav(_wav(raw[:, :1]), desired_channels=3, desired_samples=4)
    assert wider.shape == (4, 3) and wider.numpy()[1].tolist() == [4 / 32768] * 3 and not wider.numpy()[2:].any()
    cut, _ = tf.audio.decode_wav(_wav(raw), desired_samples=1)
    assert cut.shape == (1, 3)


def test_unknown_chunks_and_padding_are_skipped():
    odd = b"LIST" + struct.pack("<I", 3) + b"abc" + b"\0"  # an odd chunk keeps its pad byte
    audio, _ = tf.audio.decode_wav(_wav(np.array([[7], [8]]), extra_chunk=odd, fmt_size=18))
    assert audio.numpy().ravel().tolist() == [7 / 32768, 8 / 32768]


def test_encode_rounds_halves_away_from_zero_clamps_and_round_trips():
    values = np.float32([0.5, 1.5, -0.5, -2.5, 40000, -40000]) / np.float32(32768)
    values = np.concatenate([values, np.float32([np.nan, -0.0])])[:, None]
    encoded = tf.audio.encode_wav(values, 8000).numpy()
    assert np.frombuffer(encoded[44:], "<i2").tolist() == [1, 2, -1, -3, 32767, -32768, 0, 0]
    signal = (np.random.default_rng(0).integers(-32768, 32768, size=(50, 2)) / 32768).astype(np.float32)
    back, rate = tf.audio.decode_wav(tf.audio.encode_wav(signal, 44100))
    np.testing.assert_array_equal(back.numpy(), signal)
    assert int(rate) == 44100


@pytest.mark.parametrize("contents, message", [
    (b"", "not a RIFF/WAVE file"),
    (b"RIFF\0\0\0\0WAVE", "Format chunk not found"),
    (_wav(np.zeros((2, 1)), bits=8), "16-bit"),
    (_wav(np.zeros((2, 1)), audio_format=3), "PCM"),
    (_wav(np.zeros((4, 1)))[:-3], "Data too short"),
    (_wav(np.zeros((2, 1)), fmt_size=20), "format chunk size"),
])
def test_hostile_files_are_refused(contents, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        tf.audio.decode_wav(contents)


def test_bad_arguments():
    with pytest.raises(tf.errors.InvalidArgumentError, match="2-D"):
        tf.audio.encode_wav(np.zeros(4, np.float32), 8000)
    with pytest.raises(tf.errors.InvalidArgumentError, match="float32"):
        tf.audio.encode_wav(np.zeros((4, 1), np.float64), 8000)
    with pytest.raises(tf.errors.InvalidArgumentError, match="desired_samples"):
        tf.audio.decode_wav(_wav(np.zeros((2, 1))), desired_samples=-2)


def test_traced_decode_from_a_file_name(tmp_path):
    path = tmp_path / "a.wav"
    path.write_bytes(_wav(np.array([[100], [200], [300]])))

    @tf.function(input_signature=[tf.TensorSpec([], tf.string)])
    def load(name):
        audio, _ = tf.audio.decode_wav(tf.io.read_file(name), desired_channels=1, desired_samples=4)
        return tf.squeeze(audio, axis=-1)

    assert load.get_concrete_function().structured_outputs.shape == (4,)
    assert load(tf.constant(str(path))).numpy().tolist() == [100 / 32768, 200 / 32768, 300 / 32768, 0.0]
    files = tf.data.Dataset.from_tensor_slices([str(path), str(path)]).map(load)
    assert [a.shape for a in files] == [(4,), (4,)]
