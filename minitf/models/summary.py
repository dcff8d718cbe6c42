"""model.summary(): Keras 3's table of layers, output shapes and parameter counts.

Keras 3 draws the table with `rich` (a Table with the HEAVY_HEAD box, `show_lines=True`,
fixed column widths, ellipsis overflow) and captures the console's text. minitf does not
depend on rich: this module lays out the same characters itself, following rich's rules for
column widths (`Table._calculate_column_widths`), word wrapping (`divide_line`), justification
and truncation with '…', and the console cropping lines at its width. Text is measured in
characters, not terminal cells (rich counts wide East-Asian characters as two cells).
"""
import math
import os
import re
import shutil
import sys

from minitf.nest import nest
from minitf.keras_core.keras_tensor import KerasTensor
from minitf.layers.tracking import dedup
from minitf.tensor_shape import TensorShape

__all__ = ["print_summary", "count_params", "weight_memory_size", "readable_memory_size",
           "get_layer_index_bound_by_layer_name"]

# rich's HEAVY_HEAD box: (left, horizontal, cross, right) for each kind of line
_TOP = ("┏", "━", "┳", "┓")
_HEAD_ROW = ("┃", " ", "┃", "┃")
_HEAD_SEP = ("┡", "━", "╇", "┩")
_ROW = ("│", " ", "│", "│")
_ROW_SEP = ("├", "─", "┼", "┤")
_BOTTOM = ("└", "─", "┴", "┘")

# Keras' dtype_utils.DTYPE_TO_SIZE (bits per element)
_DTYPE_BITS = {**{f"float{i}": i for i in (16, 32, 64)}, **{f"int{i}": i for i in (8, 16, 32, 64)},
               **{f"uint{i}": i for i in (8, 16, 32, 64)}, "bfloat16": 16, "bool": 1}


# -- parameter counts and sizes --------------------------------------------------------------
def count_params(weights):
    """The total number of scalars in `weights` (each counted once)."""
    return int(sum(v.shape.num_elements() for v in dedup(list(weights))))


def _dtype_bits(dtype):
    name = getattr(dtype, "name", str(dtype))
    if name in _DTYPE_BITS:
        return _DTYPE_BITS[name]
    return int(getattr(dtype, "size", 4)) * 8  # dtypes Keras has no size for


def weight_memory_size(weights):
    """The bytes the distinct `weights` take, as Keras counts them (bits per dtype / 8)."""
    unique = {id(w): w for w in weights}.values()
    bits = sum(math.prod(w.shape.as_list()) * _dtype_bits(w.dtype) for w in unique)
    return bits / 8


def readable_memory_size(size):
    """A byte count as Keras prints it: '184.00 B', '1.50 KB', ..."""
    units = ["B", "KB", "MB", "GB", "TB", "PB"]
    for unit in units:
        if size / 1024 < 1:
            return "{:.2f} {}".format(size, unit)
        size /= 1024
    return "{:.2f} {}".format(size, units[-1])


# -- layer range -----------------------------------------------------------------------------
def get_layer_index_bound_by_layer_name(layers, layer_range=None):
    """[first, last + 1] indices of `layers` between two names or regexes (Keras' rule)."""
    if layer_range is None:
        return [0, len(layers)]
    if len(layer_range) != 2:
        raise ValueError("layer_range must be a list or tuple of length 2. Received: "
                         f"layer_range = {layer_range} of length {len(layer_range)}")
    if not isinstance(layer_range[0], str) or not isinstance(layer_range[1], str):
        raise ValueError(f"layer_range should contain string type only. Received: {layer_range}")
    lower = [i for i, layer in enumerate(layers) if re.match(layer_range[0], layer.name)]
    upper = [i for i, layer in enumerate(layers) if re.match(layer_range[1], layer.name)]
    if not lower or not upper:
        raise ValueError("Passed layer_names do not match the layer names in the model. "
                         f"Received: {layer_range}")
    if min(lower) > max(upper):
        return [min(upper), max(lower) + 1]
    return [min(lower), max(upper) + 1]


# -- cell texts ------------------------------------------------------------------------------
def _format_shape(shape):
    if isinstance(shape, TensorShape):
        if shape.rank is None:
            return "?"
        shape = shape.as_list()
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _structure_text(texts):
    """One text as it is; a structure of them as Keras prints it (str() without quotes)."""
    flat = nest.flatten(texts)
    if len(flat) == 1:
        return flat[0]
    return str(texts).replace("'", "")


def _output_shape_text(layer):
    nodes = getattr(layer, "_inbound_nodes", [])
    if nodes:  # Keras keeps the last call's shapes
        return _structure_text(nest.map_structure(
            lambda t: _format_shape(t.shape) if isinstance(t, KerasTensor) else "?",
            nodes[-1].output_tensors))
    build_shape = getattr(layer, "_build_input_shape", None)
    if build_shape is None or not getattr(layer, "built", False):
        return "?"
    try:
        out = layer.compute_output_shape(build_shape)
    except (NotImplementedError, ValueError, TypeError, AttributeError):
        return "?"
    if isinstance(out, TensorShape) or (isinstance(out, (tuple, list))
                                        and all(d is None or isinstance(d, int) for d in out)):
        return _format_shape(out)
    return _structure_text(nest.map_structure(_format_shape, out))


def _node_index(node):
    for i, n in enumerate(getattr(node.layer, "_inbound_nodes", [])):
        if n is node:
            return i
    return 0


def _connections(layer, relevant):
    parts = []
    for node in getattr(layer, "_inbound_nodes", []):
        if relevant and id(node) not in relevant:
            continue  # a call outside this model
        for t in node.parent_tensors:
            parent = t.node
            name = parent.layer.name if parent is not None else t.name
            index = _node_index(parent) if parent is not None else 0
            parts.append(f"{name}[{index}][{t._index}]")
    return ", ".join(parts) or "-"


def _layer_fields(layer, prefix, sequential_like, relevant, show_trainable):
    # a plain Model built from inputs/outputs is listed as Keras 3's class, 'Functional'
    cls = getattr(layer, "_keras_class_name", type(layer).__name__)
    name = f"{prefix}{layer.name} ({cls})"
    if not hasattr(layer, "built"):
        params = "0"
    elif not layer.built:
        params = "0 (unbuilt)"
    else:
        params = f"{layer.count_params():,}"
    fields = [name, _output_shape_text(layer), params]
    if not sequential_like:
        fields.append(_connections(layer, relevant))
    if show_trainable:
        if getattr(layer, "weights", None):
            fields.append("Y" if layer.trainable else "N")
        else:
            fields.append("-")
    return fields


def _layer_rows(layer, level, expand_nested, **kw):
    prefix = "   " * level + "└ " if level else ""
    rows = [_layer_fields(layer, prefix, **kw)]
    nested = getattr(layer, "layers", None) if expand_nested else None
    if nested:
        for inner in nested:
            rows.extend(_layer_rows(inner, level + 1, expand_nested, **kw))
    return rows


def _is_sequential_like(model, nodes_by_depth):
    """Keras' test: one node per depth, each reading one tensor, and no layer called twice."""
    nodes = set()
    for depth in sorted(nodes_by_depth, reverse=True):
        group = nodes_by_depth[depth]
        if len(group) > 1 or (len(group) == 1 and len(group[0].parent_tensors) > 1):
            return False
        nodes.update(id(n) for n in group)
    for layer in model.layers:
        if sum(1 for n in getattr(layer, "_inbound_nodes", []) if id(n) in nodes) > 1:
            return False
    return True


# -- rich's layout ---------------------------------------------------------------------------
def _ratio_reduce(total, ratios, maximums, values):
    """rich's ratio_reduce: take `total` away from `values` in proportion to `ratios`."""
    ratios = [r if m else 0 for r, m in zip(ratios, maximums)]
    total_ratio = sum(ratios)
    if not total_ratio:
        return list(values)
    remaining, out = total, []
    for ratio, maximum, value in zip(ratios, maximums, values):
        if ratio and total_ratio > 0:
            taken = min(maximum, round(ratio * remaining / total_ratio))
            out.append(value - taken)
            remaining -= taken
            total_ratio -= ratio
        else:
            out.append(value)
    return out


def _table_widths(column_widths, table_width):
    """Each column's width with its padding (one space each side), borders excluded."""
    max_width = table_width - (len(column_widths) + 1)
    if max_width < 1:
        return [0] * len(column_widths)
    widths = [min(w + 2, max_width) or 1 for w in column_widths]
    if sum(widths) > max_width:  # fixed columns do not collapse: rich cuts them evenly
        widths = _ratio_reduce(sum(widths) - max_width, [1] * len(widths), widths, widths)
        widths = [min(w + 2, width) if width >= 1 else 0 for w, width in zip(column_widths, widths)]
    return widths


def _break_offsets(text, width):
    """rich's divide_line without folding: where a line of `text` wraps at `width`."""
    breaks, offset = [], 0
    for match in re.finditer(r"\s*\S+\s*", text):
        start, word = match.start(), match.group(0)
        length = len(word.rstrip())
        if width - offset >= length:
            offset += len(word)
        elif length > width:
            if start:
                breaks.append(start)
            offset = len(word)
        elif offset and start:
            breaks.append(start)
            offset = len(word)
    return breaks


def _wrap(text, width, justify):
    """The lines of one cell: wrapped at spaces, long words cut with '…', then justified."""
    lines = []
    for line in text.split("\n"):
        cuts = [0] + _break_offsets(line, width) + [len(line)]
        for a, b in zip(cuts, cuts[1:]):
            piece = line[a:b].rstrip()
            if len(piece) > width:
                piece = piece[:max(width - 1, 0)] + "…" if width > 0 else ""
            if justify == "right":
                piece = piece.rjust(width)
            elif justify == "center":
                piece = (" " * ((width - len(piece)) // 2) + piece).ljust(width)
            else:
                piece = piece.ljust(width)
            lines.append(piece)
    return lines


def _rule(chars, widths):
    left, fill, cross, right = chars
    return left + cross.join(fill * w for w in widths) + right


def _render_row(cells, widths, justify, chars, bottom=False):
    """The lines of one row; cells top-aligned (rich's header cells: bottom-aligned)."""
    inner = [max(w - 2, 0) for w in widths]
    wrapped = [_wrap(cell, w, j) for cell, w, j in zip(cells, inner, justify)]
    height = max(len(c) for c in wrapped)
    if bottom:
        wrapped = [[" " * w] * (height - len(c)) + c for c, w in zip(wrapped, inner)]
    out = []
    for i in range(height):
        parts = []
        for lines, w in zip(wrapped, widths):
            text = lines[i] if i < len(lines) else " " * max(w - 2, 0)
            parts.append((" " + text + " ")[:w] if w >= 2 else " " * w)
        out.append(chars[0] + chars[2].join(parts) + chars[3])
    return out


def _render_table(header, rows, widths, justify):
    lines = [_rule(_TOP, widths)]
    lines += _render_row(header, widths, justify, _HEAD_ROW, bottom=True)
    lines.append(_rule(_HEAD_SEP, widths))  # rich draws it even with no rows
    for i, row in enumerate(rows):
        if i:
            lines.append(_rule(_ROW_SEP, widths))
        lines += _render_row(row, widths, justify, _ROW)
    lines.append(_rule(_BOTTOM, widths))
    return lines


def _console_width():
    """rich's Console width: a terminal on stdin/stdout/stderr, then $COLUMNS, else 80."""
    width = None
    for fd in (0, 1, 2):
        try:
            width = os.get_terminal_size(fd).columns
            break
        except (AttributeError, ValueError, OSError):
            pass
    columns = os.environ.get("COLUMNS")
    if columns is not None and columns.isdigit():
        width = int(columns)
    if os.environ.get("TERM", "").lower() in ("dumb", "unknown"):
        width = 80
    return width or 80


# -- the summary -----------------------------------------------------------------------------
def print_summary(model, line_length=None, positions=None, print_fn=None, expand_nested=False,
                  show_trainable=False, layer_range=None):
    """Print Keras 3's summary table of `model`.

    `print_fn` (default: write to stdout) is called once, with the whole text, as Keras 3
    does; `line_length` and `positions` (fractions of the line) set the column widths.
    """
    if getattr(model, "_is_sequential", False) or model._graph is None:
        sequential_like, layers, nodes_by_depth = True, model.layers, {}
    else:  # functional: Keras lists its operations, InputLayers included
        layers, nodes_by_depth = model._graph.layers, model._graph.nodes_by_depth
        sequential_like = _is_sequential_like(model, nodes_by_depth)
    if sequential_like:
        default_length = 88
        positions = list(positions or [0.45, 0.80, 1.0])
        header = ["Layer (type)", "Output Shape", "Param #"]
        justify = ["left", "left", "right"]
        relevant = set()
    else:
        default_length = 108
        positions = list(positions or [0.3, 0.56, 0.74, 1.0])
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
        justify = ["left", "left", "right", "left"]
        relevant = {id(n) for group in nodes_by_depth.values() for n in group}
    if show_trainable:
        default_length += 12
        positions = [p * 0.90 for p in positions] + [1.0]
        header.append("Trainable")
        justify.append("center")

    default_length = min(default_length, shutil.get_terminal_size().columns - 4)
    line_length = line_length or default_length
    column_widths, current = [], 0
    for pos in positions:
        width = int(pos * line_length) - current
        if width < 4:
            raise ValueError("Insufficient console width to print summary.")
        column_widths.append(width)
        current += width
    widths = _table_widths(column_widths, line_length)

    start, stop = get_layer_index_bound_by_layer_name(layers, layer_range)
    rows = []
    for layer in layers[start:stop]:
        rows += _layer_rows(layer, 0, expand_nested, sequential_like=sequential_like,
                            relevant=relevant, show_trainable=show_trainable)

    trainable = model.trainable_weights
    non_trainable = model.non_trainable_weights
    optimizer = getattr(model, "optimizer", None)
    opt_vars = list(optimizer.variables) if getattr(optimizer, "built", False) else None
    counts = [count_params(trainable), count_params(non_trainable)]
    sizes = [weight_memory_size(trainable), weight_memory_size(non_trainable)]
    if opt_vars is not None:
        counts.append(count_params(opt_vars))
        sizes.append(weight_memory_size(opt_vars))

    console_width = _console_width()
    lines = [f'Model: "{model.name}"']
    lines += [line[:console_width] for line in _render_table(header, rows, widths, justify)]
    lines.append(f" Total params: {sum(counts):,} ({readable_memory_size(sum(sizes))})")
    labels = ["Trainable", "Non-trainable", "Optimizer"]
    for label, count, size in zip(labels, counts, sizes):
        lines.append(f" {label} params: {count:,} ({readable_memory_size(size)})")
    text = "\n".join(lines) + "\n"
    if print_fn is None:
        sys.stdout.write(text)
    else:
        print_fn(text)
