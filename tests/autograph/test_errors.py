"""TF's AutoGraph errors: undefined names in branches and loops, loop variables that change
dtype, shape or structure, non-boolean conditions, returns inside staged loops; and the
functions AutoGraph leaves unconverted (with TF's warning) or must not convert.

The expected type and message of each program in `autograph_error_programs.ERRORS` are TF
2.21's; `test_tf_raises_the_same_errors` checks them against TensorFlow itself.
"""
import importlib.util
import logging
import os

import pytest

import minitf as tf
from minitf.autograph import api, operators_control_flow
from minitf.autograph.ag_errors import ConversionError, UnsupportedLanguageElementError
from minitf.ops import control_flow

_PROGRAMS = os.path.join(os.path.dirname(__file__), "autograph_error_programs.py")


def _load(lib, name):
    """The error programs, with `tf` bound to `lib`."""
    spec = importlib.util.spec_from_file_location(name, _PROGRAMS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.tf = lib
    return module


MINITF_PROGRAMS = _load(tf, "autograph_error_programs_minitf")


def _matches(error, type_name, message):
    if type(error).__name__ != type_name:
        return False
    text = str(error)
    return text.startswith(message[:-3]) if message.endswith("...") else text == message


@pytest.mark.parametrize("fn, make_args, type_name, message", MINITF_PROGRAMS.ERRORS,
                         ids=[e[0].__name__ for e in MINITF_PROGRAMS.ERRORS])
def test_converted_code_raises_tf_errors(fn, make_args, type_name, message):
    with pytest.raises(Exception) as info:
        api.convert(fn)(*make_args(tf))
    assert _matches(info.value, type_name, message), repr(info.value)


@pytest.mark.parametrize("fn, make_args", MINITF_PROGRAMS.WORKING,
                         ids=[w[0].__name__ for w in MINITF_PROGRAMS.WORKING])
def test_loops_defining_their_variables_work(fn, make_args):
    expected = {"loop_must_iterate_once": 4, "loop_var_none_before": 3, "loop_over_scalar": 6}
    assert int(api.convert(fn)(*make_args(tf))) == expected[fn.__name__]


def test_tf_raises_the_same_errors():
    tf_ref = pytest.importorskip("tensorflow")
    programs = _load(tf_ref, "autograph_error_programs_tf")
    for fn, make_args, type_name, message in programs.ERRORS:
        with pytest.raises(Exception) as info:
            tf_ref.autograph.to_graph(fn)(*make_args(tf_ref))
        assert _matches(info.value, type_name, message), (fn.__name__, repr(info.value))
    for (fn, make_args), ours in zip(programs.WORKING, MINITF_PROGRAMS.WORKING):
        expected = tf_ref.autograph.to_graph(fn)(*make_args(tf_ref))
        assert int(api.convert(ours[0])(*ours[1](tf))) == int(expected)


# -- both branches of a staged if: what the graph checks -------------------------------------

@pytest.fixture
def both_branches(monkeypatch):
    """Stage conds as a graph does: both branches run (state restored between them), and the
    taken one's result is returned."""
    def cond(pred, true_fn, false_fn, name=None):
        other = false_fn() if bool(pred) else true_fn()
        del other
        return true_fn() if bool(pred) else false_fn()
    monkeypatch.setattr(control_flow, "cond", cond)


def _if_program(x):
    if x > 0:
        y = 1
    return y


def _if_dtypes(x):
    if x > 0:
        y = 1
    else:
        y = 2.0
    return y


def _if_structures(x):
    if x > 0:
        y = (1, 2)
    else:
        y = 3
    return y


def _if_return_only_in_body(x):
    for _ in range(1):
        if x > 0:
            return 1
    return 2


def _if_exp_dtypes(x):
    return 1 if x > 0 else 2.5


def test_staged_if_checks_both_branches(both_branches):
    with pytest.raises(ValueError, match="^'y' must also be initialized in the else branch$"):
        api.convert(_if_program)(tf.constant(1))
    with pytest.raises(TypeError, match="^'y' has dtype int32 in the main branch, but dtype "
                                        "float32 in the else branch$"):
        api.convert(_if_dtypes)(tf.constant(1))
    with pytest.raises(TypeError, match="^'y' must have the same nested structure in the main "
                                        "and else branches"):
        api.convert(_if_structures)(tf.constant(1))
    with pytest.raises(TypeError, match="^'x > 0' has dtype int32 in the main branch, but dtype "
                                        "float32 in the else branch$"):
        api.convert(_if_exp_dtypes)(tf.constant(1))


def test_a_branch_without_its_return_is_an_error_once_staged():
    with pytest.raises(ValueError, match="^the else branch must also have a return statement.$"):
        api.convert(_if_return_only_in_body)(tf.constant(-1))
    assert api.convert(_if_return_only_in_body)(-1) == 2  # Python condition: Python semantics


def _loop_undefined_in_graph(n):
    i = 0
    while i < n:
        y = i
        i += 1
    return y


def test_undefined_loop_variable_while_tracing_needs_a_scratch_graph(monkeypatch):
    """Tracing without a registered scratch graph, an undefined loop variable is TF's error."""
    monkeypatch.setattr(operators_control_flow, "_tracing", lambda: True)
    monkeypatch.setattr(operators_control_flow, "_scratch_graph", [None])
    with pytest.raises(ValueError, match="^'y' must be defined before the loop\nNote: AutoGraph "
                                         "could not stage one iteration"):
        api.convert(_loop_undefined_in_graph)(tf.constant(3))


# -- what is not converted -------------------------------------------------------------------

def _generator(n):
    for i in range(n):
        yield i * 2


def _for_else(xs):
    for x in xs:
        if x:
            break
    else:
        return -1
    return 1


def test_unconvertible_functions_run_as_written_with_one_warning(caplog):
    with caplog.at_level(logging.WARNING, logger="minitf.autograph"):
        converted = api.convert(_generator)
        again = api.convert(_generator)
    assert converted is _generator and again is _generator
    assert list(converted(3)) == [0, 2, 4]
    warnings = [r for r in caplog.records if "could not transform" in r.getMessage()]
    assert len(warnings) == 1
    assert "generators are not supported" in warnings[0].getMessage()
    assert "@tf.autograph.experimental.do_not_convert" in warnings[0].getMessage()
    with pytest.raises(UnsupportedLanguageElementError, match="for/else statement not yet supported"):
        tf.autograph.to_code(_for_else)


def test_missing_source_warns_unable_to_locate_and_runs_unconverted(caplog):
    namespace = {}
    exec(compile("def made(x):\n    return x + 1\n", "/nonexistent/made.py", "exec"), namespace)
    made = namespace["made"]
    with caplog.at_level(logging.WARNING, logger="minitf.autograph"):
        assert api.convert(made) is made
        assert api.convert(made) is made
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 1 and "Unable to locate the source code of" in messages[0]
    with pytest.raises(ConversionError, match="Unable to locate the source code"):
        tf.autograph.to_graph(made)


def test_to_graph_needs_a_code_object():
    with pytest.raises(ConversionError, match="doesn't expose a __code__ object"):
        tf.autograph.to_graph(tf.function(lambda x: x))


@tf.autograph.experimental.do_not_convert
def _kept_python(x):
    if x > 0:  # a tensor here stays a Python `if`: bool(tensor) eagerly
        return "python if"
    return "python else"


def _calls_kept(x):
    return _kept_python(x)


def test_do_not_convert_is_honoured(monkeypatch):
    staged = []
    monkeypatch.setattr(control_flow, "cond",
                        lambda *a, **k: staged.append(1) or (a[1]() if bool(a[0]) else a[2]()))
    assert api.convert(_kept_python) is _kept_python
    assert api.convert(_calls_kept)(tf.constant(1)) == "python if"
    assert not staged
    assert tf.autograph.experimental.do_not_convert()(len) is not len  # usable as @...()
