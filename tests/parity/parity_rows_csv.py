"""Parity row for tf.io.decode_csv: records drawn field by field from pools of numbers TF reads
(blanks around them, signs, exponents, hex floats, inf and nan, each dtype's extremes) and ones
it refuses (ints with exponents, hex ints, overflow, junk), quoted fields with doubled quotes,
empty and NA fields against given and required defaults, records with a field too many or too
few, other delimiters, use_quote_delim=False, select_cols (also unsorted or negative), and
defaults TF rejects (two elements, rank 2, bool)."""
from hypothesis import strategies as st

from parity_oracle import Case, T
from parity_table import Table

TABLE = Table()
add = TABLE.add

INT_FIELDS = ["0", "1", "-1", " 1", "1 ", "\t7\t", "+5", "-0", "007", "2147483647", "-2147483648"]
INT64_FIELDS = INT_FIELDS + ["2147483648", "-2147483649", "9223372036854775807", "-9223372036854775808"]
BAD_INTS = ["2147483648", "-2147483649", "9223372036854775808", "1e3", "0x10", "1.5", "nan", "x", "+-1", "- 1",
            "1_0", " "]
FLOAT_FIELDS = ["0", "-0", "1.5", " 2.5 ", "1e3", "1E-3", ".5", "5.", "nan", "-nan", "NaN", "inf", "-Infinity",
                "0x10", "0x1.8p1", "+5", "1e40", "1e-50", "1e400", "3.4028235e38", "3.4028236e38", "0.1"]
BAD_FLOATS = ["1e", "abc", "1_0", "1.5f", "+-1", "0x", "infinit", " "]
STR_FIELDS = ["a", "hello world", " pad ", "NA", "?", "a,b", 'say "hi"', "x;y", "é", "1"]
NA_VALUES = ["NA", "?", "1", "nan"]
POOLS = {"int32": INT_FIELDS, "int64": INT64_FIELDS, "float32": FLOAT_FIELDS, "float64": FLOAT_FIELDS,
         "string": STR_FIELDS}
BAD = {"int32": BAD_INTS, "int64": BAD_INTS, "float32": BAD_FLOATS, "float64": BAD_FLOATS, "string": STR_FIELDS}
# (how the default is written, its dtype): a typed value, a Python type's default, or required
DEFAULTS = {"int32": [("value", -3), ("python", 0), ("required", None)],
            "int64": [("value", 42), ("required", None)],
            "float32": [("value", 0.25), ("python", 0.0), ("required", None)],
            "float64": [("value", -1.5), ("required", None)],
            "string": [("value", "dflt"), ("python", ""), ("required", None)]}


def _default(lib, dtype, how, value):
    if how == "python":
        return value
    if how == "required":
        return lib.constant([], dtype=lib.as_dtype(dtype))
    if how == "two":
        return lib.constant([value, value], dtype=lib.as_dtype(dtype))
    if how == "rank2":
        return lib.constant([[value]], dtype=lib.as_dtype(dtype))
    if how == "bool":
        return True
    return lib.constant(value, dtype=lib.as_dtype(dtype))


def _quote(field, quote):
    return '"' + field.replace('"', '""') + '"' if quote else field


@st.composite
def csv_cases(draw):
    """One decode_csv call: the records (a string tensor argument, so a traced function gets them as
    a graph value), the default specs, and keyword options."""
    dtypes = draw(st.lists(st.sampled_from(sorted(POOLS)), min_size=1, max_size=4))
    specs = [(d, *draw(st.sampled_from(DEFAULTS[d]))) for d in dtypes]
    if draw(st.integers(0, 11)) == 0:
        i = draw(st.integers(0, len(specs) - 1))
        specs[i] = (specs[i][0], draw(st.sampled_from(["two", "rank2", "bool"])), specs[i][2] or 1)
    kwargs = {}
    delim = draw(st.sampled_from([",", ",", ",", ";", "|"]))
    if delim != ",":
        kwargs["field_delim"] = delim
    quote_delim = draw(st.sampled_from([True, True, False]))
    if not quote_delim:
        kwargs["use_quote_delim"] = False
    na = draw(st.sampled_from(["", "", *NA_VALUES]))
    if na:
        kwargs["na_value"] = na
    width = len(specs)
    select = None
    if draw(st.integers(0, 3)) == 0:
        width = len(specs) + draw(st.integers(0, 2))
        select = sorted(draw(st.lists(st.integers(0, width - 1), min_size=len(specs), max_size=len(specs),
                                      unique=True)))
        if draw(st.integers(0, 5)) == 0:
            select = select[::-1] if len(select) > 1 else [-1]
        kwargs["select_cols"] = select
    count = draw(st.sampled_from([0, 1, 2, 3, 4]))
    columns = [dtypes[select.index(c)] if c in select else "string" for c in range(width)] if select else dtypes
    rows = [[draw(st.sampled_from(POOLS[d])) for d in columns] for _ in range(count)]
    if rows:  # now and then one field TF refuses, one empty or NA field, a field too many or too few
        flaw = draw(st.sampled_from(["none", "none", "none", "bad", "empty", "na", "extra", "short"]))
        r, c = draw(st.integers(0, count - 1)), draw(st.integers(0, width - 1))
        if flaw == "bad":
            rows[r][c] = draw(st.sampled_from(BAD[columns[c]]))
        elif flaw in ("empty", "na"):
            rows[r][c] = na if flaw == "na" else ""
        elif flaw == "extra":
            rows[r].append("1")
        elif flaw == "short":
            rows[r].pop()
    records = [delim.join(_quote(f, quote_delim and draw(st.integers(0, 3)) == 0) for f in row) for row in rows]
    shape = draw(st.sampled_from(["list", "scalar", "matrix"]))
    if shape == "scalar" and count == 1:
        records = records[0]
    elif shape == "matrix" and count == 4:
        records = [records[:2], records[2:]]
    return Case((T(records, "string"), tuple(specs)), kwargs)


def _decode_csv(lib, records, specs, **kwargs):
    defaults = [_default(lib, dtype, how, value) for dtype, how, value in specs]
    return lib.io.decode_csv(records, defaults, **kwargs)


add("io.decode_csv", csv_cases(), call=_decode_csv)
