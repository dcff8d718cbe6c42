"""TF's NumPy API (`tf.experimental.numpy`, "tnp") on minitf ops.

`np_dtypes` holds the dtype names and tnp's promotion rules (NumPy's, with float64 as the
default float unless `prefer_float32`); `np_creation`, `np_math`, `np_array` and `np_random`
hold the functions, each converting with `np_dtypes.asarray` and computing with minitf ops, so
results are Tensors and gradients flow through GradientTape; `np_behavior` holds
`experimental_enable_numpy_behavior`, which gives Tensor NumPy's methods and operator promotion.
"""
