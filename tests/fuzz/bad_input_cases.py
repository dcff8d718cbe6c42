"""The bad-input fuzz's cases: wrong calls of common public functions (tf.* ops here, Keras and
tf.data in bad_input_cases_keras.py). `CASES` holds them all; see bad_input_harness.py for how
each is run and judged.

Each group gives a function, the callable that makes the call with `lib` (minitf or
tensorflow), and its wrong calls: wrong types (None, str, dict, list of str, float where int,
bool, nested lists), wrong values (negative sizes, NaN, inf, out-of-range axes, zero), wrong
shapes and ranks, mismatched dtypes, missing required arguments, unknown keywords; a few
borderline calls TF accepts, whose results are compared.
"""
import numpy as np

from bad_input_harness import A, BadCall, D, T, V

NAN, INF = float("nan"), float("inf")
X = T(np.arange(6, dtype=np.float32).reshape(2, 3))            # float32 [2, 3]
X2 = T(np.arange(8, dtype=np.float32).reshape(2, 4))           # float32 [2, 4]
XI = T(np.arange(6, dtype=np.int32).reshape(2, 3))             # int32 [2, 3]
XB = T(np.array([[True, False, True], [False, True, False]]))  # bool [2, 3]
X64 = T(np.arange(6, dtype=np.float64).reshape(2, 3))          # float64 [2, 3]
VEC = T(np.array([1.0, -2.0, 3.0], np.float32))                # float32 [3]
S = T(np.float32(2.0))                                         # float32 scalar
ONE = T(np.ones((2, 1, 3), np.float32))                        # float32 [2, 1, 3]
EMPTY = T(np.zeros((0, 3), np.float32))                        # float32 [0, 3]
IMG = T(np.arange(32, dtype=np.float32).reshape(1, 4, 4, 2) / 32)   # NHWC [1, 4, 4, 2]
FILT = T(np.ones((2, 2, 2, 3), np.float32) / 8)                     # HWIO [2, 2, 2, 3]
STR = T(np.array([b"a", b"b"], dtype=object))

CASES = []


def group(func, fn, cases, names=()):
    """Add the calls `cases` (Case objects) of `func`, made by `fn(lib, *args, **kwargs)`."""
    for case in cases:
        CASES.append(BadCall(func, fn, case, tuple(names)))


def op(path):
    """fn calling `lib.<path>(*args, **kwargs)`."""
    def call(lib, *args, **kwargs):
        target = lib
        for part in path.split("."):
            target = getattr(target, part)
        return target(*args, **kwargs)
    return call


def random_op(path):
    """fn calling a random op; the result's shape and dtype are compared, not its values."""
    inner = op(path)

    def call(lib, *args, **kwargs):
        y = inner(lib, *args, **kwargs)
        return list(y.shape), y.dtype.name
    return call


# -- tensor creation ---------------------------------------------------------------------------
group("tf.constant", op("constant"), [
    A(), A([1, "a"]), A([[1, 2], [3]]), A({"a": 1}), A(1.5, dtype="int32"), A([1, 2, 3], shape=[2]),
    A(1, dtype="notadtype"), A(object()), A(1, bogus=1), A("abc", dtype="float32"),
    A([1, 2], shape=[2, 2]), A(NAN, dtype="int32"), A(None), A([[1.0], [None]]),
    A(1, shape=[-1]), A(1, shape="ab"), A([1, 2], dtype=D("string")), A(-1, dtype="uint8"),
    A(3, shape=[2, 2]), A([1.5, 2.5], dtype="float16"), A(True, dtype="float32"),
], names=("Const",))

for name in ("zeros", "ones"):
    group(f"tf.{name}", op(name), [
        A(), A("abc"), A(None), A([2, -1]), A([2.5]), A({"a": 1}), A([["a"]]), A([2], dtype="foo"),
        A([NAN]), A([[2, 3]]), A(-1), A(3, bogus=1), A([2, INF]), A([2, "3"]), A(1.5),
        A([2, 3], dtype=D("int32")), A([0, 3]), A(T(np.array([2, 3], np.float32))),
        A([2, None]), A(2, dtype=5),
    ], names=("Fill", "Zeros", "Ones"))

group("tf.fill", op("fill"), [
    A([2, 2], None), A("a", 1), A([2, -1], 1), A([2, 2], [1, 2]), A(None, 1), A([2.5], 1),
    A([2, 2]), A([2, 2], {"a": 1}), A([[2, 2]], 1), A([2], 1.5, bogus=1), A([NAN], 1),
    A([2], "x"), A([2, 2], X), A(-3, 1), A([2, 0], 7), A([2], 5, name=3),
], names=("Fill",))

group("tf.range", op("range"), [
    A("a"), A(None), A(0, 10, 0), A(10, 0, 1), A(0, INF), A(NAN), A([1, 2]), A(1, 5, -1),
    A(0, 5, dtype="string"), A(0, 3, dtype="bool"), A(0, 5, 0.0), A(0, 5, "x"), A(5, bogus=1),
    A(0.5, 3, dtype="int32"), A(0, 5, 2.5), A(-3), A(T(np.array([3], np.int32)))],
    names=("Range",))

group("tf.eye", op("eye"), [
    A(-1), A("a"), A(2.5), A(None), A(2, num_columns=-1), A(2, batch_shape=[-1]),
    A(2, batch_shape="a"), A(2, dtype="foo"), A([2, 3]), A(2, num_columns="x"), A(NAN),
    A(2, batch_shape=[1.5]), A(0), A(2, bogus=1), A(2, num_columns=3, batch_shape=[2])],
    names=("MatrixDiag", "Eye"))

group("tf.one_hot", op("one_hot"), [
    A([0, 1], depth=-1), A([0, 1], depth=None), A([0, 1], "a"), A([0.5, 1.0], 3), A(["a"], 3),
    A([0, 1], 3, axis=5), A([0, 1], 3, on_value="a"), A([0, 1], 3, dtype="int32", on_value=1.5),
    A([0, 1], 2.5), A([0, 5, -1], 3), A([0, 1]), A([0, 1], 3, axis=-3), A([0, 1], 3, dtype="foo"),
    A(None, 3), A([0, 1], 3, on_value=[1, 2]), A([0, 1], 3, on_value=1, off_value=0.5),
    A([0, 1], [3]), A([0, 1], 3, bogus=1)], names=("OneHot",))

# -- shape ops ---------------------------------------------------------------------------------
group("tf.reshape", op("reshape"), [
    A(X, None), A(X, "abc"), A(X, [4, 4]), A(X, [-1, -1]), A(X, [2.5, 2]), A(X, [-2, 3]),
    A(X, {"a": 1}), A(X, [[2, 3]]), A(X), A(X, [5, -1]), A(None, [1]), A(X, [NAN, 2]),
    A(X, [3, "2"]), A(X, 6.0), A(X, [6], bogus=1), A(X, [0, -1]), A(X, [True, 6]),
    A(X, [2, None]), A(STR, [2, 1]), A([[1, 2], [3]], [3])], names=("Reshape",))

group("tf.transpose", op("transpose"), [
    A(X, [0]), A(X, [0, 0]), A(X, [0, 2]), A(X, "ab"), A(X, [0.5, 1]), A(X, perm=None),
    A(None), A(X, [1, 0, 2]), A(X, [-1, 0]), A(X, {"a": 1}), A(X, [[1, 0]]), A(X, 1),
    A("abc"), A(X, [1, 0], bogus=1), A(X, [NAN, 0])], names=("Transpose",))

group("tf.concat", op("concat"), [
    A([X, X2], 0), A([], 0), A([X, X], 2), A([X, X], -3), A([X, XI], 0), A(X, 0),
    A([X, X], axis=None), A([X, X], axis="a"), A([X, X], axis=1.5), A([X, X], axis={"x": [1]}),
    A(NAN, axis={"x": [1]}), A([X, S], 0), A(None, 0), A([X, X]), A([X, None], 0),
    A([X, "a"], 0), A([X, X], axis=[0, 1]), A([X, X2], 1), A([X, X], NAN), A([[1, 2], [3]], 0),
    A([X, X], 0, bogus=1)], names=("ConcatV2", "Concat"))

group("tf.stack", op("stack"), [
    A([X, X2]), A([]), A([X, X], axis=3), A([X, X], axis=-4), A([X, XI]), A([X, X], axis="a"),
    A(None), A([X, X], axis=1.5), A(["a", 1]), A([X, None]), A([X, X], axis=None),
    A([X, X], axis=[0]), A(X), A([X, S]), A([X, X], bogus=1), A([[1, 2], [3]])],
    names=("Pack", "Stack"))

group("tf.expand_dims", op("expand_dims"), [
    A(X, 3), A(X, -4), A(X, None), A(X, "a"), A(X, 1.5), A(X, [0, 1]), A(X), A(None, 0),
    A(X, NAN), A(X, {"a": 0}), A(X, [[0]]), A(X, 0, bogus=1), A("abc", 0), A(X, True)],
    names=("ExpandDims",))

group("tf.squeeze", op("squeeze"), [
    A(X, 0), A(X, 5), A(X, "a"), A(X, [0.5]), A(X, axis=[[0]]), A(None), A(ONE, -4),
    A(ONE, [1, 1]), A(ONE, 1.5), A(ONE, {"a": 1}), A(ONE, None), A(ONE, [0, 1]), A(ONE, bogus=1),
    A([[1], ["a"]])], names=("Squeeze",))

group("tf.tile", op("tile"), [
    A(X, [2]), A(X, [-1, 2]), A(X, None), A(X, "ab"), A(X, [1.5, 2]), A(X, [[1, 2]]), A(X, 2),
    A(X, [0, 1]), A(X), A(None, [1]), A(X, [NAN, 1]), A(X, [1, 2, 3]), A(X, {"a": 1}),
    A(X, [1, 2], bogus=1), A(S, [2])], names=("Tile",))

group("tf.gather", op("gather"), [
    A(X, [5]), A(X, [-1]), A(X, [0.5]), A(X, "a"), A(X, [0], axis=3), A(X, [0], axis=None),
    A(X, [0], axis="a"), A(X, [0], batch_dims=3), A(X, None), A(X, [[0, 1]], axis=1),
    A(X, [0], axis=1.5), A(None, [0]), A(X), A(X, [0], axis=-3), A(X, [NAN]),
    A(X, [0, 2], axis=1), A(X, [0], bogus=1), A(S, [0]), A(X, [0], batch_dims="a")],
    names=("GatherV2", "Gather"))

group("tf.slice", op("slice"), [
    A(X, [0], [1]), A(X, [0, 0], [3, 1]), A(X, [-1, 0], [1, 1]), A(X, [0, 0], [-2, 1]),
    A(X, None, [1, 1]), A(X, "ab", [1, 1]), A(X, [0.5, 0], [1, 1]), A(X, [0, 0]),
    A(X, [0, 0], [1, -1]), A(X, [0, 0], None), A(X, [0, 4], [1, 0]), A(None, [0], [1]),
    A(X, [[0, 0]], [[1, 1]]), A(X, [0, 0], [1, 1], bogus=1), A(X, [0, NAN], [1, 1]),
    A(X, [0, 0], [1.5, 1])], names=("Slice",))

group("tf.split", op("split"), [
    A(X, 4, axis=1), A(X, 0), A(X, -1), A(X, [1, 1], axis=1), A(X, [2, -1], axis=1),
    A(X, [-1, -1], axis=1), A(X, "a"), A(X, 1.5), A(X, 2, axis=5), A(X, None), A(X),
    A(None, 2), A(X, 3, axis=1, num=2), A(X, [1, 2], axis=1, num=3), A(X, 2, axis="a"),
    A(X, [[1, 2]], axis=1), A(X, NAN), A(X, 2, bogus=1), A(X, [0, 3], axis=1)],
    names=("SplitV", "Split"))

group("tf.pad", op("pad"), [
    A(X, [[1, 1]]), A(X, [[1, 1], [-1, 1]]), A(X, [[1, 1], [1, 1]], mode="foo"),
    A(X, [[3, 3], [1, 1]], mode="REFLECT"), A(X, None), A(X, "ab"), A(X, [[0.5, 1], [1, 1]]),
    A(X, [[1, 1], [1, 1]], constant_values="a"), A(X, [[1, 1], [1, 1]], constant_values=[1, 2]),
    A(X, [[1, 1], [1, 1]], mode="reflect"), A(X), A(None, [[1, 1]]), A(X, [[1, 1, 1], [1, 1, 1]]),
    A(X, [[1, 1], [1, 1]], mode=None), A(X, [[1, 1], [1, 1]], mode=3), A(X, {"a": 1}),
    A(X, [[2, 2], [3, 3]], mode="SYMMETRIC"), A(X, [[1, 1], [1, 1]], bogus=1),
    A(X, [[1, NAN], [1, 1]]), A(XI, [[1, 1], [0, 0]], constant_values=1.5)],
    names=("PadV2", "Pad", "MirrorPad"))

group("tf.cast", op("cast"), [
    A(X, None), A(X, "foo"), A(X, "string"), A("abc", "float32"), A(X), A(X, 5), A(X, [1]),
    A(None, "float32"), A(X, "int32", bogus=1), A({"a": 1}, "float32"), A([1, "a"], "int32"),
    A(STR, "int32"), A(X, D("int8")), A([NAN, INF], "int32"), A(X, "complex64"),
    A(X, {"a": 1})], names=("Cast",))

# -- math and reductions -----------------------------------------------------------------------
group("tf.add", op("add"), [
    A(X, X2), A(X, XI), A(X, "a"), A(X, None), A(X, [1, 2]), A("a", "b"), A(X, {"a": 1}),
    A(X, [[1, "a"]]), A(X), A(X, X, bogus=1), A(XI, 2.5), A(XB, XB), A(X, X64), A(X, NAN),
    A(STR, 1), A([[1, 2], [3]], 1)], names=("AddV2", "Add"))

group("tf.matmul", op("matmul"), [
    A(X, X), A(VEC, VEC), A(X, XI), A(X, None), A(X, "a"), A(X, X, transpose_a="yes"),
    A(X, X, transpose_a=True, adjoint_a=True), A(XI, T(np.ones((3, 2), np.int32))),
    A(X, [[1.0], [2.0], [3.0]]), A(XB, XB), A(S, S), A(X), A(X, X64),
    A(X, [[1, 2, 3]], transpose_b=True), A(X, X, bogus=1), A(X, [["a"], ["b"], ["c"]]),
    A(ONE, T(np.ones((3, 3, 2), np.float32)))], names=("MatMul", "BatchMatMulV2"))

for name in ("reduce_sum", "reduce_mean"):
    group(f"tf.{name}", op(name), [
        A(X, axis=2), A(X, axis=-3), A(X, axis="a"), A(X, axis=1.5), A(X, axis=[0, 0]),
        A(X, axis=[[0]]), A("a"), A(None), A(X, keepdims="yes"), A(XB), A(X, axis=None),
        A(X, axis=NAN), A(X, axis={"a": 0}), A(X, 0, bogus=1), A(STR), A(EMPTY, 0),
        A(X, axis=[0, 2]), A(X, axis=[]), A([[1, 2], [3]])], names=("Sum", "Mean"))

group("tf.argmax", op("argmax"), [
    A(X, axis=2), A(X, axis=None), A(X, axis="a"), A(X, axis=[0, 1]),
    A(X, output_type="float32"), A(S), A("a"), A(X, axis=1.5), A(EMPTY, 0), A(XB),
    A(X, axis=-3), A(None), A(X, 0, bogus=1), A(X, axis=NAN), A(X, output_type="foo"),
    A(STR)], names=("ArgMax",))

group("tf.clip_by_value", op("clip_by_value"), [
    A(X, 1.0, 0.0), A(X, "a", 1.0), A(X, None, 1.0), A(X, [1.0, 2.0], 3.0), A(XI, 0.5, 1.5),
    A(X, XI, 5.0), A(X, 0.0), A("a", 0, 1), A(X, NAN, 1.0), A(None, 0.0, 1.0),
    A(X, [[0.0, 0.0, 0.0, 0.0]], 1.0), A(X, 0.0, 1.0, bogus=1), A(X, 0.0, "b"),
    A(X, {"a": 0}, 1.0), A(STR, 0, 1)], names=("ClipByValue",))

group("tf.nn.softmax", op("nn.softmax"), [
    A(XI), A(X, axis=2), A(X, axis="a"), A(X, axis=1.5), A(None), A("a"), A(S),
    A(X, axis=[0]), A(XB), A(X, axis=None), A(X, axis=-3), A(X, bogus=1), A([[1, 2], [3]]),
    A(X, axis=NAN), A(STR)], names=("Softmax",))

group("tf.nn.relu", op("nn.relu"), [
    A("a"), A(None), A(XB), A({"a": 1}), A([1, "a"]), A(X, bogus=1), A(), A([1, -2]),
    A(NAN), A([[1, 2], [3]]), A(STR), A(X, name=5)], names=("Relu",))

# TF 2.21 aborts the process (a failed CHECK) on a rank-3 conv2d input and on a max_pool2d
# window larger than a VALID input, and returns uninitialized memory for a conv2d filter larger
# than a VALID input, so those calls are left out: TF cannot judge them.
group("tf.nn.conv2d", op("nn.conv2d"), [
    A(IMG, T(np.ones((2, 2, 3), np.float32)), 1, "SAME"),
    A(IMG, T(np.ones((2, 2, 5, 3), np.float32)), 1, "SAME"),
    A(IMG, FILT, 0, "SAME"), A(IMG, FILT, -1, "SAME"), A(IMG, FILT, "a", "SAME"),
    A(IMG, FILT, 1, "foo"), A(IMG, FILT, 1, None), A(IMG, FILT, 1, "SAME", dilations=0),
    A(IMG, FILT, 1, "SAME", data_format="NCHW"), A(IMG, FILT, 1, "SAME", data_format="foo"),
    A(T(np.ones((1, 4, 4, 2), np.int32)), T(np.ones((2, 2, 2, 3), np.int32)), 1, "SAME"),
    A(IMG, FILT, [1, 1], "SAME"),
    A(IMG, FILT, [1, 1, 1], "SAME"), A(IMG, FILT, 1.5, "SAME"), A(IMG, FILT, 1),
    A(None, FILT, 1, "SAME"), A(IMG, FILT, 1, "SAME", bogus=1),
    A(IMG, T(np.ones((2, 2, 2, 3), np.float64)), 1, "SAME"), A(IMG, FILT, 1, [[0, 0]] * 4),
    A(IMG, FILT, 1, "SAME", dilations=[2, 2]), A(IMG, FILT, 1, "VALID", dilations=-1)],
    names=("Conv2D",))

group("tf.nn.max_pool2d", op("nn.max_pool2d"), [
    A(IMG, 0, 1, "SAME"), A(IMG, -1, 1, "SAME"), A(IMG, 2, 0, "SAME"), A(IMG, 2, 1, "foo"),
    A(T(np.ones((4, 4, 2), np.float32)), 2, 1, "SAME"), A(IMG, "a", 1, "SAME"),
    A(IMG, 2, 1, "SAME", data_format="NCHW"), A(IMG, 2, None, "SAME"),
    A(IMG, 2), A(IMG, 1.5, 1, "SAME"), A(IMG, [2, 2, 2], 1, "SAME"), A(None, 2, 1, "SAME"),
    A(IMG, 2, 1, None), A(IMG, 2, 1, "SAME", bogus=1), A(IMG, 2, 1, "SAME", data_format="foo"),
    A(T(np.ones((1, 4, 4, 2), np.bool_)), 2, 1, "SAME"), A(IMG, [2, 2], [1, 1], "VALID")],
    names=("MaxPool",))

for name in ("normal", "uniform"):
    group(f"tf.random.{name}", random_op(f"random.{name}"), [
        A(-1), A("a"), A(None), A([2.5]), A([2, -1]), A([2], seed="a"), A([NAN]), A([2], bogus=1),
        A([[2, 3]]), A([2], dtype="foo"), A([2], dtype="string"), A({"a": 1}), A(),
        A([2], dtype="int32"), A([2], 1.0, "a"), A([3], [1.0, 2.0]), A([2], seed=1.5)],
        names=("RandomStandardNormal", "RandomUniform", "RandomUniformInt"))

group("tf.random.uniform", random_op("random.uniform"), [
    A([2], 5, 1, dtype="int32"), A([2], 0, dtype="int32"), A([2], 3, 3, dtype="int32"),
    A([2], 0.0, NAN), A([2], "a", 1.0), A([2], 0, 1.5, dtype="int64")],
    names=("RandomUniform", "RandomUniformInt"))

group("tf.random.normal", random_op("random.normal"), [
    A([2], mean="a"), A([2], stddev=-1.0), A([2], mean=NAN), A([2], stddev=None)],
    names=("RandomStandardNormal",))

# -- variables and gradients -------------------------------------------------------------------
group("tf.Variable", op("Variable"), [
    A(None), A([1, "a"]), A([[1, 2], [3]]), A(1.0, dtype="foo"), A(1.0, shape="a"),
    A(1.0, bogus=1), A(1.0, constraint=5), A(X, shape=[5]), A(), A({"a": 1}),
    A(1.0, trainable="yes"), A(1.5, dtype="int32"), A(1.0, synchronization=7),
    A(1.0, aggregation="foo"), A(object()), A(NAN, dtype="int32"), A(1.0, name=5),
    A([1.0, 2.0], shape=[None])], names=("Variable", "VarHandleOp"))


def method(name):
    """fn calling `variable.<name>(*args)`, returning the variable's value after it."""
    def call(lib, var, *args, **kwargs):
        getattr(var, name)(*args, **kwargs)
        return var.numpy()
    return call


VF = V(np.array([1.0, 2.0], np.float32))
VI = V(np.array([1, 2], np.int32))
for name in ("assign", "assign_add", "assign_sub"):
    group(f"Variable.{name}", method(name), [
        A(VF, [1.0, 2.0, 3.0]), A(VF, "a"), A(VF, None), A(VI, 1.5), A(VF, T(np.array([1.0, 2.0]))),
        A(VF, [[1.0, 2.0]]), A(VF), A(VF, {"a": 1}), A(VF, [1.0, "a"]),
        A(VF, [1.0, 2.0], bogus=1), A(VF, XI), A(VF, [NAN, INF]), A(VI, [1, 2], read_value="x"),
        A(VF, T(np.array([1, 2], np.int32))), A(VF, 3.0), A(VF, STR)],
        names=("AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp", "Variable"))


def _tape(lib, target, *sources, **kwargs):
    """tape.gradient(target, *sources) on y = sum(v * v), with "<y>" and "<v>" standing for y
    and v anywhere in the arguments (no source given: the call leaves `sources` out)."""
    v = lib.Variable([1.0, 2.0])
    with lib.GradientTape() as tape:
        y = lib.reduce_sum(v * v)
    pick = {"<y>": y, "<v>": v}

    def sub(obj):
        if isinstance(obj, list):
            return [sub(o) for o in obj]
        if isinstance(obj, dict):
            return {k: sub(o) for k, o in obj.items()}
        return pick[obj] if isinstance(obj, str) and obj in pick else obj
    return tape.gradient(sub(target), *sub(list(sources)), **kwargs)


def _tape_again(lib, what):
    """A second gradient() of a non-persistent tape ("twice"), or one of an int variable."""
    v = lib.Variable([1.0, 2.0] if what == "twice" else [1, 2])
    with lib.GradientTape() as tape:
        y = lib.reduce_sum(v * v)
    if what == "twice":
        tape.gradient(y, v)
    return tape.gradient(y, v)


group("GradientTape.gradient", _tape, [
    A(None, "<v>"), A("<y>", None), A("<y>", "a"), A("<y>", 5), A("<y>", "<v>", output_gradients=[1.0, 2.0, 3.0]),
    A("<y>", "<v>", unconnected_gradients="foo"), A("a", "<v>"), A("<y>", "<v>", bogus=1),
    A("<y>", {"a": "<v>"}), A("<y>", ["<v>", "<v>"]), A("<y>", "<v>", output_gradients="a"),
    A("<y>", X), A("<y>", "<v>", unconnected_gradients="zero"), A("<y>", ["<v>", None]),
    A("<y>", ["a"]), A(1.5, "<v>"), A("<y>"), A("<y>", "<v>", output_gradients=[[1.0]]),
], names=("gradient", "GradientTape"))
group("GradientTape.gradient", _tape_again, [A("twice"), A("int")], names=("gradient", "GradientTape"))

from bad_input_cases_keras import keras_cases  # noqa: E402 -- the second half of the cases

for func, fn, cases, names in keras_cases():
    group(func, fn, cases, names)

_ids = [c.id for c in CASES]
assert len(set(_ids)) == len(_ids), sorted({i for i in _ids if _ids.count(i) > 1})
