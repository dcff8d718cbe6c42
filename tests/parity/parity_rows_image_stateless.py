"""Rows for tf.image.stateless_random_*: seeded augmentations compared with TF over seed pairs
(Python pairs, int32/int64 tensors, bad shapes and dtypes), image dtypes (uint8, float16, float32,
float64), single images and batches, and the argument checks (ValueError) of each op."""
import numpy as np
from hypothesis import strategies as st

from parity_oracle import T
from parity_strategies import cases, values
from parity_table import Table

TABLE = Table()
add = TABLE.add

_DTYPES = ("uint8", "float16", "float32", "float64")
# mostly valid pairs (lists, tuples, int32 and int64 tensors), sometimes a bad shape or dtype
_seeds = st.one_of(st.tuples(st.integers(-2 ** 31, 2 ** 31 - 1), st.integers(-2 ** 31, 2 ** 31 - 1)).map(list),
                   st.tuples(st.integers(0, 2 ** 20), st.integers(0, 2 ** 20)),
                   st.tuples(st.integers(-2 ** 31, 2 ** 31 - 1), st.integers(-2 ** 31, 2 ** 31 - 1))
                   .map(lambda p: T(np.array(p, dtype=np.int32))),
                   st.tuples(st.integers(-2 ** 63, 2 ** 63 - 1), st.integers(-2 ** 63, 2 ** 63 - 1))
                   .map(lambda p: T(np.array(p, dtype=np.int64))),
                   st.just((0, 0)),
                   st.sampled_from([[1], [1, 2, 3], [1.0, 2.0]]))


def images(dtypes=_DTYPES, shapes=((4, 5, 3), (2, 4, 5, 3), (3, 2, 3, 1))):
    """3-D and 4-D images in [0, 1] (floats) or [0, 255] (integers), sometimes of rank 2 or 5."""
    def make(pair):
        dtype, shape = pair
        return values(dtype, shape, 0, 1 if dtype[0] == "f" else 255).map(T)
    return st.tuples(st.sampled_from(dtypes), st.sampled_from(shapes)).flatmap(make)


# contrast, hue and saturation compute float64 images in float32 (as TF does, in fused kernels
# whose last bits differ from minitf's composition): float32's tolerance for every float dtype.
_rgb = images(shapes=((4, 5, 3), (2, 4, 5, 3)))
_hsv = images(shapes=((4, 5, 3), (2, 4, 5, 3), (1, 2, 3, 3), (4, 5, 3), (4, 5, 2)))
_any_rank = images(shapes=((4, 5, 3), (2, 4, 5, 3), (3, 2, 3, 1), (1, 1, 1), (0, 2, 2, 3), (4, 5), (1, 2, 3, 4, 3)))
# mostly valid ranges; equal bounds, lower > upper and lower < 0 raise ValueError
_lower = st.sampled_from([0.1, 0.0, 0.5, 0.2, 0.3, -0.2])
_upper = st.sampled_from([0.9, 1.5, 3.0, 1.2, 0.5])


@st.composite
def _crop_case(draw):
    """An image and a crop size: mostly one that fits, sometimes one entry too big or the wrong length."""
    image = draw(images(shapes=((4, 5, 3), (2, 4, 5, 3), (1, 6, 1))))
    shape = image.value.shape
    kind = draw(st.sampled_from(["fits", "fits", "fits", "fits", "whole", "too_big", "wrong_length"]))
    if kind == "whole":
        return image, list(shape)
    if kind == "too_big":
        return image, [n + (i == len(shape) - 2) for i, n in enumerate(shape)]
    if kind == "wrong_length":
        return image, [1] * (len(shape) - 1)
    return image, [draw(st.integers(min(1, n), n)) for n in shape]


add("image.stateless_random_brightness",
    cases(_rgb, max_delta=st.sampled_from([0.95, 0.2, 0.0, 0.5, -0.1, 2.0]), seed=_seeds), grad=1)
add("image.stateless_random_contrast", cases(_rgb, lower=_lower, upper=_upper, seed=_seeds),
    grad=1, rtol=1e-4, atol=1e-5)
add("image.stateless_random_hue", cases(_hsv, max_delta=st.sampled_from([0.5, 0.2, 0.0, 0.35, -0.1, 0.6]),
                                        seed=_seeds), grad=1, rtol=1e-4, atol=1e-5)
add("image.stateless_random_saturation", cases(_hsv, lower=_lower, upper=_upper, seed=_seeds),
    grad=1, rtol=1e-4, atol=1e-5)
for _name in ("image.stateless_random_flip_left_right", "image.stateless_random_flip_up_down"):
    add(_name, cases(_any_rank, seed=_seeds), grad=1)
add("image.stateless_random_crop", _crop_case().flatmap(lambda pair: cases(st.just(pair[0]), st.just(pair[1]),
                                                                           seed=_seeds)), grad=1)

TABLE.known("image.stateless_random_brightness",
            lambda case, verdict: verdict.kind == "value_mismatch" and "float64" in verdict.detail,
            "BUG: adjust_brightness (minitf/ops/image_color.py) adds the delta to float64 images in "
            "float64; TF converts them to float32 and back (about 1e-8 relative)")
for _name, _op in (("image.stateless_random_hue", "adjust_hue"), ("image.stateless_random_saturation",
                                                                  "adjust_saturation")):
    TABLE.known(_name, lambda case, verdict: verdict.kind in ("tf_raises", "error_mismatch")
                and "DT_HALF" in verdict.detail,
                f"BUG: {_op} (minitf/ops/image_hsv.py) computes float16 images; TF 2.21 has no CPU kernel "
                f"for them (NotFoundError)")
