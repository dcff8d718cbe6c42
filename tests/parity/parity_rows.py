"""The whole parity table: the core namespaces' rows and the Keras namespaces' rows."""
import parity_rows_core
from parity_table import Table

TABLE = Table()
TABLE.update(parity_rows_core.TABLE)
