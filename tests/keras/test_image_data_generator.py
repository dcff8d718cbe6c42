"""tf.keras.preprocessing.image.ImageDataGenerator and its iterators: batching, shuffling,
validation_split subsets and errors in minitf alone; then each augmentation, the normalizations,
`fit`, `flow` and `flow_from_directory` against Keras 3 with the same seeds (the comparisons skip
without TensorFlow; those resampling with scipy also skip without scipy, which Keras needs there)."""
import os
import warnings

import numpy as np
import pytest

import minitf as tf

I = tf.keras.preprocessing.image


def _images(n=10, h=6, w=7, c=3, seed=0):
    return (np.random.default_rng(seed).random((n, h, w, c)) * 255).astype("float32")


def _keras_image():
    tf_ref = pytest.importorskip("tensorflow")
    return tf_ref.keras.preprocessing.image


def _needs_scipy():
    pytest.importorskip("scipy", reason="Keras resamples affine transforms with scipy")


# -- minitf alone -------------------------------------------------------------------------------------

def test_flow_batches_cover_every_sample_once_per_epoch():
    x, y = _images(10), np.arange(10)
    it = I.ImageDataGenerator().flow(x, y, batch_size=4, shuffle=True, seed=3)
    assert len(it) == 3 and it.num_batches == 3
    batches = [it[i] for i in range(len(it))]
    assert [len(b[1]) for b in batches] == [4, 4, 2]
    seen = np.concatenate([b[1] for b in batches])
    assert sorted(seen) == list(range(10)) and list(seen) != list(range(10))
    for bx, by in batches:
        np.testing.assert_array_equal(bx, x[by])
    it.on_epoch_end()
    again = np.concatenate([it[i][1] for i in range(len(it))])
    assert sorted(again) == list(range(10)) and list(again) != list(seen)
    ordered = I.ImageDataGenerator().flow(x, y, batch_size=4, shuffle=False)
    np.testing.assert_array_equal(np.concatenate([next(ordered)[1] for _ in range(3)]), np.arange(10))
    np.testing.assert_array_equal(next(ordered)[1], np.arange(4))  # next() runs on across epochs


def test_flow_with_sample_weights_extra_arrays_and_no_labels():
    x = _images(5)
    misc = np.arange(5) * 10
    it = I.ImageDataGenerator().flow((x, misc), np.arange(5), sample_weight=np.arange(5) / 5, batch_size=5,
                                     shuffle=False)
    (bx, bm), by, bw = it[0]
    np.testing.assert_array_equal(bm, misc)
    np.testing.assert_allclose(bw, np.arange(5) / 5)
    assert isinstance(I.ImageDataGenerator().flow(x, batch_size=2)[0], np.ndarray)


def test_validation_split_subsets_are_disjoint_and_complete():
    x, y = _images(8), np.array([0, 1] * 4)
    gen = I.ImageDataGenerator(validation_split=0.25)
    val = gen.flow(x, y, batch_size=8, shuffle=False, subset="validation")
    train = gen.flow(x, y, batch_size=8, shuffle=False, subset="training")
    np.testing.assert_array_equal(val[0][0], x[:2])
    np.testing.assert_array_equal(train[0][0], x[2:])
    with pytest.raises(ValueError, match="different number of classes"):
        gen.flow(x, np.array([0] * 2 + [1] * 6), subset="validation")
    assert len(gen.flow(x, np.array([0] * 2 + [1] * 6), subset="training", ignore_class_split=True)[0][0]) == 6


def test_argument_errors():
    with pytest.raises(ValueError, match="validation_split"):
        I.ImageDataGenerator(validation_split=1.5)
    with pytest.raises(ValueError, match="zoom_range"):
        I.ImageDataGenerator(zoom_range=(0.5, 1, 2))
    with pytest.raises(ValueError, match="brightness_range"):
        I.ImageDataGenerator(brightness_range=0.5)
    with pytest.raises(ValueError, match="data_format"):
        I.ImageDataGenerator(data_format="NHWC")
    with pytest.raises(ValueError, match="rank 4"):
        I.ImageDataGenerator().flow(np.zeros((2, 3, 3)))
    with pytest.raises(ValueError, match="same length"):
        I.ImageDataGenerator().flow(_images(3), np.arange(2))
    with pytest.raises(ValueError, match="Invalid subset"):
        I.ImageDataGenerator(validation_split=0.5).flow(_images(2), subset="test")
    with pytest.raises(ValueError, match="rank 4"):
        I.ImageDataGenerator(featurewise_center=True).fit(np.zeros((2, 3, 3)))
    with pytest.raises(ValueError, match="has length 1"):
        I.ImageDataGenerator().flow(_images(3))[3]
    with pytest.raises(NotImplementedError, match="order"):
        I.ImageDataGenerator(rotation_range=10, interpolation_order=3).random_transform(_images(1)[0], seed=1)
    with pytest.warns(UserWarning, match="hasn't been fit"):
        I.ImageDataGenerator(featurewise_center=True).standardize(_images(1)[0])


def _write_images(root, classes=("cats", "dogs", "fish"), per_class=(3, 4, 2)):
    from PIL import Image
    rng = np.random.default_rng(1)
    for name, count in zip(classes, per_class):
        os.makedirs(root / name / "sub")
        for i in range(count):
            folder = root / name if i % 2 == 0 else root / name / "sub"
            Image.fromarray(rng.integers(0, 255, (9, 11, 3), dtype=np.uint8)).save(folder / f"im{i}.png")
        (root / name / "notes.txt").write_text("not an image")
    return root


def test_flow_from_directory_labels_subsets_and_class_modes(tmp_path):
    pytest.importorskip("PIL")
    root = _write_images(tmp_path / "data")
    gen = I.ImageDataGenerator(rescale=1 / 255.0, validation_split=0.5)
    it = gen.flow_from_directory(root, target_size=(5, 6), batch_size=4, shuffle=False)
    assert it.class_indices == {"cats": 0, "dogs": 1, "fish": 2} and it.samples == 9
    assert list(it.classes) == [0] * 3 + [1] * 4 + [2] * 2
    bx, by = it[0]
    assert bx.shape == (4, 5, 6, 3) and by.shape == (4, 3) and bx.max() <= 1.0
    np.testing.assert_array_equal(by.argmax(1), [0, 0, 0, 1])
    val = gen.flow_from_directory(root, target_size=(5, 6), subset="validation", class_mode="sparse")
    train = gen.flow_from_directory(root, target_size=(5, 6), subset="training", class_mode="sparse")
    assert sorted(val.filenames + train.filenames) == sorted(it.filenames)
    assert not set(val.filenames) & set(train.filenames)
    grey = gen.flow_from_directory(root, target_size=(5, 6), color_mode="grayscale", class_mode=None,
                                   classes=["fish"], batch_size=8)
    assert grey.samples == 2 and grey[0].shape == (2, 5, 6, 1)
    with pytest.raises(ValueError, match="class_mode"):
        gen.flow_from_directory(root, class_mode="onehot")
    with pytest.raises(ValueError, match="color mode"):
        gen.flow_from_directory(root, color_mode="cmyk")


def test_flow_from_dataframe_with_a_dict_of_columns(tmp_path):
    pytest.importorskip("PIL")
    root = _write_images(tmp_path / "data")
    table = {"filename": ["cats/im0.png", "dogs/im0.png", "dogs/sub/im1.png", "missing.png"],
             "class": ["cat", "dog", "dog", "dog"], "w": [1.0, 2.0, 3.0, 4.0]}
    with pytest.warns(UserWarning, match="1 invalid image filename"):
        it = I.ImageDataGenerator().flow_from_dataframe(table, directory=str(root), weight_col="w",
                                                        target_size=(4, 4), batch_size=3, shuffle=False)
    bx, by, bw = it[0]
    assert it.class_indices == {"cat": 0, "dog": 1} and bx.shape == (3, 4, 4, 3)
    np.testing.assert_array_equal(by, [[1, 0], [0, 1], [0, 1]])
    np.testing.assert_array_equal(bw, [1.0, 2.0, 3.0])
    raw = I.ImageDataGenerator().flow_from_dataframe({"filename": table["filename"][:3], "y": [0.5, 1.5, 2.5]},
                                                     directory=str(root), y_col="y", class_mode="raw",
                                                     target_size=(4, 4), shuffle=False)
    np.testing.assert_array_equal(raw[0][1], [0.5, 1.5, 2.5])


def test_model_fit_on_a_flow_with_steps_per_epoch():
    x = _images(16, 8, 8, 1) / 255.0
    y = (x.mean(axis=(1, 2, 3)) > 0.5).astype("float32")
    model = tf.keras.Sequential([tf.keras.Input((8, 8, 1)), tf.keras.layers.Flatten(),
                                 tf.keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer="adam", loss="binary_crossentropy")
    it = I.ImageDataGenerator(horizontal_flip=True).flow(x, y, batch_size=4, seed=0)
    history = model.fit(it, steps_per_epoch=len(it), epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2


# -- against Keras 3 ----------------------------------------------------------------------------------

CONFIGS = [
    dict(rotation_range=40),
    dict(width_shift_range=0.2, height_shift_range=0.3, fill_mode="constant", cval=7.0),
    dict(width_shift_range=[-2, 1, 3], height_shift_range=2, fill_mode="wrap"),
    dict(shear_range=25, fill_mode="reflect"),
    dict(zoom_range=0.3, fill_mode="nearest"),
    dict(zoom_range=(0.5, 1.5), rotation_range=15, shear_range=5, width_shift_range=0.1, horizontal_flip=True,
         vertical_flip=True, fill_mode="reflect"),
    dict(rotation_range=30, interpolation_order=0, data_format="channels_first"),
]
PLAIN_CONFIGS = [
    dict(horizontal_flip=True, vertical_flip=True),
    dict(channel_shift_range=40.0),
    dict(brightness_range=(0.3, 1.7)),
    dict(horizontal_flip=True, channel_shift_range=10.0, data_format="channels_first"),
]


def _same_params(a, b):
    assert a.keys() == b.keys()
    for key in a:
        assert (a[key] is None) == (b[key] is None), key
        if a[key] is not None:
            np.testing.assert_allclose(a[key], b[key], rtol=0, atol=0, err_msg=key)


@pytest.mark.parametrize("config", CONFIGS + PLAIN_CONFIGS)
def test_random_parameters_match_keras(config):
    K = _keras_image()
    shape = (6, 7, 3) if config.get("data_format") != "channels_first" else (3, 6, 7)
    for seed in (0, 1, 7):
        _same_params(I.ImageDataGenerator(**config).get_random_transform(shape, seed=seed),
                     K.ImageDataGenerator(**config).get_random_transform(shape, seed=seed))


@pytest.mark.parametrize("config", CONFIGS)
def test_affine_augmentations_match_keras(config):
    K = _keras_image()
    _needs_scipy()
    x = _images(1)[0]
    if config.get("data_format") == "channels_first":
        x = np.transpose(x, (2, 0, 1)).copy()
    for seed in (0, 3, 11):
        mine = I.ImageDataGenerator(**config).random_transform(x.copy(), seed=seed)
        ref = K.ImageDataGenerator(**config).random_transform(x.copy(), seed=seed)
        np.testing.assert_allclose(mine, ref, rtol=1e-6, atol=1e-4)


@pytest.mark.parametrize("config", PLAIN_CONFIGS)
def test_flips_and_channel_and_brightness_shifts_match_keras(config):
    K = _keras_image()
    x = _images(1)[0]
    if config.get("data_format") == "channels_first":
        x = np.transpose(x, (2, 0, 1)).copy()
    for seed in (0, 3, 11):
        mine = I.ImageDataGenerator(**config).random_transform(x.copy(), seed=seed)
        ref = K.ImageDataGenerator(**config).random_transform(x.copy(), seed=seed)
        np.testing.assert_allclose(mine, ref, rtol=1e-6, atol=1e-4)


@pytest.mark.parametrize("fn,args", [("random_rotation", (35,)), ("random_shift", (0.2, 0.1)),
                                     ("random_shear", (20,)), ("random_zoom", ((0.7, 1.2),))])
def test_module_level_random_transforms_match_keras(fn, args):
    K = _keras_image()
    _needs_scipy()
    x = np.transpose(_images(1)[0], (2, 0, 1)).copy()  # Keras' default axes: channels first
    for fill_mode in ("nearest", "constant", "reflect", "wrap"):
        np.random.seed(5)
        mine = getattr(I, fn)(x, *args, fill_mode=fill_mode, cval=2.0)
        np.random.seed(5)
        ref = getattr(K, fn)(x, *args, fill_mode=fill_mode, cval=2.0)
        np.testing.assert_allclose(mine, ref, rtol=1e-6, atol=1e-4)


def test_channel_and_brightness_functions_match_keras():
    K = _keras_image()
    x = _images(1)[0]
    np.testing.assert_array_equal(I.apply_channel_shift(x, 30.0, 2), K.apply_channel_shift(x, 30.0, 2))
    np.random.seed(2)
    mine = I.random_channel_shift(x, 50.0, 2)
    np.random.seed(2)
    np.testing.assert_array_equal(mine, K.random_channel_shift(x, 50.0, 2))
    for scale in (True, False):
        np.testing.assert_allclose(I.apply_brightness_shift(x * 2 - 100, 1.3, scale),
                                   K.apply_brightness_shift(x * 2 - 100, 1.3, scale), rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("config", [
    dict(featurewise_center=True, featurewise_std_normalization=True, rescale=1 / 255.0),
    dict(samplewise_center=True, samplewise_std_normalization=True),
    dict(zca_whitening=True, zca_epsilon=1e-3),
    dict(featurewise_center=True, data_format="channels_first", rescale=0.5),
])
def test_fit_and_standardize_match_keras(config):
    K = _keras_image()
    x = _images(12, 4, 5, 3)
    if config.get("data_format") == "channels_first":
        x = np.transpose(x, (0, 3, 1, 2)).copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mine, ref = I.ImageDataGenerator(**config), K.ImageDataGenerator(**config)
    mine.fit(x)
    ref.fit(x)
    for attr in ("mean", "std", "zca_whitening_matrix"):
        a, b = getattr(mine, attr), getattr(ref, attr)
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mine.standardize(x[:3].copy()), ref.standardize(x[:3].copy()), rtol=1e-4, atol=1e-4)


def test_fit_with_augmentation_matches_keras():
    K = _keras_image()
    x = _images(6, 4, 5, 3)
    config = dict(featurewise_center=True, featurewise_std_normalization=True, horizontal_flip=True,
                  channel_shift_range=20.0)
    mine, ref = I.ImageDataGenerator(**config), K.ImageDataGenerator(**config)
    mine.fit(x, augment=True, rounds=2, seed=4)
    ref.fit(x, augment=True, rounds=2, seed=4)
    np.testing.assert_allclose(mine.mean, ref.mean, rtol=1e-6)
    np.testing.assert_allclose(mine.std, ref.std, rtol=1e-5)


@pytest.mark.parametrize("shuffle", [True, False])
def test_flow_batches_match_keras_batch_for_batch(shuffle):
    K = _keras_image()
    x, y = _images(11, 5, 6, 3), np.arange(11)
    config = dict(horizontal_flip=True, channel_shift_range=15.0, rescale=1 / 255.0, validation_split=0.2)
    for kwargs in (dict(), dict(subset="training"), dict(subset="validation"),
                   dict(sample_weight=np.linspace(0, 1, 11))):
        mine = I.ImageDataGenerator(**config).flow(x, y, batch_size=3, shuffle=shuffle, seed=9,
                                                   ignore_class_split=True, **kwargs)
        ref = K.ImageDataGenerator(**config).flow(x, y, batch_size=3, shuffle=shuffle, seed=9,
                                                  ignore_class_split=True, **kwargs)
        assert len(mine) == len(ref)
        for i in range(len(ref)):
            for a, b in zip(mine[i], ref[i]):
                np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
        mine.on_epoch_end(), ref.on_epoch_end()
        for _ in range(len(ref) + 2):  # next() across the epoch boundary
            for a, b in zip(next(mine), next(ref)):
                np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_flow_from_directory_matches_keras(tmp_path):
    K = _keras_image()
    pytest.importorskip("PIL")
    root = _write_images(tmp_path / "data")
    config = dict(horizontal_flip=True, vertical_flip=True, rescale=1 / 255.0, validation_split=0.34)
    for kwargs in (dict(), dict(subset="training", class_mode="binary", classes=["cats", "dogs"]),
                   dict(subset="validation", color_mode="grayscale", class_mode="sparse"),
                   dict(color_mode="rgba", class_mode="input", interpolation="bilinear", keep_aspect_ratio=True)):
        mine = I.ImageDataGenerator(**config).flow_from_directory(root, target_size=(5, 7), batch_size=2,
                                                                  seed=2, **kwargs)
        ref = K.ImageDataGenerator(**config).flow_from_directory(root, target_size=(5, 7), batch_size=2,
                                                                 seed=2, **kwargs)
        assert mine.filenames == ref.filenames and mine.class_indices == ref.class_indices
        np.testing.assert_array_equal(mine.classes, ref.classes)
        assert len(mine) == len(ref)
        for i in range(len(ref)):
            for a, b in zip(mine[i], ref[i]):
                np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_public_names_match_tf():
    tf_ref = pytest.importorskip("tensorflow")
    names = {n for n in dir(tf_ref.keras.preprocessing.image) if not n.startswith("_")}
    assert names <= set(dir(I)), sorted(names - set(dir(I)))


def test_smart_resize_matches_keras():
    K = _keras_image()
    x = _images(2, 9, 14, 3)
    for size, fmt in (((5, 5), "channels_last"), ((4, 8), "channels_last"), ((6, 3), "channels_first")):
        data = x if fmt == "channels_last" else np.transpose(x, (0, 3, 1, 2)).copy()
        np.testing.assert_allclose(I.smart_resize(data, size, data_format=fmt),
                                   K.smart_resize(data, size, data_format=fmt), rtol=1e-5, atol=1e-3)
        np.testing.assert_allclose(I.smart_resize(data[0], size, data_format=fmt),
                                   K.smart_resize(data[0], size, data_format=fmt), rtol=1e-5, atol=1e-3)
