"""`tf.autograph.experimental`: optional conversion features, the do_not_convert decorator and
loop options."""
from minitf.autograph.api import do_not_convert
from minitf.autograph.directives import set_loop_options
from minitf.autograph.function_scope import Feature

__all__ = ["Feature", "do_not_convert", "set_loop_options"]
