"""Keras 3 marks weightless layers built at construction; minitf follows it class by class."""
import inspect

import numpy as np
import pytest

import minitf as tf

layers = tf.keras.layers

# Keras 3.15: the classes whose __init__ calls `_build_at_init()`, plus Reshape (built=True)
BUILT_AT_INIT = {
    "Activation": ("relu",), "Dropout": (0.5,), "SpatialDropout1D": (0.5,), "SpatialDropout2D": (0.5,),
    "GaussianNoise": (0.5,), "ReLU": (), "LeakyReLU": (), "ELU": (), "Softmax": (), "Masking": (),
    "UnitNormalization": (), "Reshape": ((2,),), "MaxPooling1D": (), "MaxPooling2D": (),
    "MaxPooling3D": (), "AveragePooling1D": (2,), "AveragePooling2D": (2,), "AveragePooling3D": (2,),
    "GlobalAveragePooling1D": (), "GlobalAveragePooling2D": (), "GlobalAveragePooling3D": (),
    "GlobalMaxPooling1D": (), "GlobalMaxPooling2D": (), "GlobalMaxPooling3D": (),
}
UNBUILT = {"Dense": (2,), "Conv2D": (2, 2), "Embedding": (3, 2), "Flatten": (), "Permute": ((1,),),
           "RepeatVector": (2,), "BatchNormalization": (), "LayerNormalization": (), "LSTM": (2,),
           "Lambda": (lambda x: x,), "UpSampling2D": (), "ZeroPadding2D": (), "Cropping2D": ()}


@pytest.mark.parametrize("name", sorted(BUILT_AT_INIT))
def test_weightless_layers_are_built_at_construction(name):
    layer = getattr(layers, name)(*BUILT_AT_INIT[name])
    assert layer.built is True
    assert layer.weights == [] and layer.count_params() == 0


@pytest.mark.parametrize("name", sorted(UNBUILT))
def test_other_layers_stay_unbuilt_until_called(name):
    layer = getattr(layers, name)(*UNBUILT[name])
    assert layer.built is False


def test_aliases_share_the_rule():
    assert layers.MaxPool2D().built and layers.GlobalAvgPool1D().built and layers.AvgPool3D(2).built


def test_subclass_with_its_own_build_stays_lazy_and_its_build_runs():
    class Scaled(layers.Dropout):
        def build(self, input_shape):
            self.scale = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="scale")

        def call(self, inputs, training=None):
            return super().call(inputs, training=training) * self.scale

    layer = Scaled(0.5)
    assert layer.built is False
    out = layer(np.ones((2, 3), np.float32))
    assert layer.built is True and len(layer.weights) == 1
    np.testing.assert_array_equal(out.numpy(), np.ones((2, 3), np.float32))


def test_subclass_without_build_is_built_at_construction():
    class MyReLU(layers.ReLU):
        pass

    assert MyReLU().built is True


def test_built_at_init_layer_still_computes_and_keeps_no_build_shape():
    layer = layers.GlobalAveragePooling1D()
    out = layer(np.arange(12, dtype=np.float32).reshape(2, 3, 2))
    np.testing.assert_allclose(out.numpy(), [[2.0, 3.0], [8.0, 9.0]])
    assert layer._build_input_shape is None  # Keras 3 records no build shape for these layers
    assert "build_config" not in layers.serialize(layer)


def test_summary_counts_built_at_init_layers_as_zero_not_unbuilt(capsys):
    model = tf.keras.Sequential([layers.Embedding(100, 4), layers.Dropout(0.2),
                                 layers.GlobalAveragePooling1D(), layers.Dense(1)])
    model.summary()
    rows = {line.split()[1]: line for line in capsys.readouterr().out.splitlines()
            if line.startswith("│") and "(" in line}
    assert "0 (unbuilt)" in rows["embedding"] and "0 (unbuilt)" in rows["dense"]
    assert rows["dropout"].rstrip("│ ").endswith(" 0") and "unbuilt" not in rows["dropout"]
    assert model.built is False
    assert [layer.built for layer in model.layers] == [False, True, True, False]


def test_built_flags_match_keras_for_every_layer_class():
    keras_tf = pytest.importorskip("tensorflow").keras
    args = {**BUILT_AT_INIT, **UNBUILT, "Conv1D": (2, 2), "Conv3D": (2, 2), "Conv1DTranspose": (2, 2),
            "Conv2DTranspose": (2, 2), "Conv3DTranspose": (2, 2), "SeparableConv2D": (2, 2),
            "DepthwiseConv2D": (2,), "SimpleRNN": (2,), "GRU": (2,), "SimpleRNNCell": (2,),
            "LSTMCell": (2,), "GRUCell": (2,), "ConvLSTM1D": (2, 2), "ConvLSTM2D": (2, 2),
            "ConvLSTM3D": (2, 2), "MultiHeadAttention": (2, 2), "EinsumDense": ("ab,bc->ac", 2),
            "Resizing": (2, 2), "CenterCrop": (2, 2), "RandomCrop": (2, 2), "RandomRotation": (0.1,),
            "RandomZoom": (0.1,), "RandomTranslation": (0.1, 0.1), "RandomContrast": (0.1,),
            "RandomBrightness": (0.1,), "Discretization": ([0.0],), "Hashing": (3,),
            "CategoryEncoding": (3,), "GroupNormalization": (1,), "Rescaling": (1.0,),
            "Dot": (1,), "Convolution1D": (2, 2), "Convolution2D": (2, 2), "Convolution3D": (2, 2),
            "SpatialDropout3D": (0.5,), "GaussianDropout": (0.5,), "AlphaDropout": (0.5,)}
    skip = {"Bidirectional", "TimeDistributed", "RNN", "StackedRNNCells", "Input", "InputLayer",
            "InputSpec", "Layer", "Wrapper", "SpectralNormalization", "TFSMLayer"}
    compared = 0
    for name in sorted(dir(layers)):
        cls = getattr(layers, name)
        if not inspect.isclass(cls) or name in skip or not hasattr(keras_tf.layers, name):
            continue
        try:
            ours = cls(*args.get(name, ())).built
        except TypeError:  # needs arguments this table does not give
            continue
        theirs = getattr(keras_tf.layers, name)(*args.get(name, ())).built
        assert ours is theirs, name
        compared += 1
    assert compared > 60


def test_separable_convolution2d_is_tf_alias():
    # TF 2.21 binds keras.layers.SeparableConvolution2D to SeparableConv2D itself
    assert layers.SeparableConvolution2D is layers.SeparableConv2D
