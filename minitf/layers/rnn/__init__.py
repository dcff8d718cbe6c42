"""Recurrent layers: the cells, RNN, SimpleRNN/LSTM/GRU, and the Bidirectional/TimeDistributed wrappers."""
