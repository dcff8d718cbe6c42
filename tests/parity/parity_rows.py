"""The whole parity table: the rows of every `parity_rows_*.py` module in this folder (core
namespaces, Keras namespaces, eager control flow, and each later family in its own file)."""
import importlib
import pathlib

from parity_table import Table

TABLE = Table()
for _path in sorted(pathlib.Path(__file__).parent.glob("parity_rows_*.py")):
    TABLE.update(importlib.import_module(_path.stem).TABLE)
