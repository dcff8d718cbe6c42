"""UpSampling3D, ZeroPadding3D, Cropping3D: values against numpy, shapes in both layouts,
configs, gradients and argument errors."""
import json

import numpy as np
import pytest

from minitf import layers


X = np.arange(2 * 3 * 4 * 2 * 2, dtype="float32").reshape(2, 3, 4, 2, 2)
FIRST = np.transpose(X, (0, 4, 1, 2, 3))


def test_upsampling_repeats_each_axis():
    expect = X.repeat(1, 1).repeat(2, 2).repeat(3, 3)
    np.testing.assert_array_equal(layers.UpSampling3D((1, 2, 3))(X).numpy(), expect)
    got = layers.UpSampling3D((1, 2, 3), data_format="channels_first")(FIRST).numpy()
    np.testing.assert_array_equal(got, np.transpose(expect, (0, 4, 1, 2, 3)))
    assert tuple(layers.UpSampling3D(2).compute_output_shape((None, 3, 4, 2, 2))) == (None, 6, 8, 4, 2)


def test_zero_padding_and_cropping_are_inverse():
    pad = ((1, 0), (2, 1), (0, 3))
    padded = layers.ZeroPadding3D(pad)(X).numpy()
    np.testing.assert_array_equal(padded, np.pad(X, [(0, 0)] + list(pad) + [(0, 0)]))
    np.testing.assert_array_equal(layers.Cropping3D(pad)(padded).numpy(), X)
    first = layers.ZeroPadding3D(1, data_format="channels_first")(FIRST).numpy()
    np.testing.assert_array_equal(first, np.pad(FIRST, [(0, 0), (0, 0), (1, 1), (1, 1), (1, 1)]))
    cropped = layers.Cropping3D((1, 0, 1), data_format="channels_first")(first).numpy()
    np.testing.assert_array_equal(cropped, np.pad(FIRST, [(0, 0), (0, 0), (0, 0), (1, 1), (0, 0)]))


@pytest.mark.parametrize("make,out_shape", [
    (lambda: layers.UpSampling3D(), (2, 6, 8, 4, 2)),
    (lambda: layers.ZeroPadding3D((1, 2, 0)), (2, 5, 8, 2, 2)),
    (lambda: layers.ZeroPadding3D(), (2, 5, 6, 4, 2)),
    (lambda: layers.Cropping3D(((1, 0), (1, 1), 0)), (2, 2, 2, 2, 2)),
    (lambda: layers.Cropping3D(((0, 0), (0, 0), (0, 0)), data_format="channels_first"), (2, 3, 4, 2, 2)),
])
def test_shapes_match_compute_output_shape(make, out_shape):
    layer = make()
    assert layer(X).shape == out_shape
    assert tuple(layer.compute_output_shape(X.shape)) == out_shape


@pytest.mark.parametrize("make", [lambda: layers.UpSampling3D((2, 1, 2), dtype="float64"),
                                  lambda: layers.ZeroPadding3D(1, dtype="float64"),
                                  lambda: layers.Cropping3D((1, 0, 0), dtype="float64")])
def test_input_gradients(make, input_grads_close):
    input_grads_close(make(), np.random.default_rng(0).standard_normal((1, 3, 2, 2, 2)))


@pytest.mark.parametrize("layer", [layers.UpSampling3D((1, 2, 3), data_format="channels_first"),
                                   layers.ZeroPadding3D(((1, 0), (2, 1), (0, 3))), layers.Cropping3D(2)])
def test_configs_round_trip(layer):
    config = json.loads(json.dumps(layer.get_config()))
    again = type(layer).from_config(config)
    np.testing.assert_array_equal(again(np.ones((1, 5, 5, 5, 2), "float32")).numpy(),
                                  layer(np.ones((1, 5, 5, 5, 2), "float32")).numpy())


def test_argument_errors_follow_keras():
    with pytest.raises(ValueError, match="3 elements"):
        layers.ZeroPadding3D((1, 2))
    with pytest.raises(ValueError, match="1st entry of padding"):
        layers.ZeroPadding3D(((1, -1), 0, 0))
    with pytest.raises(ValueError, match="cannot be negative"):
        layers.Cropping3D(-1)
    with pytest.raises(ValueError, match="size"):
        layers.UpSampling3D(0)
    with pytest.raises(ValueError, match="smaller than the corresponding spatial dimension"):
        layers.Cropping3D(2)(X)
    with pytest.raises(ValueError, match="ndim=5"):
        layers.UpSampling3D()(X[0])
    with pytest.raises(ValueError, match="data_format"):
        layers.ZeroPadding3D(data_format="NDHWC")
