"""Model's constructor tells a functional call from a subclass's as Keras 3 does."""
import pytest

import minitf as tf


def test_a_subclass_passing_itself_to_init_gets_keras_type_error():
    # TF's guide/effective_tf2 writes super(DynamicRNN, self).__init__(self)
    class Wrapper(tf.keras.Model):
        def __init__(self, cell):
            super().__init__(self)
            self.cell = cell

    with pytest.raises(TypeError, match=r"takes 1 positional argument but 2 were given"):
        Wrapper(tf.keras.layers.LSTMCell(3))


def test_functional_forms_still_build():
    x = tf.keras.Input((3,))
    y = tf.keras.layers.Dense(2)(x)
    for model in (tf.keras.Model(x, y), tf.keras.Model(x, outputs=y), tf.keras.Model(inputs=x, outputs=y)):
        assert model.output_shape == (None, 2)
    with pytest.raises(TypeError):
        tf.keras.Model(x, y, "name")
