"""Parity rows for tf.image.psnr, ssim, ssim_multiscale and image_gradients: float images in
[0, 1] and uint8 images with max_val 255 (TF converts both to float32), identical images (psnr
+inf, ssim 1), batch dimensions that broadcast, images smaller than the filter, and gradients."""
import numpy as np
from hypothesis import strategies as st

from parity_oracle import Case, T, V
from parity_table import Table

TABLE = Table()
add = TABLE.add


@st.composite
def image_pair(draw, sizes, dtypes=("float32", "float64", "uint8", "float16")):
    """Two images of one [h, w, c] (a noisy copy, sometimes the same image), sometimes with a
    batch dimension on one side only, plus the max_val that fits their dtype."""
    dtype = draw(st.sampled_from(dtypes))
    h, w = draw(st.sampled_from(sizes))
    c = draw(st.sampled_from([1, 3]))
    batch = draw(st.sampled_from([(), (2,), (1, 2)]))
    seed = draw(st.integers(0, 2 ** 16))
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, 1, batch + (h, w, c))
    b = a if draw(st.integers(0, 5)) == 0 else np.clip(a + rng.normal(0, 0.15, a.shape), 0, 1)
    if draw(st.integers(0, 4)) == 0:
        b = b[(0,) * len(batch)] if batch else b  # img2 without the batch dimensions
    if dtype == "uint8":
        a, b, peak = np.round(a * 255).astype(dtype), np.round(b * 255).astype(dtype), draw(st.sampled_from([255, 255.0]))
    else:
        a, b, peak = a.astype(dtype), b.astype(dtype), draw(st.sampled_from([1.0, 1, 2.0]))
    wrap = V if np.dtype(dtype).kind == "f" and draw(st.booleans()) else T
    return wrap(a), T(b), peak


# TF computes in float32 and casts the gradient back: float64 gradients agree to float32 precision
F32 = {"rtol": 1e-4, "atol": 1e-6}
add("image.psnr", image_pair([(4, 5), (1, 1), (3, 3)]).map(lambda p: Case(p)), grad=1, **F32)
add("image.ssim", st.tuples(image_pair([(11, 12), (13, 11), (6, 7), (5, 5)]),
                            st.sampled_from([{}, {"filter_size": 3}, {"filter_size": 5, "filter_sigma": 0.8},
                                             {"k1": 0.02, "k2": 0.05}, {"return_index_map": True, "filter_size": 3}])
                            ).map(lambda p: Case(p[0], p[1])), grad=1, **F32)
add("image.ssim_multiscale", st.tuples(image_pair([(12, 13), (16, 16), (9, 9)]),
                                       st.sampled_from([{"filter_size": 3, "power_factors": (0.3, 0.7)},
                                                        {"filter_size": 3, "power_factors": (0.2, 0.3, 0.5)},
                                                        {"filter_size": 5, "power_factors": (1.0,)}, {}])
                                       ).map(lambda p: Case(p[0], p[1])), grad=1, **F32)


@st.composite
def gradient_images(draw):
    dtype = draw(st.sampled_from(["float32", "float64", "int32", "uint8"]))
    shape = draw(st.sampled_from([(1, 4, 5, 2), (2, 3, 3, 1), (1, 1, 1, 1), (4, 5, 2), (1, 0, 3, 1)]))
    values = np.asarray(draw(st.lists(st.sampled_from([-2.5, 0.0, 1.0, 1.0, 3.0, 127.0]),
                                      min_size=int(np.prod(shape)), max_size=int(np.prod(shape)))))
    if dtype == "uint8":
        values = np.abs(values)
    array = values.reshape(shape).astype(dtype)
    return Case((V(array) if dtype.startswith("float") and draw(st.booleans()) else T(array),))


add("image.image_gradients", gradient_images(), grad=1)
