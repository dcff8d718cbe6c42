"""Count how minitf and TF agree over the parity table, without failing on the first mismatch.

    python tests/parity/parity_fuzz.py [--examples N] [--rows REGEX] [--details K] [--random]

For each row, hypothesis draws N cases (derandomized unless --random); every call and gradient
is compared and its verdict kind counted. Prints the totals by kind, the rows with mismatches
and up to K sample details per row. Point PYTHONPATH at another checkout of minitf to measure
it instead (the before/after figures in issue notes come from this script).
"""
import argparse
import collections
import os
import re
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

import parity_oracle as oracle  # noqa: E402
from parity_check import check, known_reason  # noqa: E402
from parity_rows import TABLE  # noqa: E402


def measure(row, tf_ref, examples, randomize):
    """Verdict kinds for `examples` cases of `row`: (Counter, [sample details], Counter of the
    Known reasons that excused a verdict)."""
    counts, details, excused = collections.Counter(), [], collections.Counter()

    @settings(max_examples=examples, deadline=None, database=None, derandomize=not randomize,
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def sweep(data):
        case = data.draw(row.cases)
        for what, verdict in check(row, case, tf_ref):
            kind = verdict.kind
            reason = None if verdict.agrees else known_reason(row, case, verdict)
            if reason:
                kind = "known"
                excused[reason] += 1
            counts[(what, kind)] += 1
            if kind not in oracle.AGREEMENTS and kind != "known":
                details.append(f"{row.name}{case!r} {what}: {kind}: {verdict.detail}")
    sweep()
    return counts, details, excused


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=20)
    parser.add_argument("--rows", default="")
    parser.add_argument("--details", type=int, default=2)
    parser.add_argument("--random", action="store_true")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    import tensorflow as tf_ref

    totals, per_row, unused = collections.Counter(), {}, []
    for name in sorted(TABLE.rows):
        if args.rows and not re.search(args.rows, name):
            continue
        row = TABLE.rows[name]
        counts, details, excused = measure(row, tf_ref, args.examples, args.random)
        totals.update(counts)
        unused += [(name, k.reason) for k in row.known if not excused[k.reason]]
        if details:
            per_row[name] = (counts, details)
    calls = sum(n for (what, _), n in totals.items() if what == "value")
    print(f"calls: {calls}")
    for what in ("value", "grad1", "grad2"):
        line = ", ".join(f"{k} {totals[(what, k)]}" for k in oracle.KINDS + ("known",) if totals[(what, k)])
        if line:
            print(f"{what}: {line}")
    print(f"rows with mismatches: {len(per_row)} of {len(TABLE.rows)}")
    print(f"known entries that excused nothing in this run: {len(unused)}")
    for name, reason in unused:
        print(f"    {name}: {reason[:160]}")
    for name, (counts, details) in per_row.items():
        bad = sum(n for (_, k), n in counts.items() if k not in oracle.AGREEMENTS + ("known",))
        print(f"\n{name}: {bad} mismatches")
        for line in details[:args.details]:
            print("   ", line[:400])


if __name__ == "__main__":
    main()
