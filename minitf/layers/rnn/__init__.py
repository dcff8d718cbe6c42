"""Recurrent layers: the cells, RNN, SimpleRNN/LSTM/GRU, and the Bidirectional/TimeDistributed wrappers."""
from minitf.layers.rnn.cells import GRUCell, LSTMCell, SimpleRNNCell  # noqa: F401
from minitf.layers.rnn.layers import GRU, LSTM, SimpleRNN  # noqa: F401
from minitf.layers.rnn.rnn import RNN  # noqa: F401
from minitf.layers.rnn.stacked import StackedRNNCells  # noqa: F401
from minitf.layers.rnn.wrappers import Bidirectional, TimeDistributed  # noqa: F401

__all__ = ["SimpleRNNCell", "LSTMCell", "GRUCell", "StackedRNNCells", "RNN", "SimpleRNN", "LSTM", "GRU",
           "Bidirectional", "TimeDistributed"]
