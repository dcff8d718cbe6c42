"""The parity table: one row per public name, saying how to call it and what to compare.

A row names a public path relative to the package (`"add"`, `"math.add"`, `"nn.relu"`,
`"keras.layers.Dense"`), a hypothesis strategy of cases, the call (by default the name itself,
resolved in each library), and how deep to compare gradients. Rows for the same object cover
its aliases (`tf.add` and `tf.math.add`), provided TF's aliases are one object too.

`Known` entries list the intentional differences: a predicate on the case and verdict, and the
reason. They are the only way a disagreement passes, and every one is printed in the report.
"""
import dataclasses
from typing import Callable

from hypothesis import strategies as st

from parity_oracle import Case


@dataclasses.dataclass
class Known:
    """An intentional difference: cases where `applies(case, verdict)` holds, and why."""
    applies: Callable
    reason: str


@dataclasses.dataclass
class Row:
    """How to compare one public name with TF."""
    name: str
    cases: object = None
    call: Callable = None
    grad: int = 0
    rtol: float = None
    atol: float = None
    known: tuple = ()
    examples: int = None

    def __post_init__(self):
        if self.cases is None:
            self.cases = st.just(Case())
        if self.call is None:
            name = self.name
            self.call = lambda lib, *a, **k: resolve(lib, name)(*a, **k)


def resolve(lib, dotted):
    """The object at `dotted` ("math.add") inside the package `lib`."""
    obj = lib
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


class Table:
    """Rows by qualified name; `add` refuses a name twice so a row is never silently shadowed."""

    def __init__(self):
        self.rows = {}

    def add(self, name, cases=None, **options):
        if name in self.rows:
            raise ValueError(f"parity table: {name!r} has two rows")
        row = Row(name, cases, **options)
        self.rows[name] = row
        return row

    def known(self, name, applies, reason):
        """Excuse the verdicts of row `name` where `applies(case, verdict)`; `reason` starts with
        "INTENTIONAL:" (a difference minitf keeps on purpose) or "BUG:" (one still to fix)."""
        if not reason.startswith(("INTENTIONAL:", "BUG:")):
            raise ValueError(f"parity table: the reason for {name!r} must start with INTENTIONAL: or BUG:")
        row = self.rows[name]
        row.known = tuple(row.known) + (Known(applies, reason),)

    def update(self, other):
        for name, row in other.rows.items():
            if name in self.rows:
                raise ValueError(f"parity table: {name!r} has two rows")
            self.rows[name] = row
