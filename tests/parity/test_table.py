"""Every row of the parity table against TF 2.21: values, dtypes, shapes, exception classes and
gradients (second order where the row asks) on hypothesis-generated cases."""
import pytest
from hypothesis import given, strategies as st

from parity_check import check, known_reason
from parity_rows import TABLE

ROWS = sorted(TABLE.rows.values(), key=lambda r: r.name)


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_row_agrees_with_tf(row, tf_ref):
    @given(data=st.data())
    def agree(data):
        case = data.draw(row.cases, label="case")
        for what, verdict in check(row, case, tf_ref):
            if not verdict.agrees and known_reason(row, case, verdict) is None:
                pytest.fail(f"{row.name}{case!r} {what}: {verdict.kind}: {verdict.detail}")
    agree()
