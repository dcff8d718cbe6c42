"""Turning a notebook code cell into plain Python for one library.

Three steps, applied in this order by `prepare_cell`:
1. IPython syntax: a cell indented as a whole is dedented; `!shell` and `%line` magics and
   `name?` help become `pass` (same indentation, so blocks stay valid); `%%writefile NAME` becomes
   a Python file write; `%%time`/`%%timeit`/`%%capture` run their body; any other `%%` cell
   magic skips the cell.
2. The substitution rules of substitutions.py (dataset stand-ins, shorter training), identical
   for both libraries.
3. For minitf only: imports of `tensorflow`, `tensorflow.keras` and standalone `keras` are
   pointed at `minitf` / `minitf.keras`. Nothing else in the cell changes.
"""
import re
import textwrap

import substitutions

_BODY_MAGICS = {"time", "timeit", "capture"}

# `import tensorflow as tf`, `import tensorflow.keras.layers as L`, `import tensorflow`
_IMPORT_TF = re.compile(r"^(\s*)import\s+tensorflow(\.[\w.]+)?(\s+as\s+\w+)?\s*(#.*)?$")
# `from tensorflow import keras`, `from tensorflow.keras.layers import Dense`
_FROM_TF = re.compile(r"^(\s*)from\s+tensorflow(\.[\w.]+)?\s+import\s+")
# `import keras`, `import keras.layers as L`
_IMPORT_KERAS = re.compile(r"^(\s*)import\s+keras(\.[\w.]+)?(\s+as\s+\w+)?\s*(#.*)?$")
# `from keras import layers`, `from keras.layers import Dense`
_FROM_KERAS = re.compile(r"^(\s*)from\s+keras(\.[\w.]+)?\s+import\s+")


class SkipCell(Exception):
    """The cell cannot run outside IPython (an unsupported cell magic); the reason is the message."""


def strip_magics(src):
    """`src` with IPython-only syntax replaced by Python; raises SkipCell for unsupported cell magics."""
    if src[:1] in (" ", "\t"):  # IPython strips a common leading indent, as textwrap.dedent does
        src = textwrap.dedent(src)
    lines = src.split("\n")
    first = lines[0].strip() if lines else ""
    if first.startswith("%%"):
        parts = first[2:].split(None, 1)
        magic = parts[0] if parts else ""
        body = "\n".join(lines[1:])
        if magic == "writefile":
            args = (parts[1] if len(parts) > 1 else "").split()
            append = "-a" in args or "--append" in args
            names = [a for a in args if not a.startswith("-")]
            if not names:
                raise SkipCell("%%writefile without a file name")
            mode = "a" if append else "w"
            return f"with open({names[0]!r}, {mode!r}) as _nbp_f:\n    _nbp_f.write({(body + chr(10))!r})\n"
        if magic in _BODY_MAGICS:
            lines = lines[1:]
        else:
            raise SkipCell(f"cell magic %%{magic}")
    out = []
    for line in lines:
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        if stripped.startswith(("!", "%")):
            out.append(indent + "pass  # notebook_parity: skipped " + stripped.split()[0][:40])
        elif re.match(r"^[\w.]+\?{1,2}$", stripped):  # `tf.keras.Input?` asks IPython for help
            out.append(indent + "pass  # notebook_parity: skipped help " + stripped[:40])
        elif re.match(r"^\w+\s*=\s*[!%]", stripped):  # `files = !ls` captures shell output
            name = stripped.split("=", 1)[0].strip()
            out.append(f"{indent}{name} = []  # notebook_parity: skipped shell capture")
        else:
            out.append(line)
    return "\n".join(out)


def rewrite_imports(src, lib):
    """`src` with TF/Keras imports pointed at `lib` ('tensorflow' leaves it unchanged, 'minitf')."""
    if lib == "tensorflow":
        return src
    if lib != "minitf":
        raise ValueError(f"unknown library {lib!r}; expected 'tensorflow' or 'minitf'")
    out = []
    for line in src.split("\n"):
        m = _IMPORT_TF.match(line)
        if m:
            indent, sub, alias, comment = m.group(1), m.group(2) or "", m.group(3), m.group(4) or ""
            alias = alias if alias else ("" if sub else " as tensorflow")
            if sub and not alias:  # `import tensorflow.keras` binds the name `tensorflow`
                line = f"{indent}import minitf{sub}; import minitf as tensorflow"
            else:
                line = f"{indent}import minitf{sub}{alias}"
            line += ("  " + comment) if comment else ""
        elif _FROM_TF.match(line):
            line = _FROM_TF.sub(lambda m: f"{m.group(1)}from minitf{m.group(2) or ''} import ", line, count=1)
        elif _IMPORT_KERAS.match(line):
            m = _IMPORT_KERAS.match(line)
            indent, sub, alias, comment = m.group(1), m.group(2) or "", m.group(3), m.group(4) or ""
            if alias:
                line = f"{indent}import minitf.keras{sub}{alias}"
            elif sub:
                line = f"{indent}import minitf.keras{sub}; import minitf.keras as keras"
            else:
                line = f"{indent}import minitf.keras as keras"
            line += ("  " + comment) if comment else ""
        elif _FROM_KERAS.match(line):
            line = _FROM_KERAS.sub(lambda m: f"{m.group(1)}from minitf.keras{m.group(2) or ''} import ", line, count=1)
        out.append(line)
    return "\n".join(out)


def prepare_cell(src, lib, nb_id, index, hits=None):
    """The Python text to run for code cell `index` (1-based) of notebook `nb_id` under `lib`.

    `hits`, when given, is a dict counting how often each substitution rule fired (keyed by rule
    id), so the runner can report rules that no longer match the notebook text.
    Raises SkipCell when the cell cannot be run outside IPython.
    """
    text = strip_magics(src)
    text = substitutions.apply(text, nb_id, index, hits)
    return rewrite_imports(text, lib)
