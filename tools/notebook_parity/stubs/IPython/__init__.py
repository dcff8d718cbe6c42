"""Minimal IPython stand-in (only when IPython is not installed): the display helpers notebooks call."""
from . import display  # noqa: F401

version_info = (8, 0, 0, "")  # matplotlib and keras read this when IPython is importable


def get_ipython():
    """No running IPython shell: what plain Python code sees outside a notebook."""
    return None
