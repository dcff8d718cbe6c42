"""Chains of elementwise steps run as one loop over memory, compiled with numba when installed.

numpy runs each ufunc as its own pass, and against a per-channel vector its broadcast loop is
about twice as slow as a plain one. A batch normalization in inference mode followed by a ReLU
is three passes forward (x * inv, + offset, max(., 0)) and three back (y > 0, g * mask, * inv):
on a (1, 45, 45, 64) float32 map, 118 and 74 us, against 16 and 20 us for one fused loop each.
`fuse_elementwise` finds such chains in a recorded program and replaces each by one call of a
generated numba kernel, bit for bit the numpy steps it replaces: each step keeps its own
float32/float64 operation in the same order (numba without fastmath contracts nothing into an
FMA), constants are cast the way numpy 2 casts them, and maximum/minimum and ReLU are written as
the selects numpy computes (NaN wins; of two equal values, the second).

A chain is steps of one output shape (at least MIN_ELEMENTS elements) that are ufuncs from
_BINARY, _COMPARE, negative, maximum/minimum, or the ReLU kernel, whose operands are arrays of
that shape, per-channel vectors (the last axis) or scalars. A step joins the chain it reads
from while no step outside the chain has read the chain's values yet and no step in between
may write in place, so running the whole chain at its last step's place reads the same values.
Without numba (the `fast` extra, `minitf.kernels.jit`) programs stay as they are.
"""
import numbers

import numpy as np

from minitf.graph.compiler.codegen import spec_registers
from minitf.graph.compiler.optimize import uses, writes
from minitf.graph.compiler.recording import Reg
from minitf.kernels import jit, numpy as host_kernels

__all__ = ["fuse_elementwise", "MIN_ELEMENTS"]

# Smaller results keep their numpy steps: the numba call costs a few microseconds.
MIN_ELEMENTS = 1024
_BINARY = {np.add: "+", np.subtract: "-", np.multiply: "*", np.true_divide: "/"}
_COMPARE = {np.greater: ">", np.greater_equal: ">=", np.less: "<", np.less_equal: "<="}
_SELECT = {np.maximum: ">", np.minimum: "<"}  # x if (x OP y or x != x) else y
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_BOOL = np.dtype(bool)
_kernels = {}  # kernel source -> compiled numba function


def fuse_elementwise(program):
    """The program with its elementwise chains fused (see the module docstring)."""
    steps = program.steps
    candidates = {i: c for i, step in enumerate(steps) if (c := _candidate(step, program.types)) is not None}
    if not candidates or not jit.available():
        return program
    groups = _groups(steps, candidates)
    if not groups:
        return program
    consumers = _consumers(steps, program.outputs)
    replacing = {}
    for group in groups:
        members = set(group)
        outputs = [steps[i][4] for i in group
                   if any(j not in members for j in consumers.get(steps[i][4], ()))]
        if not outputs:
            continue
        replacing[group[-1]] = _fused_step(steps, group, candidates, outputs, program.types)
        for i in group[:-1]:
            replacing[i] = None
    kept = [i for i in range(len(steps)) if replacing.get(i, True) is not None]
    new_index = {old: new for new, old in enumerate(kept)}
    new_steps = []
    for i in kept:
        step = replacing.get(i, steps[i])
        if step[0] in ("hostgrad", "lazy"):  # they name the step they follow by its index
            step = (step[0], new_index[step[1]]) + step[2:]
        new_steps.append(step)
    program.steps = new_steps
    return program


class _Candidate:
    """An elementwise step: its operation and its operands' kinds."""

    __slots__ = ("op", "operands", "shape", "dtype", "float_dtype")

    def __init__(self, op, operands, shape, dtype, float_dtype):
        self.op = op              # (kind, symbol)
        self.operands = operands  # [("array"|"vector", Reg) or ("const", value)]
        self.shape = shape
        self.dtype = dtype        # of the result (bool for comparisons)
        self.float_dtype = float_dtype


def _candidate(step, types):
    kind = step[0]
    if kind == "opaque":
        if step[1] is not host_kernels.relu or step[3] or step[5] or step[6] or type(step[4]) is not int:
            return None
        op, args = ("relu", None), step[2]
    elif kind == "call" and type(step[4]) is int:
        fn, args, kwargs = step[1], step[2], step[3]
        if fn in _BINARY:
            op = ("binary", _BINARY[fn])
        elif fn in _COMPARE:
            op = ("compare", _COMPARE[fn])
        elif fn in _SELECT:
            op = ("select", _SELECT[fn])
        elif fn is np.negative:
            op = ("negative", None)
        else:
            return None
        if len(args) != fn.nin or set(kwargs) - {"dtype"}:
            return None
        if "dtype" in kwargs and np.dtype(kwargs["dtype"]) != types.get(step[4], (None, None))[1]:
            return None
    else:
        return None
    result = types.get(step[4])
    if result is None or result[0] is not np.ndarray or result[2] is None:
        return None
    shape, dtype = tuple(result[2]), result[1]
    if len(shape) == 0 or int(np.prod(shape)) < MIN_ELEMENTS:
        return None
    float_dtype = dtype if dtype in _FLOATS else None
    operands = []
    for a in args:
        operand = _operand(a, shape, types)
        if operand is None:
            return None
        operands.append(operand)
        if operand[0] != "const":
            operand_dtype = types[a.index][1]
            if operand_dtype in _FLOATS:
                if float_dtype is None:
                    float_dtype = operand_dtype
                elif operand_dtype != float_dtype:
                    return None
            elif operand_dtype != _BOOL or op[0] != "binary":
                return None  # a mask only as a factor or term (numpy casts it to the float)
    if float_dtype is None or dtype not in (float_dtype, _BOOL) or (dtype == _BOOL) != (op[0] == "compare"):
        return None
    for operand in operands:
        if operand[0] == "const" and not _exact_constant(operand[1], float_dtype):
            return None
    return _Candidate(op, operands, shape, dtype, float_dtype)


def _operand(a, shape, types):
    if type(a) is not Reg:
        if isinstance(a, (bool, numbers.Number, np.generic)) or (isinstance(a, np.ndarray) and a.ndim == 0):
            return ("const", a)
        return None
    t = types.get(a.index)
    if t is None or t[0] is not np.ndarray or t[2] is None:
        return None
    s = tuple(t[2])
    if s == shape:
        return ("array", a)
    if s and s[-1] == shape[-1] and all(d == 1 for d in s[:-1]) and len(s) <= len(shape):
        return ("vector", a)
    return None


def _exact_constant(value, float_dtype):
    """Whether numpy computes with this constant in `float_dtype` (a Python number is weak and
    takes the array's dtype; a numpy one must already have it)."""
    if isinstance(value, (bool, int, float)):
        return True
    return np.asarray(value).dtype == float_dtype


def _consumers(steps, outputs):
    """{register: the indexes of the steps that read it (len(steps) for an output)}."""
    found = {}
    for j, step in enumerate(steps):
        for r in uses(step):
            found.setdefault(r, []).append(j)
    for spec in outputs:
        for r in spec_registers(spec):
            found.setdefault(r, []).append(len(steps))
    return found


def _groups(steps, candidates):
    """Lists of step indexes, in order, each a chain of at least two candidates."""
    taken, groups = set(), []
    for start in sorted(candidates):
        if start in taken:
            continue
        shape = candidates[start].shape
        group, defined = [start], {steps[start][4]}
        for j in range(start + 1, len(steps)):
            step = steps[j]
            read = uses(step)
            joins = j in candidates and j not in taken and candidates[j].shape == shape and \
                read & defined and candidates[j].float_dtype == candidates[start].float_dtype
            if joins:
                group.append(j)
                defined.add(step[4])
                continue
            if read & defined:
                break  # a step outside reads the chain: it must run where it is
            written = writes(step)
            if written is None or written:
                break
        if len(group) > 1:
            groups.append(group)
            taken.update(group)
    return groups


def _fused_step(steps, group, candidates, outputs, types):
    """The ("call", wrapper, inputs, {}, out) step that replaces a chain."""
    first = candidates[group[0]]
    shape, float_dtype = first.shape, first.float_dtype
    arrays, vectors, consts = [], [], []
    local = {}  # register of a chain step -> its temporary's name
    lines = []
    for k, i in enumerate(group):
        c = candidates[i]
        texts = []
        for operand in c.operands:
            if operand[0] == "const":
                consts.append(float_dtype.type(operand[1]))
                texts.append((f"K{len(consts) - 1}", False))
            elif operand[1].index in local:
                texts.append((local[operand[1].index], types[operand[1].index][1] == _BOOL))
            else:
                pool, name = (arrays, "a") if operand[0] == "array" else (vectors, "v")
                if operand[1].index not in pool:
                    pool.append(operand[1].index)
                index = "[i, c]" if name == "a" else "[c]"
                texts.append((f"{name}{pool.index(operand[1].index)}{index}",
                              types[operand[1].index][1] == _BOOL))
        lines.append(f"t{k} = {_expression(c.op, texts)}")
        local[steps[i][4]] = f"t{k}"
    body = [f"            {line}" for line in lines]
    body += [f"            o{n}[i, c] = {local[r]}" for n, r in enumerate(outputs)]
    params = [f"a{n}" for n in range(len(arrays))] + [f"v{n}" for n in range(len(vectors))] + \
        [f"o{n}" for n in range(len(outputs))]
    source = "\n".join([f"def kernel({', '.join(params)}):",
                        "    n, C = o0.shape",
                        "    for i in range(n):",
                        "        for c in range(C):"] + body)
    kernel = _compiled(source, float_dtype, consts)
    wrapper = _wrapper(kernel, shape, [types[r][1] for r in outputs], len(arrays), len(vectors))
    inputs = tuple(Reg(r) for r in arrays) + tuple(Reg(r) for r in vectors)
    out = outputs[0] if len(outputs) == 1 else ("seq", tuple, list(outputs))
    return ("call", wrapper, inputs, {}, out)


def _expression(op, texts):
    """One step's operation on its operands' texts ((text, is bool) pairs), as numba source."""
    kind, symbol = op
    values = [f"F({t})" if is_bool and kind != "compare" else t for t, is_bool in texts]
    if kind in ("binary", "compare"):
        return f"({values[0]} {symbol} {values[1]})"
    if kind == "negative":
        return f"(-{values[0]})"
    if kind == "relu":
        x = values[0]
        return f"({x} if ({x} > Z or {x} != {x}) else Z)"
    x, y = values
    return f"({x} if ({x} {symbol} {y} or {x} != {x}) else {y})"


def _compiled(source, float_dtype, consts):
    key = (source, float_dtype.str, tuple(c.tobytes() for c in consts))
    kernel = _kernels.get(key)
    if kernel is None:
        namespace = {"F": float_dtype.type, "Z": float_dtype.type(0)}
        namespace.update({f"K{n}": c for n, c in enumerate(consts)})
        exec(compile(source, "<minitf fused elementwise kernel>", "exec"), namespace)  # noqa: S102
        kernel = jit.compiled(namespace["kernel"])
        if len(_kernels) > 256:
            _kernels.clear()
        _kernels[key] = kernel
    return kernel


def _wrapper(kernel, shape, out_dtypes, n_arrays, n_vectors):
    """A plain function of the chain's inputs: its arrays as [rows, last axis] (a view for a
    C-contiguous input or a slice of the last axis, a copy otherwise), its vectors flat, fresh
    outputs of the chain's shape. Without vectors, C-contiguous inputs are one row, so a short
    last axis (an image's 3 channels) does not make the inner loop short."""
    size = int(np.prod(shape))
    rows = (size // shape[-1], shape[-1])
    one_row = (1, size)

    def fused(*inputs):
        arrays = inputs[:n_arrays]
        layout = one_row if not n_vectors and all(a.flags.c_contiguous for a in arrays) else rows
        flat = [a.reshape(layout) for a in arrays] + [v.reshape(-1) for v in inputs[n_arrays:]]
        outs = [np.empty(shape, d) for d in out_dtypes]
        kernel(*flat, *(o.reshape(layout) for o in outs))
        return outs[0] if len(outs) == 1 else tuple(outs)
    fused.__name__ = f"fused_{len(out_dtypes)}"
    return fused
