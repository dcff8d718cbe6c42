"""Parity rows for tf.autograph and tf.autograph.experimental: the generated code of
`to_code` (normalised as in tests/autograph/test_to_code.py), converted functions run
eagerly on tensors through `to_graph`, and the small helpers (verbosity, trace, features,
do_not_convert, loop options).

The converted functions are defined here, at module level, so both libraries read the same
source; they take the library as their first argument.
"""
import re

from hypothesis import strategies as st

from parity_strategies import cases, tensors
from parity_table import Table

TABLE = Table()
add = TABLE.add


def _normalise(text):
    """The generated code without blank lines, with sorted nonlocal/global names and sorted
    runs of Undefined assignments (TF orders both by set iteration)."""
    lines = []
    for line in text.splitlines():
        if not line.strip():
            continue
        found = re.match(r"^(\s*)(nonlocal|global) (.*)$", line.rstrip())
        if found:
            line = f"{found.group(1)}{found.group(2)} " + ", ".join(
                sorted(n.strip() for n in found.group(3).split(",")))
        lines.append(line.rstrip())
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


def signed_total(lib, x):
    """A tensor loop with a tensor condition inside, a break and a continue."""
    total = lib.zeros([], x.dtype)
    for v in x:
        if v > 3:
            break
        if v < 0:
            total -= v
            continue
        total += v
    return total


def clipped(lib, x, limit):
    """A while loop on a tensor condition, a conditional expression and `and`."""
    while lib.reduce_max(x) > limit and limit > 0:
        x = x * 0.5
    return x if lib.reduce_min(x) >= 0 else -x


def _sample(lib, x):
    if x > 0:
        return "positive"
    return "other"


add("autograph.to_code", cases(st.sampled_from(["signed_total", "clipped"])),
    call=lambda lib, name: _normalise(lib.autograph.to_code(globals()[name])))


def converted_runs(lib, x):
    floats = lib.cast(x, lib.float32)
    return [lib.autograph.to_graph(signed_total)(lib, x),
            lib.autograph.to_graph(clipped)(lib, floats, 2.0),
            lib.autograph.to_graph(clipped)(lib, floats, lib.constant(-1.0))]


add("autograph.to_graph", cases(tensors(("float32", "int32"), shape=(5,))), call=converted_runs,
    examples=10)


add("autograph.set_verbosity", cases(st.sampled_from([0, 1])),
    call=lambda lib, level: lib.autograph.set_verbosity(0 * level))
add("autograph.trace", cases(st.sampled_from([0, 1])),
    call=lambda lib, v: lib.autograph.trace("autograph.trace parity row", v))
add("autograph.experimental.Feature",
    call=lambda lib: [f.value for f in lib.autograph.experimental.Feature])
add("autograph.experimental.do_not_convert", cases(st.sampled_from([-1.0, 2.0])),
    call=lambda lib, v: [lib.autograph.experimental.do_not_convert(_sample)(lib, v),
                         lib.autograph.experimental.do_not_convert()(_sample)(lib, v)])
add("autograph.experimental.set_loop_options", cases(st.sampled_from([1, 3])),
    call=lambda lib, n: lib.autograph.experimental.set_loop_options(maximum_iterations=n))
