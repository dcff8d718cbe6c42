"""Every public name has a row in the parity table, and exists in TF at the same path.

These checks keep new ops from skipping the oracle: exporting a name without a row fails here.
"""
import parity_names
from parity_rows import TABLE


def test_every_exported_name_has_a_row():
    names = parity_names.exported()
    covered = parity_names.coverage(TABLE.rows, names)
    missing = sorted(path for path, row in covered.items() if row is None)
    assert not missing, (f"{len(missing)} exported names have no row in the parity table "
                         f"(tests/parity/parity_rows*.py): {missing}")


def test_every_row_names_an_exported_object():
    names = parity_names.exported()
    stale = sorted(name for name in TABLE.rows if name not in names)
    assert not stale, f"rows for names minitf does not export: {stale}"


def test_exported_names_exist_in_tf(tf_ref):
    """A name minitf exports must exist at the same path in TF, unless listed as an extension."""
    missing = []
    for path in parity_names.exported():
        if path in parity_names.EXTENSIONS:
            continue
        try:
            parity_names.namespace(tf_ref, path)
        except AttributeError:
            missing.append(path)
    assert not missing, f"minitf exports names TF 2.21 does not have: {sorted(missing)}"


def test_aliases_are_aliases_in_tf(tf_ref):
    """A row covers another path only if TF binds both paths to one object too."""
    names = parity_names.exported()
    covered = parity_names.coverage(TABLE.rows, names)
    differ = []
    for path, row in covered.items():
        if row is None or row == path or path in parity_names.EXTENSIONS:
            continue
        try:
            if parity_names.namespace(tf_ref, path) is not parity_names.namespace(tf_ref, row):
                differ.append((path, row))
        except AttributeError:
            continue  # reported by test_exported_names_exist_in_tf
    assert not differ, f"TF binds these paths to different objects; each needs its own row: {differ}"


def test_extensions_are_really_missing_from_tf(tf_ref):
    """An extension entry must not hide a name TF does have (it would then need a row)."""
    present = []
    for path in parity_names.EXTENSIONS:
        try:
            parity_names.namespace(tf_ref, path)
            present.append(path)
        except AttributeError:
            pass
    assert not present, f"listed as minitf extensions, but TF has them: {present}"
