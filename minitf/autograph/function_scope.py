"""The runtime context of converted functions: conversion options, optional features, whether
AutoGraph is enabled where code runs, and the `FunctionScope` every converted body runs in.
"""
import enum
import threading

from minitf.autograph.converter_ast import parse_expression
from minitf.autograph.operators_variables import UndefinedReturnValue
from minitf.api_export import export

__all__ = ["Feature", "ConversionOptions", "STANDARD_OPTIONS", "Status", "ControlStatusCtx",
           "control_status_ctx", "FunctionScope", "with_function_scope"]


@export("autograph.experimental.Feature")
class Feature(enum.Enum):
    """Optional conversion features (`tf.autograph.experimental.Feature`).

    Attributes:
      ALL: every feature below.
      AUTO_CONTROL_DEPS: automatic control dependencies in generated code (accepted; minitf's
        graphs order stateful ops themselves).
      ASSERT_STATEMENTS: tensor-dependent `assert` statements become `tf.Assert`.
      BUILTIN_FUNCTIONS: calls of builtins like `print` go through AutoGraph's overloads.
      EQUALITY_OPERATORS: `==` and `!=` become `tf.equal` / `tf.not_equal` on tensors.
      LISTS: list idioms (accepted; not converted).
      NAME_SCOPES: name scopes named after the functions (accepted).
    """

    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"

    @classmethod
    def all(cls):
        """A tuple with every feature."""
        return tuple(cls.__members__.values())

    @classmethod
    def all_but(cls, exclude):
        """Every feature except `exclude` (one feature or a collection) and ALL."""
        if not isinstance(exclude, (list, tuple, set)):
            exclude = (exclude,)
        return tuple(set(cls.all()) - set(exclude) - {cls.ALL})


class ConversionOptions:
    """How a function is converted: recursively or not, whether the user asked for it (as
    opposed to a call made from converted code), whether calls convert user code, and the
    optional features. Hashable: conversions are cached per options."""

    def __init__(self, recursive=False, user_requested=False, internal_convert_user_code=True,
                 optional_features=Feature.ALL):
        self.recursive = recursive
        self.user_requested = user_requested
        self.internal_convert_user_code = internal_convert_user_code
        if optional_features is None:
            optional_features = ()
        elif isinstance(optional_features, Feature):
            optional_features = (optional_features,)
        self.optional_features = frozenset(optional_features)

    def as_tuple(self):
        """The options as a tuple (what equality and hashing use)."""
        return (self.recursive, self.user_requested, self.internal_convert_user_code,
                self.optional_features)

    def __hash__(self):
        return hash(self.as_tuple())

    def __eq__(self, other):
        return isinstance(other, ConversionOptions) and self.as_tuple() == other.as_tuple()

    def __repr__(self):
        return (f"ConversionOptions(recursive={self.recursive}, user_requested="
                f"{self.user_requested}, optional_features={sorted(f.value for f in self.optional_features)})")

    def uses(self, feature):
        """Whether `feature` (a Feature or its name) is on."""
        feature = Feature(feature) if isinstance(feature, str) else feature
        return Feature.ALL in self.optional_features or feature in self.optional_features

    def call_options(self):
        """The options for functions called from code converted with these."""
        return ConversionOptions(recursive=self.recursive, user_requested=False,
                                 internal_convert_user_code=self.recursive,
                                 optional_features=self.optional_features)

    def to_ast(self):
        """An expression that rebuilds these options in generated code (`ag__.STD` for the
        standard ones)."""
        if self == STANDARD_OPTIONS:
            return parse_expression("ag__.STD")
        # TF writes the features as a parenthesised list: one feature is then no tuple
        features = "(" + ", ".join(f"ag__.{f}" for f in self.optional_features) + ")"
        return parse_expression(
            f"ag__.ConversionOptions(recursive={self.recursive}, user_requested="
            f"{self.user_requested}, optional_features={features}, internal_convert_user_code="
            f"{self.internal_convert_user_code})")


STANDARD_OPTIONS = ConversionOptions(recursive=True, user_requested=False,
                                     internal_convert_user_code=True, optional_features=None)


class Status(enum.Enum):
    """Whether AutoGraph converts calls where code runs now."""
    UNSPECIFIED = 0
    ENABLED = 1
    DISABLED = 2


_stacks = threading.local()


def _control_stack():
    if not hasattr(_stacks, "control_status"):
        _stacks.control_status = [ControlStatusCtx(Status.UNSPECIFIED)]
    return _stacks.control_status


class ControlStatusCtx:
    """Sets the AutoGraph status for the code run inside it (per thread)."""

    def __init__(self, status, options=None):
        self.status = status
        self.options = options

    def __enter__(self):
        _control_stack().append(self)
        return self

    def __exit__(self, *exc):
        _control_stack().pop()

    def __repr__(self):
        return f"ControlStatusCtx[status={self.status}, options={self.options}]"


def control_status_ctx():
    """The innermost AutoGraph status context of this thread."""
    return _control_stack()[-1]


class FunctionScope:
    """The context a converted function body runs in (`with ag__.FunctionScope(...) as fscope`).

    It holds the options for calls made from the body (`callopts`), enables AutoGraph while a
    function the user asked to convert runs, and turns the return value into the function's
    result (`fscope.ret(retval_, do_return)`).
    """

    def __init__(self, function_name, scope_name, options):
        self.name = scope_name
        self.function_name = function_name
        self.options = options
        self.callopts = options.call_options()
        self._status = ControlStatusCtx(Status.ENABLED, options) if options.user_requested else None

    def __enter__(self):
        if self._status is not None:
            self._status.__enter__()
        return self

    def __exit__(self, *exc):
        if self._status is not None:
            self._status.__exit__(*exc)

    def ret(self, value, did_return):
        """The function's result: None when no return statement ran."""
        del did_return
        if isinstance(value, UndefinedReturnValue):
            return None
        return value


def with_function_scope(thunk, scope_name, options):
    """The FunctionScope of a converted top-level lambda, as a call."""
    with FunctionScope("lambda_", scope_name, options) as scope:
        return thunk(scope)
