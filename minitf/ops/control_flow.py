"""Control flow as TF 2 runs it eagerly: cond, case, switch_case, while_loop, map_fn, scan,
foldl, foldr and vectorized_map.

Eager code has no graph to build, so each is the Python loop or branch it stands for; the ops
inside record themselves on any active tape, so gradients flow through every branch taken and
every iteration run. Arguments, results and errors follow TF's eager behaviour. Inside a traced
`tf.function`, the graph being traced builds them instead, with sub-graphs (minitf.graph).
"""
from minitf import dispatch
from minitf.errors import errors
from minitf.nest import nest
from minitf.ops._core import Tensor, Variable, thread_state, as_tensor
from minitf.ops.constant import cast
from minitf.ops.shaping import stack, unstack
from minitf.ops.tensor_array import TensorArray
from minitf.api_export import export

__all__ = ["cond", "case", "switch_case", "while_loop", "map_fn", "scan", "foldl", "foldr",
           "vectorized_map"]


def _truth(pred):
    """The Python truth of a predicate: a bool, or a tensor with one element (a tensor of more
    raises ValueError, as in TF)."""
    return bool(pred)


@export("cond")
def cond(pred, true_fn=None, false_fn=None, name=None):
    """`true_fn()` if `pred` is true, else `false_fn()`: the branch's result as it returns it.

    Raises:
      TypeError: a branch is missing or not callable.
      ValueError: `pred` has more than one element.
    """
    if true_fn is None:
        raise TypeError("cond(): 'true_fn' argument required")
    if false_fn is None:
        raise TypeError("cond(): 'false_fn' argument required")
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("cond(): 'true_fn' and 'false_fn' must be callable.")
    if thread_state.graph is not None:
        return thread_state.graph.cond(pred, true_fn, false_fn)
    return true_fn() if _truth(pred) else false_fn()


@export("case")
def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The result of the callable paired with the first true predicate, else of `default`.

    With `exclusive=True`, more than one true predicate is an InvalidArgumentError (TF's
    graph mode raises it; its eager mode only prints: minitf raises in both). With no
    `default`, no true predicate is an InvalidArgumentError.
    """
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else list(pred_fn_pairs)
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in pred_fn_pairs must be a 2-tuple. Received {pair}.")
        if not callable(pair[1]):
            raise TypeError(f"fn for pred {pair[0]} must be callable.")
    if default is not None and not callable(default):
        raise TypeError("'default' must be callable.")
    if thread_state.graph is not None:  # traced: conditions nested as TF builds case
        return _nested_conds(pairs, default)
    truths = [_truth(pred) for pred, _ in pairs]
    if exclusive and sum(truths) > 1:
        raise errors.invalid_argument("case", f"Input error: exclusive=True: more than 1 conditions "
                                              f"({sum(truths)}) evaluated as True")
    for truth, (_, fn) in zip(truths, pairs):
        if truth:
            return fn()
    if default is None:
        raise errors.invalid_argument("case", "Input error: None of conditions evaluated as True; "
                                              "give a `default`")
    return default()


def _nested_conds(pairs, default):
    """`case` as a chain of conds: the first true predicate's branch, else `default` (or, with
    no default, the last branch, as TF's graph case does)."""
    if default is None:
        pairs, default = pairs[:-1], pairs[-1][1]
    result = default
    for pred, fn in reversed(pairs):
        result = (lambda p, f, rest: lambda: cond(p, f, rest))(pred, fn, result)
    return result()


@export("switch_case")
def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """`branch_fns[branch_index]()`; an index out of range runs `default` (or the last branch).

    `branch_fns` is a list of callables, or a dict {index: callable} / list of (index, callable)
    pairs covering 0..n-1.

    Raises:
      TypeError: `branch_index` is not a Tensor, or a branch is not callable.
    """
    if not isinstance(branch_index, (Tensor, Variable)):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if isinstance(branch_fns, dict):
        branch_fns = sorted(branch_fns.items())
    if branch_fns and isinstance(branch_fns[0], tuple):
        keys = [k for k, _ in branch_fns]
        if keys != list(range(len(keys))):
            raise ValueError(f"branch indices (keys) must form contiguous range of [0 to "
                             f"{len(keys)}) but found {keys}.")
        branch_fns = [fn for _, fn in branch_fns]
    fns = list(branch_fns) + ([default] if default is not None else [])
    for fn in fns:
        if not callable(fn):
            raise TypeError(f"branch_fns entries must be callable, got {fn!r}")
    if thread_state.graph is not None:
        return thread_state.graph.switch_case(branch_index, fns)
    index = int(as_tensor(branch_index).numpy())
    return fns[index]() if 0 <= index < len(fns) else fns[-1]()


@export("while_loop")
def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, maximum_iterations=None, name=None):
    """Repeat `loop_vars = body(*loop_vars)` while `cond(*loop_vars)` is true; the final loop
    variables (as tensors, in the structure `body` returns), after at most
    `maximum_iterations` iterations.

    Raises:
      ValueError: no `loop_vars`, a non-scalar `maximum_iterations`, or `body` returning another
        structure than `loop_vars`.
    """
    if not loop_vars:
        raise ValueError("'loop_vars' must be provided.")
    if thread_state.graph is not None:
        return thread_state.graph.while_loop(cond, body, loop_vars, shape_invariants, maximum_iterations)
    limit = None
    if maximum_iterations is not None:
        limit_tensor = as_tensor(maximum_iterations)
        if limit_tensor._value.ndim != 0:
            raise ValueError(f"'maximum_iterations' must be a scalar. Received shape: {limit_tensor.shape}")
        limit = int(limit_tensor.numpy())
    structure = list(loop_vars)
    count = 0
    while (limit is None or count < limit) and _truth(cond(*loop_vars)):
        loop_vars = body(*loop_vars)
        nest.assert_same_structure(structure, list(loop_vars))
        count += 1
    return nest.map_structure(_to_tensor, loop_vars)


def _to_tensor(value):
    return value if isinstance(value, (Tensor, Variable, TensorArray)) else as_tensor(value)


def _slices(elems, op):
    """(number of rows, [structure of row i for each i]) of a structure of tensors."""
    flat = [as_tensor(e) for e in nest.flatten(elems)]
    if not flat:
        raise ValueError(f"{op}: elems must contain at least one tensor")
    for t in flat:
        if t._value.ndim == 0:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
    n = flat[0]._value.shape[0]
    if any(t._value.shape[0] != n for t in flat):
        raise ValueError(f"{op}: all elems must have the same first dimension, got "
                         f"{[t._value.shape[0] for t in flat]}")
    rows = [unstack(t, axis=0) if n else [] for t in flat]
    return n, [nest.pack_sequence_as(elems, [r[i] for r in rows]) for i in range(n)]


def _stack_results(results, signature, op):
    """Stack a list of per-row result structures into one structure of tensors."""
    if not results:
        raise ValueError(f"{op}: elems has no rows to map over")
    flat_rows = [nest.flatten(r) for r in results]
    dtypes = nest.flatten(signature) if signature is not None else None
    out = []
    for k in range(len(flat_rows[0])):
        parts = [_to_tensor(row[k]) for row in flat_rows]
        if dtypes is not None:
            want = getattr(dtypes[k], "dtype", dtypes[k])
            parts = [p if p.dtype == want else cast(p, want) for p in parts]
        out.append(stack(parts, axis=0))
    return nest.pack_sequence_as(results[0], out)


@export("map_fn")
def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
           infer_shape=True, name=None, fn_output_signature=None):
    """`fn` applied to each row (slice along axis 0) of `elems`, results stacked.

    `elems` may be a structure of tensors; `fn` then gets the same structure of rows. Without
    `fn_output_signature` (or the older `dtype`), results must have the structure and dtypes of
    `elems`, as in TF.

    Raises:
      ValueError: scalar elems, elems of different lengths, or results of another structure.
      InvalidArgumentError: a result of another dtype than the output signature.
    """
    signature = fn_output_signature if fn_output_signature is not None else dtype
    if thread_state.graph is not None:
        return thread_state.graph.map_fn(fn, elems, signature)
    try:
        if any(dispatch.is_dispatchable(s) for s in nest.flatten(signature)):
            raise TypeError("map_fn: a RaggedTensorSpec in fn_output_signature")
        n, rows = _slices(elems, "map_fn")
    except (TypeError, ValueError):  # RaggedTensor elems or results: minitf.ragged's map_fn
        return dispatch.fallback(map_fn, (fn, elems), {"dtype": dtype, "fn_output_signature": fn_output_signature})
    results = [fn(row) for row in rows]
    if signature is None:
        template = nest.map_structure(lambda t: as_tensor(t).dtype, elems)
        for r in results:
            nest.assert_same_structure(template, r)
            for want, got in zip(nest.flatten(template), nest.flatten(r)):
                got_dtype = _to_tensor(got).dtype
                if got_dtype != want:
                    raise errors.invalid_argument(
                        "TensorListSetItem", f"TensorArray dtype is {want.name} but Op is trying to write "
                                             f"dtype {got_dtype.name}; pass fn_output_signature=tf.{got_dtype.name}")
        signature = template
    if n == 0:
        return nest.map_structure(lambda t: as_tensor(t), elems)
    return _stack_results(results, signature, "map_fn")


@export("vectorized_map")
def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """`fn` applied to each row of `elems`, results stacked (eagerly, row by row; the results'
    dtypes are whatever `fn` returns)."""
    if thread_state.graph is not None:
        return thread_state.graph.map_fn(fn, elems, None)
    n, rows = _slices(elems, "vectorized_map")
    return _stack_results([fn(row) for row in rows], None, "vectorized_map")


@export("scan")
def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
         infer_shape=True, reverse=False, name=None):
    """The running accumulation `a = fn(a, row)` over the rows of `elems`, every `a` stacked.

    Without `initializer` the first row starts the accumulation and is the first output.
    `reverse=True` runs from the last row; outputs keep the rows' order.
    """
    if thread_state.graph is not None:
        return thread_state.graph.scan(fn, elems, initializer, reverse)
    n, rows = _slices(elems, "scan")
    order = list(range(n - 1, -1, -1)) if reverse else list(range(n))
    outputs = {}
    if initializer is None:
        if not n:
            raise ValueError("scan: elems must have at least one row when no initializer is given")
        acc = rows[order[0]]
        outputs[order[0]] = acc
        order = order[1:]
    else:
        acc = initializer
    for i in order:
        acc = fn(acc, rows[i])
        outputs[i] = acc
    return _stack_results([outputs[i] for i in range(n)], None, "scan")


@export("foldl")
def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
          name=None):
    """`fn(...fn(fn(initializer, row0), row1)..., row_n-1)`; without `initializer`, row 0 starts."""
    return _fold(fn, elems, initializer, reverse=False)


@export("foldr")
def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
          name=None):
    """The fold from the last row to the first; without `initializer`, the last row starts."""
    return _fold(fn, elems, initializer, reverse=True)


def _fold(fn, elems, initializer, reverse):
    if thread_state.graph is not None:
        return thread_state.graph.fold(fn, elems, initializer, reverse)
    n, rows = _slices(elems, "foldr" if reverse else "foldl")
    if reverse:
        rows = rows[::-1]
    if initializer is None:
        if not n:
            raise ValueError("fold: elems must have at least one row when no initializer is given")
        acc, rows = rows[0], rows[1:]
    else:
        acc = initializer
    for row in rows:
        acc = fn(acc, row)
    return nest.map_structure(_to_tensor, acc)
