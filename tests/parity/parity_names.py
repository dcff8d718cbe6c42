"""The public names the parity table must cover, read from minitf's namespaces.

`exported(lib)` lists every public, non-module name of the namespaces below as a qualified path
(`"add"`, `"math.add"`, `"keras.layers.Dense"`). `coverage(rows)` maps each exported path to
the row that covers it: its own row, or the row of another path bound to the same object.
"""
import types

import minitf

NAMESPACES = ("", "math", "nn", "linalg", "image", "random", "bitwise", "debugging", "autodiff", "keras.layers", "keras.losses",
              "keras.metrics", "keras.activations", "keras.initializers", "keras.optimizers",
              "keras.optimizers.legacy", "keras.ops", "keras.ops.nn", "keras.ops.numpy",
              "keras.ops.linalg", "keras.ops.image", "keras.random", "keras.backend")
NAMESPACES += ("signal",)  # tf.signal's rows: parity_rows_signal.py
NAMESPACES += ("autograph", "autograph.experimental")  # parity_rows_autograph.py
NAMESPACES += ("experimental",)  # tf.experimental: parity_rows_ragged_shape.py
NAMESPACES += ("experimental.numpy", "experimental.numpy.random")  # parity_rows_experimental_numpy.py
# Single names of namespaces not scanned whole, each with its row.
SINGLE_NAMES = ("io.decode_csv",)  # parity_rows_csv.py

# Names minitf exports that TF 2.21 does not have at that path, and why they stay.
EXTENSIONS = {}


def namespace(lib, path):
    obj = lib
    for part in path.split(".") if path else ():
        obj = getattr(obj, part)
    return obj


def exported(lib=minitf, namespaces=NAMESPACES):
    """Qualified public names of `lib`'s namespaces, each with its object (a module's `__all__`
    where it has one, else every name without a leading underscore)."""
    names = {}
    for ns in namespaces:
        module = namespace(lib, ns)
        for name in sorted(getattr(module, "__all__", None) or dir(module)):
            if name.startswith("_"):
                continue
            obj = getattr(module, name)
            if isinstance(obj, types.ModuleType):
                continue
            names[f"{ns}.{name}" if ns else name] = obj
    for path in SINGLE_NAMES if namespaces is NAMESPACES else ():
        names[path] = namespace(lib, path)
    return names


def coverage(rows, names):
    """{qualified name: covering row name or None}. A row covers its own path and every other
    path bound to the same object (aliases)."""
    by_object = {}
    for row_name in rows:
        if row_name in names:
            by_object.setdefault(id(names[row_name]), row_name)
    covered = {}
    for path, obj in names.items():
        if path in rows:
            covered[path] = path
        elif _aliasable(obj):
            covered[path] = by_object.get(id(obj))
        else:
            covered[path] = None
    return covered


def _aliasable(obj):
    """Functions and classes are shared between paths; values (dtypes, constants) are not."""
    return callable(obj) and not isinstance(obj, (bool, int, float, str))
