"""The whole parity table: the core namespaces' rows, the Keras namespaces' rows and the eager
control-flow rows."""
import parity_rows_control
import parity_rows_core
import parity_rows_keras
from parity_table import Table

TABLE = Table()
TABLE.update(parity_rows_core.TABLE)
TABLE.update(parity_rows_keras.TABLE)
TABLE.update(parity_rows_control.TABLE)
