"""Embedding: integer ids -> rows of a trainable matrix (sparse IndexedSlices gradients)."""
from minitf import constraints
from minitf.initializers import initializers
from minitf.regularizers import regularizers
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.layers import layer_utils
from minitf.layers.base import Layer
from minitf.ops import array as array_ops
from minitf.ops import compare as compare_ops
from minitf.ops.constant import cast
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["Embedding"]


@export("layers.Embedding", "keras.layers.Embedding")
class Embedding(Layer):
    """Looks up `embeddings[ids]`; output shape is ids' shape + (output_dim,)."""

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 embeddings_regularizer=None, activity_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, input_length=None, **kwargs):
        if input_length is not None and "input_shape" not in kwargs:
            kwargs["input_shape"] = (input_length,) if isinstance(input_length, int) \
                else tuple(input_length)
        kwargs.setdefault("autocast", False)
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        for label, value in (("input_dim", input_dim), ("output_dim", output_dim)):
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"Embedding: `{label}` must be a positive integer. Received: "
                                 f"{label}={value!r} (of type {type(value).__name__}).")
        self.input_dim = int(input_dim)
        self.output_dim = int(output_dim)
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = mask_zero
        self.input_length = input_length

    def build(self, input_shape=None):
        self.embeddings = self.add_weight("embeddings", shape=(self.input_dim, self.output_dim),
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint)
        self.built = True

    def call(self, inputs):
        if inputs is None:  # Keras 3 fails reading its dtype
            raise AttributeError("Embedding.call(): inputs=None has no dtype; pass integer indices")
        if inputs.dtype not in (dtypes.int32, dtypes.int64):  # tf.gather takes no uint8/int8 indices
            inputs = cast(inputs, "int32")
        try:
            return array_ops.gather(self.embeddings, inputs)
        except errors.InvalidArgumentError:
            # Keras 3's take counts negative indices from the end (an index still out of range
            # after that raises again)
            wrapped = array_ops.where(inputs < 0, inputs + self.input_dim, inputs)
            return array_ops.gather(self.embeddings, wrapped)

    def compute_mask(self, inputs, mask=None):
        """inputs != 0 when mask_zero, else None."""
        return compare_ops.not_equal(inputs, 0) if self.mask_zero else None

    def compute_output_shape(self, input_shape):
        """input_shape + (output_dim,)."""
        return TensorShape(input_shape).concatenate([self.output_dim])

    def get_config(self):
        """input_dim, output_dim, initializer, mask_zero, input_length."""
        config = super().get_config()
        config.update({"input_dim": self.input_dim, "output_dim": self.output_dim,
                       "embeddings_initializer": layer_utils.serialize(self.embeddings_initializer,
                                                             "initializers"),
                       "mask_zero": self.mask_zero, "input_length": self.input_length})
        return config
