"""AdamW: Adam with decoupled weight decay (Keras 3)."""
from minitf.optimizers.adam import Adam
from minitf.api_export import export

__all__ = ["AdamW"]


@export("optimizers.AdamW", "keras.optimizers.AdamW")
class AdamW(Adam):
    """Adam plus decoupled weight decay: before the Adam step, `w -= w * weight_decay * lr`.

    The Adam step itself is `Adam`'s (see its docstring). `weight_decay` defaults to 0.004.
    """

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999,
                 epsilon=1e-7, amsgrad=False, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        if weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: weight_decay=None")
        super().__init__(learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon,
                         amsgrad=amsgrad, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor,
                         gradient_accumulation_steps=gradient_accumulation_steps, name=name,
                         **kwargs)
