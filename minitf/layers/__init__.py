"""tf.keras.layers: the Layer base class and the built-in layers."""
from minitf.layers.base import Layer, InputSpec  # noqa: F401
from minitf.layers.input_layer import Input, InputLayer  # noqa: F401
from minitf.layers.core import *  # noqa: F401,F403
from minitf.layers.convolutional import (Conv1D, Conv2D, Conv2DTranspose, DepthwiseConv2D,  # noqa: F401
                                         SeparableConv2D, Convolution1D, Convolution2D,
                                         Convolution2DTranspose)
from minitf.layers.pooling import *  # noqa: F401,F403
from minitf.layers.normalization import *  # noqa: F401,F403
from minitf.layers.regularization import *  # noqa: F401,F403
from minitf.layers.reshaping import *  # noqa: F401,F403
from minitf.layers.merging import *  # noqa: F401,F403
from minitf.layers.activation import *  # noqa: F401,F403
from minitf.layers.embedding import *  # noqa: F401,F403
from minitf.layers.preprocessing.rescaling import *  # noqa: F401,F403
from minitf.layers.preprocessing.numeric import *  # noqa: F401,F403
from minitf.layers.preprocessing.image import *  # noqa: F401,F403
from minitf.layers.preprocessing.augment import *  # noqa: F401,F403
from minitf.layers.preprocessing.lookup import *  # noqa: F401,F403
from minitf.layers.preprocessing.text import *  # noqa: F401,F403
from minitf.layers.einsum_dense import EinsumDense  # noqa: F401
from minitf.layers.attention import AdditiveAttention, Attention  # noqa: F401
from minitf.layers.multi_head_attention import MultiHeadAttention  # noqa: F401
from minitf.layers.group_normalization import GroupNormalization  # noqa: F401
from minitf.layers.serialization import deserialize, serialize  # noqa: F401

from minitf.layers.masking import Masking  # noqa: F401
from minitf.layers.rnn import *  # noqa: F401,F403
from minitf.layers.convolutional_3d import *  # noqa: F401,F403,E402
from minitf.layers.pooling_3d import *  # noqa: F401,F403,E402
from minitf.layers.reshaping_3d import *  # noqa: F401,F403,E402
from minitf.layers.prelu import PReLU  # noqa: F401,E402
from minitf.layers.unit_normalization import UnitNormalization  # noqa: F401,E402
from minitf.layers.rnn_conv_lstm import ConvLSTM1D, ConvLSTM2D, ConvLSTM3D  # noqa: F401,E402
