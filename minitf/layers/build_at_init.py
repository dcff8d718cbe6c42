"""Keras 3's build-at-construction rule for layers without weights.

Keras 3 marks some weightless layers (Dropout, ReLU, the pooling layers ...) built as soon as
they are constructed, so `layer.built` is True before the first call and `model.summary()`
counts their parameters as 0 rather than "0 (unbuilt)". It does so only while the class keeps
the base `Layer.build`: a subclass that writes its own `build` stays unbuilt until called, so
its `build` still runs.
"""
from minitf.layers.base import Layer

__all__ = ["build_at_init"]


def build_at_init(layer):
    """Mark `layer` built now, unless its class overrides `Layer.build` (Keras 3's rule)."""
    if type(layer).build is Layer.build:
        layer.built = True
