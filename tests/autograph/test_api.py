"""The `tf.autograph` namespace and AutoGraph's entry points: `convert` (what tf.function
uses), `converted_call` (which callees are converted), `to_graph`, caching, and how converted
functions share the original's globals, closure cells and defaults."""
import functools
import inspect
import logging

import numpy as np
import pytest

import minitf as tf
from minitf.autograph import api, conversion_policy, converter
from minitf.autograph.ag_errors import ConversionError
from minitf.autograph.function_scope import ConversionOptions, ControlStatusCtx, Status


def test_namespace_matches_tf():
    public = sorted(n for n in dir(tf.autograph) if not n.startswith("_")
                    and not inspect.ismodule(getattr(tf.autograph, n)) or n == "experimental")
    assert public == ["experimental", "set_verbosity", "to_code", "to_graph", "trace"]
    assert sorted(tf.autograph.__all__) == public
    assert sorted(tf.autograph.experimental.__all__) == ["Feature", "do_not_convert",
                                                         "set_loop_options"]
    assert str(inspect.signature(tf.autograph.to_code)) == \
        "(entity, recursive=True, experimental_optional_features=None)"
    assert str(inspect.signature(tf.autograph.set_verbosity)) == "(level, alsologtostdout=False)"
    assert [f.value for f in tf.autograph.experimental.Feature] == [
        "ALL", "AUTO_CONTROL_DEPS", "ASSERT_STATEMENTS", "BUILTIN_FUNCTIONS",
        "EQUALITY_OPERATORS", "LISTS", "NAME_SCOPES"]


def test_namespace_and_signatures_match_tensorflow():
    tf_ref = pytest.importorskip("tensorflow")
    for ours, theirs in ((tf.autograph, tf_ref.autograph),
                         (tf.autograph.experimental, tf_ref.autograph.experimental)):
        assert sorted(n for n in dir(ours) if n in ours.__all__) == \
            sorted(n for n in dir(theirs) if not n.startswith("_"))
        for name in ours.__all__:
            value = getattr(ours, name)
            if inspect.isfunction(value):
                ours_sig = [(p.name, p.kind) for p in inspect.signature(value).parameters.values()]
                theirs_sig = [(p.name, p.kind)
                              for p in inspect.signature(getattr(theirs, name)).parameters.values()]
                assert ours_sig == theirs_sig, name


def test_set_verbosity_trace_and_loop_options(capsys, caplog):
    tf.autograph.trace("traced", 3)
    assert capsys.readouterr().out == "traced 3\n"
    tf.autograph.set_verbosity(3, alsologtostdout=True)
    try:
        with caplog.at_level(logging.INFO, logger="minitf.autograph"):
            api.converted_call(_plain_function, (1,), None, options=ConversionOptions())
        assert "Error transforming" not in capsys.readouterr().out
    finally:
        tf.autograph.set_verbosity(0)
    assert tf.autograph.experimental.set_loop_options(maximum_iterations=2) is None


def _plain_function(x):
    return x + 1


def _branchy(x, k=10):
    if x > 0:
        return x * k
    return -x


def test_convert_returns_a_converted_function_with_the_same_signature():
    converted = api.convert(_branchy)
    assert converted is not _branchy and api.is_autograph_artifact(converted)
    assert converted.__name__ == "tf___branchy"
    assert str(inspect.signature(converted)) == str(inspect.signature(_branchy))
    assert converted(3) == 30 and converted(3, k=2) == 6 and converted(-3) == 3
    assert int(converted(tf.constant(4))) == 40
    assert api.convert(converted) is converted  # already converted


def test_conversion_is_cached_per_code_object_and_function(monkeypatch):
    first = api.convert(_branchy)
    assert api.convert(_branchy) is first  # one instance per function (and options)
    copy = type(_branchy)(_branchy.__code__, _branchy.__globals__, "copy", (7,))
    other = api.convert(copy)
    assert other is not first and other.__code__ is first.__code__  # one compiled factory
    assert other(2) == 14  # with the copy's own defaults
    monkeypatch.setattr(copy, "__defaults__", (100,))
    assert api.convert(copy)(2) == 200


def _make_counter(start):
    count = start

    def step(n):
        nonlocal count
        for _ in range(n):
            if count < 100:
                count += 1
        return count
    return step


def test_closures_share_cells_with_the_original():
    step = _make_counter(5)
    converted = api.convert(step)
    assert converted.__code__ is not step.__code__
    assert converted(2) == 7 and step(1) == 8 and converted(1) == 9
    other = api.convert(_make_counter(50))  # same code, other cells
    assert other(1) == 51 and converted(0) == 9


GLOBAL_SCALE = 2


def _reads_global(x):
    if x > 0:
        return x * GLOBAL_SCALE
    return 0


def test_converted_code_sees_the_original_globals(monkeypatch):
    converted = api.convert(_reads_global)
    assert converted(3) == 6
    monkeypatch.setattr(inspect.getmodule(_reads_global), "GLOBAL_SCALE", 5)
    assert converted(3) == 15
    assert converted.__globals__ is _reads_global.__globals__


class _Model:
    def __init__(self):
        self.calls = 0

    def __call__(self, x):
        return self.forward(x)

    def forward(self, x):
        self.calls += 1
        if x > 0:
            return x
        return 0


def test_methods_callable_objects_and_partials():
    model = _Model()
    bound = api.convert(model.forward)
    assert bound.__self__ is model and bound(tf.constant(-1)) == 0 and model.calls == 1
    assert api.convert(model)(3) == 3 and model.calls == 2
    partial = api.convert(functools.partial(_branchy, k=3))
    assert isinstance(partial, functools.partial) and partial(2) == 6
    assert api.is_autograph_artifact(partial.func)
    unbound = tf.autograph.to_graph(model.forward)  # TF: a function taking self
    assert unbound(model, 5) == 5


def test_convert_leaves_builtins_and_native_code_alone():
    assert api.convert(len) is len
    assert api.convert(np.sum) is not None
    namespace = {}
    exec("def dynamic(x):\n    return x\n", namespace)
    assert api.convert(namespace["dynamic"]) is namespace["dynamic"]


def _user_helper(x):
    if x > 0:
        return "helper positive"
    return "helper other"


def test_converted_call_converts_user_code_but_not_library_code(monkeypatch):
    converted_functions = []
    real = converter.convert

    def spy(function, options, extra_locals):
        converted_functions.append(function.__name__)
        return real(function, options, extra_locals)
    monkeypatch.setattr(converter, "convert", spy)
    options = ConversionOptions(recursive=True)
    assert api.converted_call(_user_helper, (1,), None, options=options) == "helper positive"
    assert api.converted_call(tf.reduce_sum, (tf.constant([1, 2]),), None,
                              options=options).numpy() == 3
    assert api.converted_call(np.sum, ([1, 2],), None, options=options) == 3
    assert api.converted_call(functools.reduce, (lambda a, b: a + b, [1, 2]), None,
                              options=options) == 3
    assert api.converted_call(len, ([1, 2],), None, options=options) == 2
    assert api.converted_call(dict, (), {"a": 1}, options=options) == {"a": 1}
    assert converted_functions == ["_user_helper"]
    with ControlStatusCtx(Status.DISABLED):
        assert api.converted_call(_user_helper, (1,), None, options=options) == "helper positive"
    assert converted_functions == ["_user_helper"]
    not_recursive = ConversionOptions(recursive=False).call_options()
    api.converted_call(_user_helper, (1,), None, options=not_recursive)
    assert converted_functions == ["_user_helper"]


def test_policy_rules():
    assert conversion_policy.is_allowlisted(np.sum)
    assert conversion_policy.is_allowlisted(tf.reduce_sum)
    assert conversion_policy.is_allowlisted(functools.reduce)
    assert conversion_policy.is_allowlisted(inspect.signature)
    assert not conversion_policy.is_allowlisted(_user_helper)
    layer = tf.keras.layers.Dense(2)
    assert conversion_policy.is_allowlisted(layer)  # its __call__ is library code
    assert conversion_policy.is_allowlisted(layer.build)
    assert conversion_policy.is_unsupported(dict) and conversion_policy.is_unsupported(_Model)
    assert conversion_policy.is_unsupported(functools.lru_cache(_user_helper))

    class Custom(tf.keras.layers.Layer):
        def call(self, x):
            return x
    assert not conversion_policy.is_allowlisted(Custom().call)  # user code


def _recursive_sum(n):
    if n <= 0:
        return 0
    return n + _recursive_sum(n - 1)


def test_recursion_and_decorated_wrappers():
    assert api.convert(_recursive_sum)(tf.constant(4)).numpy() == 10
    assert api.convert(_recursive_sum)(4) == 10

    @functools.wraps(_branchy)
    def wrapper(*args, **kwargs):
        return _branchy(*args, **kwargs) + 1
    converted = api.convert(wrapper)
    assert converted is not wrapper and converted(2) == 21


def test_functions_of_notebook_cells_convert(caplog):
    """The notebook harness registers each cell's text in linecache (as IPython does)."""
    import linecache
    code = ("def cell_function(x):\n"
            "    total = 0\n"
            "    for i in range(x):\n"
            "        if i % 2:\n"
            "            total += i\n"
            "    return total\n"
            "cell_lambda = lambda v: v if v > 0 else -v\n")
    name = "<cell-autograph-test>"
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    namespace = {"__name__": "__main__"}
    exec(compile(code, name, "exec"), namespace)
    with caplog.at_level(logging.WARNING, logger="minitf.autograph"):
        converted = api.convert(namespace["cell_function"])
        lam = api.convert(namespace["cell_lambda"])
    assert not caplog.records
    assert converted is not namespace["cell_function"] and converted(6) == 9
    assert lam is not namespace["cell_lambda"] and lam(-3) == 3 and int(lam(tf.constant(-2))) == 2
    assert "ag__.for_stmt" in tf.autograph.to_code(namespace["cell_function"])


def loop_with_options(steps):
    n = 0
    for i in tf.range(steps):
        tf.autograph.experimental.set_loop_options(maximum_iterations=3)
        n += 1
    return n


def test_set_loop_options_directive_reaches_the_loop():
    code = tf.autograph.to_code(loop_with_options)
    assert "{'maximum_iterations': 3, 'iterate_names': 'i'}" in code
    assert "set_loop_options" not in code  # the directive call is removed
    assert int(api.convert(loop_with_options)(tf.constant(10))) == 3  # the staged loop stops
    assert loop_with_options(tf.constant(10)) == 10  # a direct call does nothing


def misplaced_option(steps):
    n = 0
    for i in tf.range(steps):
        n += 1
        m = n
        tf.autograph.experimental.set_loop_options(maximum_iterations=3)
    return n


def test_set_loop_options_must_come_first():
    with pytest.raises(ConversionError,
                       match="ValueError: \"set_loop_options\" must be the first statement in "
                             "the loop block"):
        tf.autograph.to_code(misplaced_option)
