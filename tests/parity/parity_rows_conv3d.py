"""Parity rows for the 3-D convolution and pooling ops: tf.nn.conv3d, conv3d_transpose,
max_pool3d and avg_pool3d (values, dtypes, error classes, gradients to second order)."""
from hypothesis import strategies as st

from parity_oracle import Case, T, V
from parity_strategies import values
from parity_table import Table

TABLE = Table()
add = TABLE.add


@st.composite
def _volume(draw, shape, dtypes=("float32",) * 4 + ("float64", "float16"), variable=True):
    dtype = draw(st.sampled_from(dtypes))
    array = draw(values(dtype, shape, -2.0, 2.0))
    return V(array) if variable and draw(st.booleans()) else T(array)


@st.composite
def _conv3d_case(draw):
    dtype = draw(st.sampled_from(("float32",) * 4 + ("float64", "float16")))
    first = draw(st.sampled_from(["NDHWC", "NDHWC", "NCDHW"]))
    shape = (2, 4, 5, 4, 3) if first == "NDHWC" else (2, 3, 4, 5, 4)
    x = draw(_volume(shape, (dtype,)))
    kernel = draw(st.sampled_from([(2, 2, 2), (3, 1, 2), (1, 1, 1), (3, 3, 3)]))
    w = draw(_volume(kernel + (3, 2), (dtype,)))
    strides = draw(st.sampled_from([[1, 1, 1, 1, 1], [1, 2, 2, 1, 1], [1, 2, 1, 2, 1], [1, 1, 1, 1, 2],
                                    (1, 1, 2, 2, 1)]))
    if first == "NCDHW":
        strides = [strides[0], strides[4]] + list(strides[1:4])
    kwargs = {"data_format": first}
    dil = draw(st.sampled_from([None, None, [1, 2, 1, 1, 1], [1, 1, 2, 2, 1]]))
    if dil is not None:
        kwargs["dilations"] = dil if first == "NDHWC" else [1, 1] + dil[1:4]
    padding = draw(st.sampled_from(["SAME", "VALID", "SAME", "same"]))
    return Case((x, w, strides, padding), kwargs)


add("nn.conv3d", _conv3d_case(), grad=2)


@st.composite
def _conv3d_transpose_case(draw):
    dtype = draw(st.sampled_from(("float32",) * 4 + ("float64",)))
    strides, out = draw(st.sampled_from([
        (2, [1, 4, 6, 4, 3]), (2, [1, 3, 5, 3, 3]), ([2, 1, 2], [1, 4, 3, 4, 3]),
        (1, [1, 2, 3, 2, 3]), ([1, 2, 2, 2, 1], [1, 4, 6, 4, 3]), (2, [1, 9, 6, 4, 3])]))
    padding = draw(st.sampled_from(["SAME", "VALID"]))
    if padding == "VALID":
        # the input is the conv3d output of `out` with 2x2x2 filters: one more per axis
        step = [strides] * 3 if isinstance(strides, int) else strides if len(strides) == 3 else strides[1:4]
        out = [out[0]] + [(g_size - 1) * s + 2 for g_size, s in zip((2, 3, 2), step)] + [out[4]]
    g = draw(_volume((1, 2, 3, 2, 4), (dtype,)))
    w = draw(_volume((2, 2, 2, 3, 4), (dtype,)))
    return Case((g, w, out, strides), {"padding": padding})


add("nn.conv3d_transpose", _conv3d_transpose_case(), grad=2)


@st.composite
def _pool_case(draw, dtypes):
    """A pooling case; 5-entry ksize and strides are written in the drawn data_format's order."""
    fmt = draw(st.sampled_from([None, "NDHWC", "NDHWC", "NCDHW"]))

    def ordered(value):
        if isinstance(value, list) and len(value) == 5 and fmt == "NCDHW":
            return [value[0], value[4]] + value[1:4]
        return value
    x = draw(_volume((2, 4, 5, 4, 3), dtypes))
    ksize = ordered(draw(st.sampled_from([2, [2, 2, 2], [3, 1, 2], [1, 2, 2, 2, 1], 1, [2, 2, 2, 2, 1]])))
    strides = ordered(draw(st.sampled_from([1, 2, [1, 2, 1], [1, 2, 2, 2, 1], [1, 1, 1, 1, 2]])))
    padding = draw(st.sampled_from(["SAME", "VALID", "SAME", "valid"]))
    return Case((x, ksize, strides, padding), {} if fmt is None else {"data_format": fmt})


# float32 mostly; float64 is refused by MaxPool3D (InvalidArgumentError) and has no AvgPool3D CPU kernel
add("nn.max_pool3d", _pool_case(("float32",) * 5 + ("float64",)), grad=2)
add("nn.avg_pool3d", _pool_case(("float32",) * 5 + ("float64", "float16")), grad=2)


def _no_cpu_kernel(case, verdict):
    return verdict.kind == "tf_raises" and "NotFoundError" in verdict.detail


TABLE.known("nn.avg_pool3d", _no_cpu_kernel,
            "INTENTIONAL: TF registers AvgPool3D for half and double only on the GPU (NotFoundError on "
            "the CPU); minitf computes them, as TF's GPU kernels do")
TABLE.known("nn.conv3d_transpose",
            lambda case, verdict: verdict.kind == "error_mismatch" and "AbortedError" in verdict.detail
            and "InvalidArgumentError" in verdict.detail,
            "INTENTIONAL: an output_shape that does not fit the input: TF's oneDNN kernel raises "
            "AbortedError, TF's own kernel (TF_ENABLE_ONEDNN_OPTS=0) and minitf InvalidArgumentError")
TABLE.known("nn.conv3d", lambda case, verdict: verdict.kind == "tf_raises"
            and "CPU implementation of Conv3D currently only supports" in verdict.detail,
            "INTENTIONAL: TF's plain CPU Conv3D kernel (the one float64 and float16 reach; oneDNN takes "
            "float32) refuses dilations > 1 and NCDHW; TF's oneDNN and GPU kernels and minitf compute them")
TABLE.known("nn.conv3d", lambda case, verdict: verdict.kind == "minitf_raises"
            and "Computed output size would be negative: 0" in verdict.detail,
            "INTENTIONAL: a 'VALID' window one longer than the input: minitf raises, as its conv2d does; "
            "TF's oneDNN Conv3D returns a tensor of the input's shape (its plain kernel an empty one)")
for _name in ("nn.max_pool3d", "nn.avg_pool3d"):
    TABLE.known(_name, lambda case, verdict: verdict.kind in ("tf_raises", "error_mismatch")
                and "only supports NDHWC on device type CPU" in verdict.detail,
                "INTENTIONAL: TF's plain CPU 3-D pooling kernels and gradients take NDHWC only (its oneDNN "
                "forward takes NCDHW); minitf computes NCDHW, as TF's GPU kernels do")
TABLE.known("nn.conv3d", lambda case, verdict: verdict.kind == "error_mismatch"
            and "does not yet support strides in the batch and depth" in verdict.detail,
            "INTENTIONAL: strides on the batch or channel axis: TF's oneDNN Conv3D (float32) raises "
            "UnimplementedError, its plain kernel (float16, float64) InvalidArgumentError; minitf raises "
            "UnimplementedError for every dtype")
TABLE.known("nn.avg_pool3d", lambda case, verdict: verdict.kind == "error_mismatch"
            and "NotFoundError" in verdict.detail and "UnimplementedError" in verdict.detail,
            "INTENTIONAL: a window over the batch or channel axis in float64 or float16: TF finds no CPU "
            "kernel first (NotFoundError); minitf raises UnimplementedError, as TF does for float32")
TABLE.known("nn.avg_pool3d", lambda case, verdict: verdict.kind == "minitf_raises"
            and "Pooling is not yet supported on the depth dimension" in verdict.detail,
            "INTENTIONAL: a stride on the channel axis: TF's oneDNN AvgPool3D ignores it and returns the "
            "unstrided result; TF's MaxPool3D and plain AvgPool3D kernels, and minitf, raise "
            "UnimplementedError")
