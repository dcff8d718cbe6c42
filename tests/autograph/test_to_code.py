"""`tf.autograph.to_code` prints what TF 2.21 prints.

Every function of `autograph_tocode_examples.py` (the guides' examples, then one per converter
pass and construct) is converted by both libraries from the same source file and the texts are
compared after normalisation: blank lines and trailing spaces dropped, the names of each
`nonlocal`/`global` statement sorted, and each run of `x = ag__.Undefined('x')` lines sorted
(TF emits both in an order taken from a set, which changes from run to run). Nothing else
differs: the comparison is exact text for every example and for the optional features ALL,
ASSERT_STATEMENTS, BUILTIN_FUNCTIONS and EQUALITY_OPERATORS on code without list idioms.
Not reproduced: the LISTS feature's converters (TF turns `[]` into a TensorList and
`x.append(v)` into `ag__.list_append`, list items into `ag__.get_item`/`set_item`): minitf
has no TensorList type, so with LISTS lists stay Python lists (test below).
Without TensorFlow, the guides' three examples are checked against TF's text stored in
`autograph_tf_golden.py`.
"""
import inspect
import re

import pytest

import autograph_tf_golden as golden
import autograph_tocode_examples as examples
import minitf as tf

EXAMPLES = [name for name, value in vars(examples).items() if inspect.isfunction(value)]


def normalise(text):
    lines = []
    for line in text.splitlines():
        line = line.rstrip()
        if not line.strip():
            continue
        declaration = re.match(r"^(\s*)(nonlocal|global) (.*)$", line)
        if declaration:
            names = sorted(n.strip() for n in declaration.group(3).split(","))
            line = f"{declaration.group(1)}{declaration.group(2)} {', '.join(names)}"
        lines.append(line)
    result, run = [], []
    for line in lines + [None]:
        if line is not None and re.match(r"^\s*\w+ = ag__\.Undefined\('\w+'\)$", line):
            run.append(line)
            continue
        result.extend(sorted(run))
        run = []
        if line is not None:
            result.append(line)
    return "\n".join(result)


def test_there_are_many_examples():
    assert len(EXAMPLES) >= 40


@pytest.mark.parametrize("name, text", [("simple_relu", golden.SIMPLE_RELU),
                                        ("reduce_loop", golden.REDUCE_LOOP),
                                        ("fizzbuzz", golden.FIZZBUZZ)])
def test_guide_examples_match_tf_text(name, text):
    code = tf.autograph.to_code(getattr(examples, name))
    assert normalise(code) == normalise(text)
    assert code.endswith("\n") and code.startswith(f"def tf__{name}(")


def test_to_code_output_is_deterministic():
    first = [tf.autograph.to_code(getattr(examples, n)) for n in EXAMPLES]
    assert first == [tf.autograph.to_code(getattr(examples, n)) for n in EXAMPLES]
    for text in first:
        for line in text.splitlines():
            declaration = re.match(r"^\s*(?:nonlocal|global) (.*)$", line)
            if declaration:  # minitf sorts the names itself
                names = [n.strip() for n in declaration.group(1).split(",")]
                assert names == sorted(names)


@pytest.mark.parametrize("name", EXAMPLES)
def test_to_code_matches_tensorflow(name):
    tf_ref = pytest.importorskip("tensorflow")
    entity = getattr(examples, name)
    assert normalise(tf.autograph.to_code(entity)) == normalise(tf_ref.autograph.to_code(entity))


class _Holder:
    def method(self, x):
        if x > 0:
            self.v = x
        return self.v


_lam = lambda x, y=2: x * y if x > 0 else y  # noqa: E731 (a lambda is what is converted)
_lam_logic = lambda: [i for i in range(3) if i and not i > 2]  # noqa: E731


def _asserts_and_equality(x):
    assert x > 0, "positive"
    assert x
    return x == 3 or x != 4


ENTITIES = [
    ("method", lambda lib: _Holder().method, {}),
    ("lambda", lambda lib: _lam, {}),
    ("lambda_logic", lambda lib: _lam_logic, {}),
    ("feature_all", lambda lib: _asserts_and_equality, {"feature": "ALL"}),
    ("feature_equality", lambda lib: _asserts_and_equality, {"feature": "EQUALITY_OPERATORS"}),
    ("feature_asserts", lambda lib: _asserts_and_equality, {"feature": "ASSERT_STATEMENTS"}),
    ("feature_builtins", lambda lib: examples.print_builtin_feature,
     {"feature": "BUILTIN_FUNCTIONS"}),
    ("not_recursive", lambda lib: examples.fizzbuzz, {"recursive": False}),
]


def _to_code(lib, get, options):
    kwargs = {}
    if "feature" in options:
        kwargs["experimental_optional_features"] = getattr(
            lib.autograph.experimental.Feature, options["feature"])
    if "recursive" in options:
        kwargs["recursive"] = options["recursive"]
    return lib.autograph.to_code(get(lib), **kwargs)


@pytest.mark.parametrize("name, get, options", ENTITIES, ids=[e[0] for e in ENTITIES])
def test_methods_lambdas_and_features_match_tensorflow(name, get, options):
    tf_ref = pytest.importorskip("tensorflow")
    assert normalise(_to_code(tf, get, options)) == normalise(_to_code(tf_ref, get, options))


def test_features_change_the_generated_code():
    plain = tf.autograph.to_code(_asserts_and_equality)
    asserts = _to_code(tf, lambda lib: _asserts_and_equality, {"feature": "ASSERT_STATEMENTS"})
    equality = _to_code(tf, lambda lib: _asserts_and_equality, {"feature": "EQUALITY_OPERATORS"})
    assert "assert ag__.ld(x) > 0, 'positive'" in plain and "ag__.eq" not in plain
    assert "ag__.assert_stmt(ag__.ld(x), lambda: 'Assertion error')" in asserts
    assert "ag__.or_(lambda: ag__.eq(ag__.ld(x), 3), lambda: ag__.not_eq(ag__.ld(x), 4))" \
        in equality
    assert "optional_features=ag__.Feature.EQUALITY_OPERATORS" in equality
    lam = tf.autograph.to_code(_lam)
    assert lam.startswith("tf__lam = lambda x, y=None: ag__.with_function_scope(lambda lscope: "
                          "ag__.if_exp(x > 0")


SOURCE_MODULES = ("minitf.nest", "minitf.ops.control_flow", "minitf.data.dataset",
                  "minitf.checkpoint.state_file", "minitf.checkpoint.safe_h5",
                  "minitf.engine.training", "minitf.layers.normalization")


def test_to_code_matches_tensorflow_on_real_sources():
    """Every function and method of a few of minitf's own modules (real code: docstrings,
    try/finally, nested functions, comprehensions ...) converts to TF's text. Functions TF
    itself fails to convert are skipped (TF errs on bodies that are only a docstring)."""
    import importlib
    tf_ref = pytest.importorskip("tensorflow")
    functions = []
    for name in SOURCE_MODULES:
        module = importlib.import_module(name)
        for value in vars(module).values():
            members = vars(value).values() if inspect.isclass(value) else [value]
            functions += [f for f in members if inspect.isfunction(f) and f.__module__ == name]
    compared = 0
    for function in functions:
        try:
            expected = tf_ref.autograph.to_code(function)
        except Exception:  # noqa: BLE001 (TF cannot convert it: nothing to compare)
            continue
        assert normalise(tf.autograph.to_code(function)) == normalise(expected), \
            function.__qualname__
        compared += 1
    assert compared >= 100


def test_lists_feature_leaves_lists_as_written():
    code = tf.autograph.to_code(examples.list_in_loop,
                                experimental_optional_features=tf.autograph.experimental.Feature.LISTS)
    assert "acc = []" in code and "ag__.converted_call(ag__.ld(acc).append" in code
    assert "optional_features=ag__.Feature.LISTS" in code
