"""tf.image: image ops and the image codecs (re-exports; nothing is defined here)."""
from minitf.ops.image import *  # noqa: F401,F403
from minitf.ops.io_ops import (decode_bmp, decode_gif, decode_image, decode_jpeg, decode_png,  # noqa: F401
                               encode_jpeg, encode_png, is_jpeg)
from minitf.ops.image_quality import image_gradients, psnr, ssim, ssim_multiscale  # noqa: F401,E402
from minitf.ops.image_stateless import (stateless_random_brightness, stateless_random_contrast,  # noqa: F401,E402
                                        stateless_random_crop, stateless_random_flip_left_right,
                                        stateless_random_flip_up_down, stateless_random_hue,
                                        stateless_random_saturation)
