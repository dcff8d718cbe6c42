"""tf.keras.ops.image: image functions of keras.ops (re-exports only). Implemented in
minitf.keras_ops.image.

Not provided: affine_transform, perspective_transform, map_coordinates, elastic_transform,
scale_and_translate and ssim (resampling by arbitrary coordinates is not in minitf yet)."""
from minitf.keras_ops.image import (  # noqa: F401,A004
    crop_images, extract_patches, extract_patches_3d, gaussian_blur, hsv_to_rgb, pad_images,
    resize, rgb_to_grayscale, rgb_to_hsv, sobel_edges)

__all__ = [
    "crop_images", "extract_patches", "extract_patches_3d", "gaussian_blur", "hsv_to_rgb",
    "pad_images", "resize", "rgb_to_grayscale", "rgb_to_hsv", "sobel_edges"]
