"""Values a plan computes from variables alone, kept until one of those variables changes.

An inference step recomputes, on every call, values that depend on nothing but variables: a
batch normalization in inference mode works out rsqrt(moving_variance + epsilon), its product
with the scale and the shifted offset, four small ufunc calls per layer, about 0.3 ms of the
DeepDream step (InceptionV3 to mixed5, 150 variables). `variable_invariants` finds those steps
and moves them, with the variable reads they need, to the front of the program; the generated
plan (`minitf.graph.compiler.codegen`) runs them only when the versions of the variables they
read differ from the last run's (`Variable._version` counts every write, in place or not), and
otherwise takes their results from the last run.

Only programs without effects qualify (a plan that writes a variable may read it again after
the write), only ufunc calls whose result is a fresh array (never a view of a variable's
buffer: the plan keeps the results between calls, and a kept view would make every in-place
optimizer update copy the variable first), and only when no later step can write into a kept
result or into a value that may be a view of one.
"""
from minitf.graph.compiler.buffers import fresh_call
from minitf.graph.compiler.optimize import defines, effects, reordered, uses, writes

__all__ = ["variable_invariants", "Invariants"]


class Invariants:
    """Where a program's variable-only values sit after `variable_invariants` reordered it.

    Attributes:
      reads: how many variable reads lead the program (they run on every call).
      steps: how many steps follow them that run only when a variable changed.
      variables: the variables whose versions decide it.
      kept: the registers those steps define that later steps or the outputs read.
    """

    def __init__(self, reads, steps, variables, kept):
        self.reads = reads
        self.steps = steps
        self.variables = variables
        self.kept = kept


def variable_invariants(program, remappable, output_registers):
    """(program, Invariants or None): the program with its variable-only steps first (see the
    module docstring), or unchanged with None when it has none or does not qualify.

    Args:
      program: the Program, after dead-step removal.
      remappable: ids of the traced variables a call may replace (never kept).
      output_registers: the registers the program's outputs name.
    """
    steps = program.steps
    if effects(program):
        return program, None
    derived, picked, reads = set(), [], []
    for i, step in enumerate(steps):
        if step[0] == "read" and step[1]._id not in remappable:
            derived.add(step[2])
            reads.append(i)
        elif step[0] == "call" and fresh_call(step) and type(step[4]) is int:
            needed = uses(step)
            if needed and needed <= derived:
                derived.add(step[4])
                picked.append(i)
    if not picked:
        return program, None
    computed = {steps[i][4] for i in picked}
    if not _never_written(steps, computed):
        return program, None
    needed_reads = [i for i in reads if any(steps[i][2] in uses(steps[j]) for j in picked)]
    moved = set(needed_reads) | set(picked)
    used_later = set(output_registers)
    for i, step in enumerate(steps):
        if i not in moved:
            used_later |= uses(step)
    kept = sorted(r for r in computed if r in used_later)
    order = needed_reads + picked + [i for i in range(len(steps)) if i not in moved]
    variables = []
    for i in needed_reads:
        if all(v is not steps[i][1] for v in variables):
            variables.append(steps[i][1])
    return reordered(program, order), Invariants(len(needed_reads), len(picked), variables, kept)


def _never_written(steps, computed):
    """Whether no step writes into a register of `computed`, or into one that may be a view of
    one (what a step that does not return a fresh array makes of it)."""
    aliases = set(computed)
    for step in steps:
        read = uses(step)
        if not read & aliases:
            continue
        written = writes(step)
        if written is None or written & aliases:
            return False
        if not fresh_call(step):
            aliases |= defines(step)
    return True
