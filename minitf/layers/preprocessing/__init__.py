"""Keras' preprocessing layers, one module per concern: rescaling, numeric (Normalization,
CategoryEncoding, Hashing, Discretization), image (Resizing, CenterCrop), augment (the Random*
layers), lookup (StringLookup, IntegerLookup) and text (TextVectorization); `utils` holds what
they share (output modes, vocabularies, dtypes).
"""
