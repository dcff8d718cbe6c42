"""IPython.display stand-in: display() prints a short repr, the rich objects just hold their data."""


class _Rich:
    """Holds whatever a rich display object was given."""

    def __init__(self, data=None, *args, **kwargs):
        self.data = data
        self.kwargs = kwargs

    def __repr__(self):
        return f"<{type(self).__name__}>"


class HTML(_Rich):
    """Stand-in for IPython.display.HTML."""


class Image(_Rich):
    """Stand-in for IPython.display.Image; reads the file when given `filename` so a bad path still fails."""

    def __init__(self, data=None, *args, filename=None, **kwargs):
        if filename is not None:
            with open(filename, "rb") as f:
                data = f.read()
        super().__init__(data, *args, **kwargs)


class Markdown(_Rich):
    """Stand-in for IPython.display.Markdown."""


def display(*objs, **kwargs):
    """Print each object's repr, as a notebook would show it."""
    for obj in objs:
        print(repr(obj))


def clear_output(wait=False):
    """Nothing to clear outside a notebook."""
