"""The Keras machinery every Keras object stands on, below layers, models and the training loop.

Global settings (`config`: float type, epsilon, image layout, clear_session hooks), naming
(`naming`: snake-case default names with one process-wide counter), the symbolic values of
functional models (`keras_tensor`, `node`) and the call context that carries `training` and
masks to nested layers (`call_context`). Nothing here imports a layer, a model or the public
`minitf.keras` face; `minitf.keras` is only that face.
"""
