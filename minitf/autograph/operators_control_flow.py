"""`ag__.if_stmt`, `ag__.while_stmt` and `ag__.for_stmt`: control flow statements as functions
of their blocks and state, deciding at run time how to run.

A Python condition or iterable runs the blocks as plain Python would. A tensor condition (eager
or symbolic) or a tensor iterated over is staged through `tf.cond` / `tf.while_loop`
(`minitf.ops.control_flow`), over the statement's state: `get_state()` reads the variables the
blocks modify, `set_state(values)` writes them back. Executing eagerly, those ops run the chosen
branch or the loop in Python, so converted code gives the original's results; inside a traced
`tf.function` the graph builds them with sub-graphs.

Staged statements check what TF checks (`operators_checks`): boolean scalar conditions,
branches that agree, loop variables that keep their dtype, structure and shape.
"""
from minitf.errors import errors
from minitf.autograph import operators_checks as checks
from minitf.autograph import operators_data
from minitf.autograph.operators_variables import Undefined, UndefinedReturnValue
from minitf.ops import control_flow
from minitf.ops.compare import logical_and, logical_or
from minitf.ops.creation import zeros
from minitf.ops.debugging import Assert
from minitf.ops.gather import gather
from minitf.ops.shaping import shape as shape_of
from minitf.recording import thread_state

__all__ = ["if_stmt", "while_stmt", "for_stmt", "register_for_loop", "register_scratch_graph",
           "PYTHON_MAX_ITERATIONS"]

PYTHON_MAX_ITERATIONS = 100000000
_NOT_ALLOWED = getattr(errors, "OperatorNotAllowedInGraphError", TypeError)
_for_loop_registry = []     # (type, function) pairs, looked up before the built-in cases
_scratch_graph = [None]     # a factory of a context in which ops record into a throwaway graph
_LIMITATIONS = ("https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/"
                "g3doc/reference/limitations.md#consistency-of-control-flow-types for more info.")


def register_for_loop(type_, function):
    """Run `for` loops over instances of `type_` with `function(iter_, extra_test, body,
    get_state, set_state, symbol_names, opts)` (for example a staged loop over a dataset)."""
    _for_loop_registry.insert(0, (type_, function))


def register_scratch_graph(factory):
    """Give AutoGraph a way to run code into a throwaway graph while tracing: `factory()` returns
    a context manager. With it, a loop over undefined variables learns their types from one
    staged iteration (as TF does); without it, tracing such a loop raises TF's "must be defined
    before the loop" error."""
    _scratch_graph[0] = factory


def _tracing():
    return getattr(thread_state, "graph", None) is not None


# -- if ------------------------------------------------------------------------------------------

def if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts):
    """An `if` statement: `body()` or `orelse()`; staged as `tf.cond` when `cond` is a tensor.

    Args:
      cond: the condition's value.
      body, orelse: the blocks, as functions of no arguments.
      get_state, set_state: read and write the variables the blocks modify.
      symbol_names: the names of those variables (for error messages).
      nouts: how many of them (the first ones) are used after the statement.
    """
    if checks.is_tensor(cond):
        _tf_if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts)
    elif cond:
        body()
    else:
        orelse()


def _tf_if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts):
    cond = checks.verify_condition(cond, "if statement")
    if not nouts:  # a cond needs an output: a dummy one
        prev_get_state, prev_set_state = get_state, set_state
        get_state = lambda: (0,) + tuple(prev_get_state())  # noqa: E731
        set_state = lambda values: prev_set_state(values[1:])  # noqa: E731
        symbol_names = tuple(symbol_names) + ("<unused dummy>",)
        nouts = 1
    init_vars = tuple(get_state())
    results = {}

    def branch(block, name, other):
        def run():
            set_state(init_vars)
            block()
            values = tuple(get_state())[:nouts]
            results[name] = values
            checks.verify_branch_vars(values, symbol_names, name)
            if other in results:
                pair = (values, results[other]) if name == "main" else (results[other], values)
                checks.verify_cond_vars(*pair, symbol_names)
            return values
        return run

    final = control_flow.cond(cond, branch(body, "main", "else"), branch(orelse, "else", "main"))
    set_state(tuple(final) + init_vars[nouts:])


# -- while ---------------------------------------------------------------------------------------

def while_stmt(test, body, get_state, set_state, symbol_names, opts):
    """A `while` statement: staged as `tf.while_loop` when `test()` gives a tensor.

    Args:
      test: the loop condition, as a function of no arguments.
      body: the loop body, as a function of no arguments.
      get_state, set_state: read and write the loop variables.
      symbol_names: the loop variables' names.
      opts: `tf.while_loop` options from `set_loop_options` (maximum_iterations, ...).
    """
    init_test = _probe(test)
    if checks.is_tensor(init_test):
        first = init_test if not _tracing() else None
        _tf_while_stmt(test, body, get_state, set_state, symbol_names, opts, first_test=first)
        return
    if not init_test:
        return
    body()
    _py_while_stmt(test, body)


def _probe(test):
    """The loop condition's first value (traced into a throwaway graph when one is at hand)."""
    if _tracing() and _scratch_graph[0] is not None:
        with _scratch_graph[0]():
            return test()
    return test()


def _py_while_stmt(test, body):
    iterations = 1

    def guarded_test():
        value = test()
        try:
            return bool(value)
        except _NOT_ALLOWED as e:
            raise NotImplementedError(
                "The condition of while loop started as non-Tensor, then changed to Tensor. This "
                "may happen either because variables changed type, or when a break or return "
                "statement inside the loop depends on a Tensor condition. In both cases, changing "
                "to a TF loop should remove the error.\nSee " + _LIMITATIONS) from e

    while guarded_test():
        body()
        iterations += 1
        if iterations > PYTHON_MAX_ITERATIONS:
            raise ValueError("iteration limit exceeded")


def _positional_invariants(opts, init_vars):
    """`set_loop_options(shape_invariants=[(var, shape), ...])` as one entry per loop variable."""
    if "shape_invariants" not in opts:
        return opts
    by_id = {id(value): shape for value, shape in opts["shape_invariants"]}
    opts = dict(opts)
    opts["shape_invariants"] = tuple(by_id.get(id(value)) for value in init_vars)
    return opts


def _loop_kwargs(opts):
    kwargs = {k: v for k, v in opts.items()
              if k in ("shape_invariants", "maximum_iterations", "parallel_iterations",
                       "swap_memory")}
    if "shape_invariants" in kwargs and all(s is None for s in kwargs["shape_invariants"]):
        del kwargs["shape_invariants"]
    return kwargs


def _zero_iterations_error(symbol_names, nulls):
    names = ", ".join(name for name, null in zip(symbol_names, nulls) if null)
    return f"loop must iterate at least once to initialize {names}"


def _tf_while_stmt(test, body, get_state, set_state, symbol_names, opts, first_test=None):
    """The staged loop: `tf.while_loop` over the loop variables.

    `first_test`, when given, is the condition's value for the initial state (already computed
    eagerly, so it is not evaluated twice)."""
    init_vars = tuple(get_state())
    nulls = tuple(checks.is_none_or_undefined(v) for v in init_vars)
    require_one_iteration = False
    if any(isinstance(v, UndefinedReturnValue) for v in init_vars):
        # a return inside a staged loop: TF's staging of the first iteration fails on it
        checks.verify_loop_init_vars(init_vars, symbol_names)
    if any(nulls):
        if _tracing():
            init_vars = _staged_placeholders(body, get_state, set_state, symbol_names, init_vars,
                                             nulls)
            require_one_iteration = True
        else:
            init_vars = _first_iteration(test, body, get_state, symbol_names, init_vars, nulls,
                                         first_test)
            first_test = None
    opts = _positional_invariants(opts, init_vars)
    pending_first = [first_test]
    skip = 1 if require_one_iteration else 0

    def aug_test(*loop_vars):
        set_state(loop_vars[skip:])
        value, pending_first[0] = pending_first[0], None
        return checks.verify_condition(test() if value is None else value, "while loop")

    def aug_body(*loop_vars):
        loop_vars = loop_vars[skip:]
        set_state(loop_vars)
        body()
        new_vars = tuple(get_state())
        checks.verify_loop_vars(init_vars, loop_vars, new_vars, symbol_names, opts)
        return (True,) + new_vars if skip else new_vars

    kwargs = _loop_kwargs(opts)
    if "shape_invariants" in kwargs and skip:
        kwargs["shape_invariants"] = (None,) + tuple(kwargs["shape_invariants"])
    if not init_vars:  # a loop without state: one dummy loop variable carries it
        control_flow.while_loop(lambda _: aug_test(), lambda d: (aug_body(), d)[1:], (0,),
                                **kwargs)
        return
    aug_init = ((False,) + init_vars) if skip else init_vars
    final = tuple(control_flow.while_loop(aug_test, aug_body, aug_init, **kwargs))
    if skip:
        Assert(final[0], [_zero_iterations_error(symbol_names, nulls)])
        final = final[1:]
    set_state(final)


def _first_iteration(test, body, get_state, symbol_names, init_vars, nulls, first_test):
    """Eagerly, loop variables undefined (or None) before the loop are defined by running the
    first iteration: the loop then goes on from its state. No iteration at all raises TF's
    InvalidArgumentError, and a first value of a type TF cannot stage raises its ValueError."""
    value = checks.verify_condition(first_test if first_test is not None else test(), "while loop")
    if not bool(value):
        Assert(value, [_zero_iterations_error(symbol_names, nulls)])
    body()
    first_iter = tuple(get_state())
    failure = None
    for null, first_value in zip(nulls, first_iter):
        if null and not _placeholder_supported(first_value):
            failure = (f"Note: AutoGraph tried to define it automatically, but ran into a "
                       f"TypeError: Found an unsupported type '{type(first_value).__name__}' "
                       f"while creating placeholder for {first_value}. Supported types include "
                       f"Tensor, int, float, bool, list, tuple or dict.")
    checks.verify_loop_init_vars(init_vars if failure else first_iter, symbol_names,
                                 first_iter, extra_message=failure)
    return first_iter


def _placeholder_supported(value):
    if value is None or checks.is_none_or_undefined(value):
        return True
    if isinstance(value, (int, float, bool)) or checks.is_tensor(value):
        return True
    if isinstance(value, (list, tuple)):
        return all(_placeholder_supported(v) for v in value)
    if isinstance(value, dict):
        return all(_placeholder_supported(v) for v in value.values())
    return False


def _staged_placeholders(body, get_state, set_state, symbol_names, init_vars, nulls):
    if _scratch_graph[0] is None:
        checks.verify_loop_init_vars(
            init_vars, symbol_names, extra_message="Note: AutoGraph could not stage one iteration "
            "of the loop to define it automatically.")
    failure = None
    first_iter = None
    try:
        with _scratch_graph[0]():
            body()
            first_iter = tuple(get_state())
        values = tuple(_zeros_like(first, value) if null else value
                       for value, null, first in zip(init_vars, nulls, first_iter))
    except (UnboundLocalError, TypeError, ValueError, KeyError) as e:
        failure = f"Note: AutoGraph tried to define it automatically, but ran into a " \
                  f"{type(e).__name__}: {e}"
        values = init_vars
    finally:
        set_state(init_vars)
    checks.verify_loop_init_vars(values, symbol_names, first_iter, extra_message=failure)
    return values


def _zeros_like(like, original):
    if checks.is_none_or_undefined(like):
        return original
    if isinstance(like, (int, float, bool)):
        return type(like)(0)
    if checks.is_tensor(like):
        return zeros([d if d is not None else 0 for d in like.shape.as_list()], like.dtype)
    if isinstance(like, (list, tuple)):
        return type(like)(_zeros_like(v, None) for v in like)
    if isinstance(like, dict):
        return {k: _zeros_like(v, None) for k, v in like.items()}
    raise TypeError(f"Found an unsupported type '{type(like).__name__}' while creating "
                    f"placeholder for {like}. Supported types include Tensor, int, float, bool, "
                    f"list, tuple or dict.")


# -- for -----------------------------------------------------------------------------------------

def for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
    """A `for` statement over `iter_`: `body(element)` for each element while `extra_test()`
    (the loop's break/return flags, or None) holds.

    A tensor is iterated along its first dimension by a staged loop over an index (a range
    tensor by its own start/limit/delta when its graph node exposes them); a dataset or a
    distributed dataset by its own loop; anything else by Python.
    """
    for type_, function in _for_loop_registry:
        if isinstance(iter_, type_):
            function(iter_, extra_test, body, get_state, set_state, symbol_names, opts)
            return
    if checks.is_tensor(iter_):
        if _range_parts(iter_) is not None:
            _range_for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts)
        else:
            _tensor_for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts)
    elif operators_data.is_dataset(iter_) or operators_data.is_data_iterator(iter_):
        operators_data.for_over_dataset(iter_, extra_test, body, get_state, set_state,
                                        symbol_names)
    elif operators_data.is_distributed(iter_):
        operators_data.for_over_distributed(iter_, extra_test, body, get_state, set_state,
                                            symbol_names)
    else:
        _py_for_stmt(iter_, extra_test, body)


def _py_for_stmt(iter_, extra_test, body):
    if extra_test is None:
        for target in iter_:
            body(target)
        return

    def guarded_extra_test():
        value = extra_test()
        try:
            return bool(value)
        except _NOT_ALLOWED as e:
            raise NotImplementedError(
                "break and return statements which depend on a TF condition are not supported in "
                "Python for loops. Did you intend to make it a TF loop?\nSee " + _LIMITATIONS) from e

    if guarded_extra_test():
        for target in iter_:
            body(target)
            if not guarded_extra_test():
                break


def _first_dim(iter_):
    """The length of a tensor's first dimension: static when known, else a tensor."""
    dims = iter_.shape.as_list() if iter_.shape.rank is not None else None
    if dims == []:
        raise ValueError("len requires a non-scalar tensor, got one of shape []")
    if dims is not None and dims[0] is not None:
        return dims[0]
    return shape_of(iter_)[0]


def _tensor_for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
    """A loop over the rows of a tensor: a while loop over the row index."""
    n = _first_dim(iter_)
    index = 0

    def aug_get_state():
        return (index,) + tuple(get_state())

    def aug_set_state(values):
        nonlocal index
        index = values[0]
        set_state(tuple(values[1:]))

    def aug_body():
        nonlocal index
        # a traced index reads the row with gather, which every graph records
        body(gather(iter_, index) if _tracing() else iter_[index])
        index += 1

    def aug_test():
        main_test = index < n
        if extra_test is not None:
            return control_flow.cond(main_test, extra_test, lambda: False)
        return main_test

    _tf_while_stmt(aug_test, aug_body, aug_get_state, aug_set_state,
                   ("<internal iterate>",) + tuple(symbol_names), opts)


def _range_parts(iter_):
    """(start, limit, delta) of a traced `tf.range` tensor whose node keeps its three inputs."""
    op = getattr(iter_, "op", None)
    if getattr(op, "type", None) != "Range":
        return None
    inputs = list(getattr(op, "inputs", ()))
    return tuple(inputs) if len(inputs) == 3 else None


def _constant_sign(delta):
    try:
        return float(delta.numpy()) >= 0
    except (AttributeError, TypeError, ValueError, NotImplementedError):
        return None


def _range_for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
    """A loop over `tf.range(start, limit, delta)` counts with the range's own values instead of
    materialising and indexing the range."""
    start, limit, delta = _range_parts(iter_)
    iterate = start
    iterate_name = opts.get("iterate_names")

    def aug_get_state():
        state = tuple(iterate if name == iterate_name and isinstance(value, Undefined) else value
                      for name, value in zip(symbol_names, get_state()))
        return (iterate,) + state

    def aug_set_state(values):
        nonlocal iterate
        iterate = values[0]
        set_state(tuple(values[1:]))

    def aug_body():
        nonlocal iterate
        body(iterate)
        iterate += delta

    def aug_test():
        sign = _constant_sign(delta)
        if sign is True:
            main_test = iterate < limit
        elif sign is False:
            main_test = iterate > limit
        else:
            main_test = logical_or(logical_and(delta >= 0, iterate < limit),
                                   logical_and(delta < 0, iterate > limit))
        if extra_test is not None:
            return control_flow.cond(main_test, extra_test, lambda: False)
        return main_test

    _tf_while_stmt(aug_test, aug_body, aug_get_state, aug_set_state,
                   ("<internal iterate>",) + tuple(symbol_names), opts)
