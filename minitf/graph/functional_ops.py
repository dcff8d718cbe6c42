"""`tf.map_fn`, `tf.scan`, `tf.foldl`/`foldr` and `tf.vectorized_map` inside traced functions.

The function is traced once, into a sub-graph taking one row of the elements (and the
accumulator, for scan and the folds), and the node runs that sub-graph over the rows when the
graph runs: the Python function runs once, whatever the number of rows, as in TF.
"""
from minitf.nest import nest
from minitf.convert import convert_to_tensor
from minitf.graph.control_flow import as_outputs, SubGraphs
from minitf.ops.shaping import stack
from minitf.symbolic_tensor import SymbolicTensor
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape

__all__ = ["map_fn", "scan", "fold"]


def _row_example(t):
    example = t.example if isinstance(t, SymbolicTensor) else t
    if example is None or example.shape.rank == 0 or example.shape[0] == 0:
        return None
    return example[0]


def _trace(graph, name, fn, placeholder_specs, structure_of_args):
    """(child graph) of `fn(*args)`, args placeholders of (shape, dtype, example, structure)."""
    child = type(graph)(f"{graph.name}_{name}", parent=graph)
    with child.building(hide_outer_tapes=False):
        args = []
        for structure, specs in zip(structure_of_args, placeholder_specs):
            leaves = [child.placeholder(shape, dtype, name, example) for shape, dtype, example in specs]
            args.append(nest.pack_sequence_as(structure, leaves) if nest.is_nested(structure)
                        else leaves[0])
        child.add_identity_outputs(as_outputs(fn(*args)))
    return child


def _row_specs(flat):
    return [(TensorShape(t.shape.as_list()[1:]) if t.shape.rank else TensorShape(None), t.dtype,
             _row_example(t)) for t in flat]


def _rows(flat, n, reverse=False):
    order = range(n - 1, -1, -1) if reverse else range(n)
    return [[t[i] for t in flat] for i in order]


def _check_rows(flat, op):
    if not flat:
        raise ValueError(f"{op}: elems must contain at least one tensor")
    for t in flat:
        if t.shape.rank == 0:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")


def map_fn(graph, fn, elems, dtypes_out=None):
    """`map_fn` in `graph`: `fn` traced once on a row; the node maps it over the rows and stacks."""
    flat = [convert_to_tensor(e) for e in nest.flatten(elems)]
    _check_rows(flat, "map_fn")
    child = _trace(graph, "map", fn, [_row_specs(flat)], [elems])
    sub = SubGraphs([child])
    n_elems = len(flat)
    out_leaves = child.outputs
    if dtypes_out is not None:
        for want, got in zip(nest.flatten(dtypes_out), out_leaves):
            want = getattr(want, "dtype", want)
            if isinstance(got, Tensor) and got.dtype != want:
                raise TypeError(f"map_fn: fn returned {got.dtype.name} where fn_output_signature "
                                f"says {getattr(want, 'name', want)}.")

    def run_map(*args):
        values, captured = args[:n_elems], args[n_elems:]
        n = values[0].shape[0]
        results = [sub.run(0, row, captured) for row in _rows(values, n)]
        return [stack([r[k] for r in results]) for k in range(len(out_leaves))]

    examples = [_stacked_example(t) for t in out_leaves]
    outputs = graph.call(run_map, tuple(flat) + tuple(sub.captured), {}, stateful=sub.stateful,
                         abstract=lambda *a: list(examples), op_type="MapFn", name="map")
    rows = flat[0].shape[0] if flat[0].shape.rank else None
    for out, leaf in zip(outputs, out_leaves):
        if isinstance(out, SymbolicTensor):
            out._static_shape = TensorShape([rows]).concatenate(leaf.shape)
    return child.output_structure.rebuild(outputs)


def _stacked_example(t):
    example = t.example if isinstance(t, SymbolicTensor) else t
    return stack([example])


def _accumulating(graph, fn, elems, initializer, reverse, keep_all, name):
    flat = [convert_to_tensor(e) for e in nest.flatten(elems)]
    _check_rows(flat, name)
    if initializer is None:
        first = [t[-1] if reverse else t[0] for t in flat]
        acc_structure, acc_flat = elems, first
        skip_first = True
    else:
        acc_structure = initializer
        acc_flat = [convert_to_tensor(a) for a in nest.flatten(initializer)]
        skip_first = False
    acc_specs = [(a.shape, a.dtype, a.example if isinstance(a, SymbolicTensor) else a)
                 for a in acc_flat]
    child = _trace(graph, name, fn, [acc_specs, _row_specs(flat)], [acc_structure, elems])
    sub = SubGraphs([child])
    n_elems, n_acc = len(flat), len(acc_flat)

    def run(*args):
        values = args[:n_elems]
        acc = list(args[n_elems:n_elems + n_acc])
        captured = args[n_elems + n_acc:]
        n = values[0].shape[0]
        rows = _rows(values, n, reverse)
        outs = []
        if skip_first:
            rows = rows[1:]
            outs.append(list(acc))
        for row in rows:
            acc = sub.run(0, list(acc) + row, captured)
            outs.append(list(acc))
        if not keep_all:
            return acc
        if reverse:
            outs = outs[::-1]
        return [stack([o[k] for o in outs]) for k in range(n_acc)]

    if keep_all:
        examples = [stack([a.example if isinstance(a, SymbolicTensor) else a]) for a in acc_flat]
    else:
        examples = [a.example if isinstance(a, SymbolicTensor) else a for a in acc_flat]
    outputs = graph.call(run, tuple(flat) + tuple(acc_flat) + tuple(sub.captured), {},
                         stateful=sub.stateful, abstract=lambda *a: list(examples),
                         op_type="Scan" if keep_all else "Fold", name=name)
    rows = flat[0].shape[0] if flat[0].shape.rank else None
    for out, acc in zip(outputs, acc_flat):
        if isinstance(out, SymbolicTensor):
            out._static_shape = TensorShape([rows]).concatenate(acc.shape) if keep_all else acc.shape
    return nest.pack_sequence_as(acc_structure, outputs) if nest.is_nested(acc_structure) \
        else outputs[0]


def scan(graph, fn, elems, initializer=None, reverse=False):
    """`scan` in `graph`: every accumulator value, stacked."""
    return _accumulating(graph, fn, elems, initializer, reverse, True, "scan")


def fold(graph, fn, elems, initializer=None, reverse=False):
    """`foldl` (or `foldr` with reverse) in `graph`: the final accumulator."""
    return _accumulating(graph, fn, elems, initializer, reverse, False,
                         "foldr" if reverse else "foldl")
