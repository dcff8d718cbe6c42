"""Compare one row on one case: the call, then (for differentiable rows) its gradients."""
import minitf

import parity_oracle as oracle


def check(row, case, tf_ref):
    """The verdicts for `case` of `row`: [("value", Verdict), ("grad1", Verdict), ...]."""
    mine = oracle.run(minitf, row.call, case)
    ref = oracle.run(tf_ref, row.call, case)
    verdicts = [("value", oracle.compare(mine, ref, row.rtol, row.atol))]
    if row.grad and mine.error is None and ref.error is None:
        for order in range(1, row.grad + 1):
            g_mine = oracle.run_gradient(minitf, row.call, case, order)
            g_ref = oracle.run_gradient(tf_ref, row.call, case, order)
            rtol = None if row.rtol is None else row.rtol * 10
            verdicts.append((f"grad{order}", oracle.compare(g_mine, g_ref, rtol, row.atol)))
    return verdicts


def known_reason(row, case, verdict):
    """The reason of the row's Known entry that excuses this verdict, or None."""
    for known in row.known:
        if known.applies(case, verdict):
            return known.reason
    return None
