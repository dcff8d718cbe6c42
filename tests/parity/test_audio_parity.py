"""tf.audio and keras.utils.audio_dataset_from_directory against TF 2.21: encoded bytes,
decoded samples for every channel/sample option, the error class of broken files, and the
datasets (files, order, labels, padding, split) built from one folder of generated .wav files."""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")

_VALUES = np.concatenate([
    np.float32([0.5, 1.5, 2.5, -0.5, -1.5, 32767.5, 32768.4, -32768.6, 1e5, -1e5, 0.49999]) / np.float32(32768),
    np.float32([1.0, -1.0, 1.2, -0.0, 0.0, np.nan, np.inf, -np.inf]),
    np.random.default_rng(0).normal(size=40).astype(np.float32) * 0.4,
])


@pytest.mark.parametrize("channels", [1, 2, 3])
def test_encoded_bytes(channels):
    audio = _VALUES[: len(_VALUES) // channels * channels].reshape(-1, channels)
    ours = minitf.audio.encode_wav(audio, 11025).numpy()
    theirs = tf_ref.audio.encode_wav(audio, 11025).numpy()
    assert ours == theirs


@pytest.mark.parametrize("options", [{}, {"desired_channels": 1}, {"desired_channels": 4},
                                     {"desired_samples": 5}, {"desired_samples": 30, "desired_channels": 2},
                                     {"desired_samples": 0}])
def test_decoded_samples(options):
    wav = tf_ref.audio.encode_wav(_VALUES[:24].reshape(8, 3), 22050).numpy()
    (a, ra), (b, rb) = minitf.audio.decode_wav(wav, **options), tf_ref.audio.decode_wav(wav, **options)
    assert a.shape == tuple(b.shape) and int(ra) == int(rb)
    np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("cut", [0, 4, 12, 30, 43, 50])
def test_broken_files_raise_what_tf_raises(cut):
    wav = tf_ref.audio.encode_wav(_VALUES[:8].reshape(4, 2), 8000).numpy()[:cut]

    def error(lib):
        try:
            lib.audio.decode_wav(wav)
        except Exception as e:  # noqa: BLE001 (the class is compared)
            return type(e).__name__
        return None

    assert error(minitf) == error(tf_ref)


def _folder(root):
    rng = np.random.default_rng(1)
    for label in ["down", "go", "no", "yes"]:
        (root / label).mkdir(parents=True)
        for i in range(6):
            n = int(rng.integers(200, 1600))
            audio = (0.3 * np.sin(np.arange(n) * 0.02 * (i + 1))).astype(np.float32)[:, None]
            (root / label / f"{i:02d}_nohash_0.wav").write_bytes(tf_ref.audio.encode_wav(audio, 16000).numpy())


@pytest.mark.parametrize("options", [
    {"batch_size": 4, "validation_split": 0.25, "seed": 0, "output_sequence_length": 1600, "subset": "both"},
    {"batch_size": 3, "shuffle": False},
    {"batch_size": None, "seed": 5, "label_mode": "categorical", "output_sequence_length": 500},
])
def test_audio_dataset_from_directory(tmp_path, options):
    _folder(tmp_path)

    def described(lib):
        lib.random.set_seed(None)  # no global seed left by earlier tests: the shuffle's op seed pairs as TF's
        made = lib.keras.utils.audio_dataset_from_directory(str(tmp_path), verbose=False, **options)
        parts = made if isinstance(made, tuple) else (made,)
        return [(p.class_names, repr(p.element_spec), [(x.numpy(), y.numpy()) for x, y in p]) for p in parts]

    ours, theirs = described(minitf), described(tf_ref)
    assert len(ours) == len(theirs)
    for (names_a, spec_a, items_a), (names_b, spec_b, items_b) in zip(ours, theirs):
        assert names_a == names_b and spec_a == spec_b and len(items_a) == len(items_b)
        for (xa, ya), (xb, yb) in zip(items_a, items_b):
            np.testing.assert_array_equal(xa, xb)
            np.testing.assert_array_equal(ya, yb)
