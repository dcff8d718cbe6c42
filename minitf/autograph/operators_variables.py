"""Reading variables in converted code: undefined names as values, and their errors.

A name a staged branch or loop may leave unset holds an `Undefined` placeholder; reading it
through `ld` raises the UnboundLocalError Python would raise for the original code.
"""

__all__ = ["ld", "ldu", "Undefined", "UndefinedReturnValue"]


def ld(value):
    """Load a variable: its value, or UnboundLocalError when it holds `Undefined`."""
    if isinstance(value, Undefined):
        return value.read()
    return value


def ldu(load, name):
    """Load an attribute or item that may not exist (`self.n`, `d['k']`): its value, or
    `Undefined(name)` when reading it fails."""
    try:
        return load()
    except (KeyError, AttributeError, NameError):
        return Undefined(name)


class Undefined:
    """The value of a symbol that is not defined (yet) on the path taken.

    Attribute and item access on it give it back, so state functions can carry it through;
    reading it as a variable (`ld`) raises.

    Attributes:
      symbol_name: the name of the undefined symbol.
    """

    __slots__ = ("symbol_name",)

    def __init__(self, symbol_name):
        self.symbol_name = symbol_name

    def read(self):
        """Reading an undefined symbol: UnboundLocalError, as Python."""
        raise UnboundLocalError(f"'{self.symbol_name}' is used before assignment")

    def __repr__(self):
        return self.symbol_name

    def __getattribute__(self, name):
        try:
            return object.__getattribute__(self, name)
        except AttributeError:
            return self

    def __getitem__(self, index):
        return self


class UndefinedReturnValue:
    """The return value of a function before any return statement ran."""
