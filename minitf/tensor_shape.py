"""TensorShape: a tuple-like shape with TF's methods (as_list, rank, num_elements, ...)."""
from minitf.api_export import export

__all__ = ["TensorShape", "Dimension"]


@export("TensorShape")
class TensorShape:
    """The shape of a tensor; dimensions are ints or None (unknown), the rank may be unknown."""

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, int):
            self._dims = (dims,)
        else:
            try:
                self._dims = tuple(None if d is None else int(d) for d in dims)
            except (TypeError, ValueError):  # TF's TypeError, not int()'s error on one element
                raise TypeError(f"Failed to convert {dims!r} to a shape: a shape is one dimension "
                                f"(e.g. 10) or an iterable of dimensions (e.g. [1, 10, None])") from None

    @property
    def rank(self):
        """Number of dimensions, or None when unknown."""
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self):
        """The dimensions as a list (None when the rank is unknown)."""
        return None if self._dims is None else list(self._dims)

    def as_list(self):
        """The dimensions as a Python list; ValueError when the rank is unknown."""
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def num_elements(self):
        """Product of the dimensions, or None if any is unknown."""
        if self._dims is None or any(d is None for d in self._dims):
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_fully_defined(self):
        """True when the rank and every dimension are known."""
        return self._dims is not None and all(d is not None for d in self._dims)

    def is_compatible_with(self, other):
        """True when the two shapes could describe the same tensor."""
        other = TensorShape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        """Raise ValueError unless compatible with `other`."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {TensorShape(other)} are incompatible")

    def merge_with(self, other):
        """The most specific shape compatible with both (ValueError if incompatible)."""
        other = TensorShape(other)
        self.assert_is_compatible_with(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def concatenate(self, other):
        """This shape followed by `other`."""
        other = TensorShape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def with_rank(self, rank):
        """This shape, checked to have the given rank."""
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self if self._dims is not None else TensorShape([None] * rank)

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            return None if not isinstance(key, slice) else TensorShape(None)
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __eq__(self, other):
        try:
            other = TensorShape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return TensorShape(other).concatenate(self)

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        inner = ", ".join("None" if d is None else str(d) for d in self._dims)
        return f"({inner},)" if len(self._dims) == 1 else f"({inner})"

    def __reduce__(self):
        return TensorShape, (self._dims,)


def Dimension(value):  # noqa: N802 (TF's name)
    """TF1's Dimension; in TF2 dimensions are plain ints (or None)."""
    return None if value is None else int(value)
