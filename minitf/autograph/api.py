"""AutoGraph's entry points: converting functions, calls made from converted code, and the
public `tf.autograph` functions.

`convert(fn)` is what `tf.function(autograph=True)` uses: it returns `fn` converted (Python
`if`/`while`/`for`/`break`/`continue`/`return`, `and`/`or`/`not` and conditional expressions
on tensors become staged control flow), or `fn` itself when it cannot or must not be
converted. Inside converted code every call goes through `converted_call`, which converts the
user functions it reaches (recursively) and calls library code as it is.

What a tracer provides (see `operators_control_flow`): `register_scratch_graph(factory)`, a
context in which ops record into a throwaway graph (TF stages one loop iteration there to type
variables first set inside a loop, and probes a while condition there); and
`register_for_loop(type_, function)` for staged loops over its own iterables (datasets).
"""
import functools
import inspect
import textwrap
import types
import weakref

from minitf.autograph import (ag_logging, conversion_policy, converter, operators_builtins,
                              operators_control_flow, operators_logical, operators_variables)
from minitf.autograph.ag_errors import (ConversionError, InaccessibleSourceCodeError,
                                        UnsupportedLanguageElementError)
from minitf.autograph.function_scope import (STANDARD_OPTIONS, ConversionOptions,
                                             ControlStatusCtx, Feature, FunctionScope, Status,
                                             control_status_ctx, with_function_scope)
from minitf.api_export import export

__all__ = ["convert", "converted_call", "to_graph", "to_code", "do_not_convert",
           "autograph_artifact", "is_autograph_artifact"]


def autograph_artifact(entity, extras=None):
    """Mark `entity` as made by AutoGraph: converted code calls it without converting it."""
    target = entity.__func__ if inspect.ismethod(entity) else entity
    setattr(target, "autograph_info__", extras)
    return entity


def is_autograph_artifact(entity):
    """Whether `entity` was made (or marked) by AutoGraph."""
    return hasattr(entity, "autograph_info__")


def _namespace():
    """The `ag__` module converted code runs with."""
    module = types.ModuleType("autograph")
    for source in (operators_variables, operators_logical, operators_control_flow):
        for name in source.__all__:
            setattr(module, name, getattr(source, name))
    module.converted_call = converted_call
    module.autograph_artifact = autograph_artifact
    module.FunctionScope = FunctionScope
    module.with_function_scope = with_function_scope
    module.ConversionOptions = ConversionOptions
    module.STD = STANDARD_OPTIONS
    module.Feature = Feature
    return module


_instances = weakref.WeakKeyDictionary()  # function -> {options: (defaults, converted)}


def _convert_function(function, options):
    """The converted version of a plain function (TF's conversion errors propagate). One
    instance per function object and options is kept while its defaults stay the same."""
    per_function = _instances.get(function)
    if per_function is not None:
        cached = per_function.get(options)
        if cached is not None and cached[0] == (function.__defaults__, function.__kwdefaults__):
            return cached[1]
    converted = converter.convert(function, options, {"ag__": _AG[0]})
    try:
        _instances.setdefault(function, {})[options] = (
            (function.__defaults__, function.__kwdefaults__), converted)
    except TypeError:
        pass
    return converted


def _cached_instance(f, options):
    """The converted instance of a function or method converted before, with its arguments'
    first entry (self) when `f` is a bound method; None when there is none."""
    function = f.__func__ if inspect.ismethod(f) else f
    try:
        cached = _instances.get(function, {}).get(options)
    except TypeError:
        return None
    if cached is None or cached[0] != (function.__defaults__, function.__kwdefaults__):
        return None
    return cached[1]


def _call_unconverted(f, args, kwargs, options, update_cache=True):
    if update_cache:
        conversion_policy.cache_allowlisted(f, options)
    return f(*args, **kwargs) if kwargs is not None else f(*args)


def _warn_unconverted(f, error, options):
    template = ("AutoGraph could not transform %s and will run it as-is.\n%sCause: %s\nTo silence "
                "this warning, decorate the function with @tf.autograph.experimental.do_not_convert")
    if isinstance(error, InaccessibleSourceCodeError):
        ag_logging.warning(template, f, "", error)
    elif isinstance(error, UnsupportedLanguageElementError):
        if not conversion_policy.in_allowlist_cache(f, options):
            ag_logging.warning(template, f, "", error)
    else:
        ag_logging.warning(template, f, "Please report this to the minitf maintainers, with the "
                           "output at verbosity 10 (`export AUTOGRAPH_VERBOSITY=10`).\n", error)


def _target(f, args):
    """(function to convert, arguments to call it with) of a function, method or callable
    object."""
    if inspect.isfunction(f):
        return f, args
    if inspect.ismethod(f):
        return f.__func__, (f.__self__,) + tuple(args)
    if hasattr(type(f), "__call__"):
        return type(f).__call__, (f,) + tuple(args)
    raise NotImplementedError(f'unknown callable type "{type(f)}"')


def converted_call(f, args, kwargs, caller_fn_scope=None, options=None):
    """Call `f(*args, **kwargs)` from converted code: converted when `f` is user code.

    Args:
      f: the callable.
      args: tuple of positional arguments.
      kwargs: dict of keyword arguments, or None.
      caller_fn_scope: the calling function's FunctionScope (gives the options).
      options: ConversionOptions, when there is no caller scope.
    """
    if options is None:
        if caller_fn_scope is None:
            raise ValueError("either caller_fn_scope or options must have a value")
        options = caller_fn_scope.callopts
    if conversion_policy.in_allowlist_cache(f, options):
        return _call_unconverted(f, args, kwargs, options, False)
    if control_status_ctx().status == Status.DISABLED:
        return _call_unconverted(f, args, kwargs, options, False)
    if is_autograph_artifact(f):
        return _call_unconverted(f, args, kwargs, options)
    converted = _cached_instance(f, options)
    if converted is not None:  # converted before: the policy's answer stands
        args = (f.__self__,) + tuple(args) if inspect.ismethod(f) else args
        return converted(*args, **kwargs) if kwargs is not None else converted(*args)
    if isinstance(f, functools.partial):
        new_kwargs = dict(f.keywords or {})
        new_kwargs.update(kwargs or {})
        return converted_call(f.func, tuple(f.args) + tuple(args), new_kwargs,
                              caller_fn_scope=caller_fn_scope, options=options)
    if operators_builtins.is_builtin(f):
        if f in (super, globals, locals, eval) and caller_fn_scope is not None:
            return operators_builtins.in_original_context(f, args, kwargs, caller_fn_scope)
        overload = operators_builtins.overload_of(f)
        return overload(*args, **kwargs) if kwargs else overload(*args)
    if conversion_policy.is_unsupported(f):
        return _call_unconverted(f, args, kwargs, options)
    if not options.user_requested and conversion_policy.is_allowlisted(f):
        return _call_unconverted(f, args, kwargs, options)
    if not options.internal_convert_user_code:
        return _call_unconverted(f, args, kwargs, options)
    try:
        target, effective_args = _target(f, args)
    except NotImplementedError as e:
        _warn_unconverted(f, e, options)
        return _call_unconverted(f, args, kwargs, options)
    code = getattr(target, "__code__", None)
    if code is None or code.co_filename == "<string>":
        return _call_unconverted(f, args, kwargs, options)  # native or exec'd code
    try:
        converted = _convert_function(target, options)
    except Exception as e:  # noqa: BLE001 (any conversion failure runs the original, as TF)
        ag_logging.log(1, "Error transforming entity %s", target, exc_info=True)
        _warn_unconverted(f, e, options)
        return _call_unconverted(f, args, kwargs, options)
    return converted(*effective_args, **kwargs) if kwargs is not None else converted(*effective_args)


def convert(fn, recursive=True, optional_features=None):
    """`fn` converted by AutoGraph, for `tf.function(autograph=True)` to trace.

    The result takes the same arguments as `fn` (a method stays bound to its object). While it
    runs, AutoGraph is enabled: the user functions it calls are converted too (with
    `recursive=True`), library code is called as it is.

    Returns `fn` itself when it must not be converted (marked with `do_not_convert`, already
    converted, native code) or cannot be: then a warning says why (no source code, a
    generator, `for ... else` ...), once per function, and `fn` runs as plain Python.
    """
    if is_autograph_artifact(fn):
        return fn
    options = ConversionOptions(recursive=recursive, user_requested=True,
                                optional_features=optional_features)
    if isinstance(fn, functools.partial):
        converted = convert(fn.func, recursive, optional_features)
        return fn if converted is fn.func else functools.partial(converted, *fn.args,
                                                                 **(fn.keywords or {}))
    try:
        target, _ = _target(fn, ())
    except NotImplementedError:
        return fn
    code = getattr(target, "__code__", None)
    if code is None or code.co_filename == "<string>" or operators_builtins.is_builtin(fn):
        return fn
    try:
        converted = _convert_function(target, options)
    except Exception as e:  # noqa: BLE001 (any conversion failure runs the original, as TF)
        if not conversion_policy.in_allowlist_cache(fn, options):
            ag_logging.log(1, "Error transforming entity %s", target, exc_info=True)
            _warn_unconverted(fn, e, options)
        conversion_policy.cache_allowlisted(fn, options)
        return fn
    autograph_artifact(converted)
    if target is not fn:  # a method or callable object: bind the converted function to it
        return types.MethodType(converted, fn.__self__ if inspect.ismethod(fn) else fn)
    return converted


def _convert_actual(entity, options):
    if not hasattr(entity, "__code__"):
        raise ValueError("Cannot apply autograph to a function that doesn't expose a __code__ "
                         "object. If this is a @tf.function, try passing f.python_function "
                         "instead.")
    function = entity.__func__ if inspect.ismethod(entity) else entity
    return _convert_function(function, options)


@export("autograph.to_graph")
def to_graph(entity, recursive=True, experimental_optional_features=None):
    """The converted version of a function (`tf.autograph.to_graph`).

    Python control flow on tensors becomes TF control flow; the result still runs eagerly when
    called outside `tf.function`. A method becomes a function taking `self` first.

    Raises:
      ConversionError: `entity` cannot be converted (no `__code__`, no source code ...).
    """
    try:
        options = ConversionOptions(recursive=recursive, user_requested=True,
                                    optional_features=experimental_optional_features)
        return autograph_artifact(_convert_actual(entity, options))
    except (ValueError, AttributeError, KeyError, NameError, AssertionError) as e:
        raise ConversionError(f"converting {entity}: {e.__class__.__name__}: {e}") from e


@export("autograph.to_code")
def to_code(entity, recursive=True, experimental_optional_features=None):
    """The source code AutoGraph generates for `entity` (`tf.autograph.to_code`), as TF 2.21
    prints it: `def tf__f(...)` with the control flow rewritten into `ag__` operator calls.
    For a `tf.function`, pass its `python_function`."""
    converted = to_graph(entity, recursive=recursive,
                         experimental_optional_features=experimental_optional_features)
    # as TF: the definition's lines in the generated module (registered in linecache), dedented
    return textwrap.dedent(inspect.getsource(converted))


@export("autograph.experimental.do_not_convert")
def do_not_convert(func=None):
    """Decorator: `func` runs as written, unconverted, even when called from converted code or
    wrapped in `tf.function(autograph=True)`; so do the functions it calls."""
    if func is None:
        return do_not_convert

    def wrapper(*args, **kwargs):
        with ControlStatusCtx(status=Status.DISABLED):
            return func(*args, **kwargs)

    if inspect.isfunction(func) or inspect.ismethod(func):
        wrapper = functools.update_wrapper(wrapper, func)
    return autograph_artifact(wrapper)


_AG = [_namespace()]  # built last: it holds converted_call
