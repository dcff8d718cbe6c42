"""keras.ops.rearrange: einops-style axis rearrangement ('b h w c -> b (h w) c')."""
import re

from minitf.keras_ops.core import convert, keras_op
from minitf.ops import array as array_ops
from minitf.api_export import export

__all__ = ["rearrange"]


def _groups(side):
    """'b (h w) c' -> [['b'], ['h', 'w'], ['c']]."""
    tokens = re.findall(r"\(|\)|[^\s()]+", side)
    groups, current = [], None
    for tok in tokens:
        if tok == "(":
            if current is not None:
                raise ValueError(f"Nested parentheses are not allowed in pattern side {side!r}")
            current = []
        elif tok == ")":
            if current is None:
                raise ValueError(f"Unbalanced parentheses in pattern side {side!r}")
            groups.append(current)
            current = None
        elif current is not None:
            current.append(tok)
        else:
            groups.append([tok])
    if current is not None:
        raise ValueError(f"Unbalanced parentheses in pattern side {side!r}")
    return groups


@export("keras.ops.rearrange")
@keras_op
def rearrange(tensor, pattern, **axes_lengths):
    """Axes split, merged and permuted by an einops pattern such as 'b (h w) c -> b h w c'
    (split sizes given as keyword arguments, e.g. h=4)."""
    x = convert(tensor)
    if "->" not in pattern:
        raise ValueError(f"Pattern must contain '->'. Received: pattern={pattern}")
    left, right = (s.strip() for s in pattern.split("->"))
    in_groups, out_groups = _groups(left), _groups(right)
    if len(in_groups) != x.shape.rank:
        raise ValueError(f"Number of dimensions in pattern {left!r} ({len(in_groups)}) does not "
                         f"match the rank of the tensor ({x.shape.rank}).")
    sizes = dict(axes_lengths)
    for group, dim in zip(in_groups, (int(d) for d in x.shape)):
        unknown = [a for a in group if a not in sizes]
        known = 1
        for a in group:
            if a in sizes:
                known *= sizes[a]
        if len(unknown) > 1:
            raise ValueError(f"Could not infer sizes for {unknown} in pattern {left!r}; give "
                             f"all but one as keyword arguments.")
        if unknown:
            if known == 0 or dim % known:
                raise ValueError(f"Shape mismatch: cannot split dimension {dim} of group "
                                 f"{group} with known sizes {known}.")
            sizes[unknown[0]] = dim // known
        elif known != dim:
            raise ValueError(f"Shape mismatch: group {group} has size {known}, the tensor has "
                             f"{dim}.")
    elementary = [a for g in in_groups for a in g]
    wanted = [a for g in out_groups for a in g]
    if sorted(elementary) != sorted(wanted):
        raise ValueError(f"Identifiers on the two sides of {pattern!r} must match: "
                         f"{elementary} vs {wanted}.")
    x = array_ops.reshape(x, [sizes[a] for a in elementary])
    x = array_ops.transpose(x, [elementary.index(a) for a in wanted])
    out_shape = []
    for group in out_groups:
        size = 1
        for a in group:
            size *= sizes[a]
        out_shape.append(size)
    return array_ops.reshape(x, out_shape)
