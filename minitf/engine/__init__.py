"""The Keras training engine: `compile`, `fit`, `evaluate`, `predict` as a Model mixin."""
