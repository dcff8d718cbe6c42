"""The 'checkpoint' state file of a checkpoint directory, read as untrusted input.

TF writes it as a text-format CheckpointState proto (checkpoint_state.proto: fields
model_checkpoint_path=1, all_model_checkpoint_paths=2, all_model_checkpoint_timestamps=3,
last_preserved_timestamp=4):

    model_checkpoint_path: "ckpt-3"
    all_model_checkpoint_paths: "ckpt-2"
    all_model_checkpoint_paths: "ckpt-3"
    all_model_checkpoint_timestamps: 1700000000.5
    last_preserved_timestamp: 1699999999.0

A directory can come from anywhere, so reading the file is guarded: it is opened without
following a symlink (O_NOFOLLOW) or waiting for a FIFO's writer (O_NONBLOCK), must be a regular
file (fstat) no larger than `SIZE_LIMIT`, and anything else is StateFileError (a DataLossError
and a ValueError, TF's error for an invalid state) naming the file. Text that does not parse is
ignored with a warning, as TF does. The paths it lists are used only when they name a file
directly inside the directory (`inside`): TF joins a relative path to the directory and takes an
absolute one as it is, so '../victim' or '/home/x' would reach outside; minitf refuses both.
"""
import errno
import os
import re
import stat
import warnings

from minitf.errors import errors
from minitf.checkpoint import h5format

__all__ = ["STATE_FILE", "SIZE_LIMIT", "StateFileError", "read_state", "write_state",
           "inside", "parse", "format_state"]

STATE_FILE = "checkpoint"
SIZE_LIMIT = 8 << 20  # about 100,000 listed checkpoints
_FIELDS = ("model_checkpoint_path", "all_model_checkpoint_paths",
           "all_model_checkpoint_timestamps", "last_preserved_timestamp")
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) \
    | getattr(os, "O_CLOEXEC", 0)
_TOKEN = re.compile(r"""\s*(?:\#[^\n]*(?:\n|$)\s*)*
                        (?P<field>[A-Za-z_]\w*)\s*:\s*
                        (?P<value>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[^\s"'\#]+)""",
                    re.VERBOSE)
_TRAILER = re.compile(r"\s*(?:\#[^\n]*(?:\n|$)\s*)*\Z")
_ESCAPES = {"n": 10, "r": 13, "t": 9, "a": 7, "b": 8, "f": 12, "v": 11, "\\": 92, "'": 39,
            '"': 34, "?": 63}


class StateFileError(errors.DataLossError, ValueError):
    """A state file minitf will not read: not a regular file, or too large."""


def _refuse(path, what):
    return StateFileError(None, None, f"Checkpoint state file {path!r} {what}; remove or replace "
                          "it (it names the latest checkpoint of the directory).")


def _read_text(path):
    """The text of state file `path`, or None if there is none."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        return None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise _refuse(path, "is a symbolic link; minitf reads it only as a regular file") from None
        if e.errno == errno.ENOTDIR:
            return None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _refuse(path, "is not a regular file (a device, FIFO or directory)")
        if st.st_size > SIZE_LIMIT:
            raise _refuse(path, f"is {st.st_size} bytes, over the {SIZE_LIMIT} bytes of a state file")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            total += len(chunk)
            if total > SIZE_LIMIT:
                raise _refuse(path, f"grew past {SIZE_LIMIT} bytes while being read")
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def _unescape(body):
    out, i = bytearray(), 0
    raw = body.encode("utf-8")
    while i < len(raw):
        byte = raw[i]
        if byte != 92:  # backslash
            out.append(byte)
            i += 1
            continue
        i += 1
        if i >= len(raw):
            raise ValueError("a string ends in a lone backslash")
        c = chr(raw[i])
        if c in _ESCAPES:
            out.append(_ESCAPES[c])
            i += 1
        elif c in "01234567":
            digits = re.match(rb"[0-7]{1,3}", raw[i:i + 3]).group()
            out.append(int(digits, 8) & 0xFF)
            i += len(digits)
        elif c == "x":
            digits = re.match(rb"[0-9a-fA-F]{1,2}", raw[i + 1:i + 3])
            if not digits:
                raise ValueError("\\x without hex digits")
            out.append(int(digits.group(), 16))
            i += 1 + len(digits.group())
        else:
            raise ValueError(f"unknown escape \\{c}")
    return out.decode("utf-8")


def parse(text):
    """The CheckpointState in `text` as a dict; ValueError if it does not parse."""
    state = {"model_checkpoint_path": None, "all_model_checkpoint_paths": [],
             "all_model_checkpoint_timestamps": [], "last_preserved_timestamp": None}
    pos = 0
    while not _TRAILER.match(text, pos):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise ValueError(f"cannot parse text at offset {pos}: {text[pos:pos + 40]!r}")
        field, value = match.group("field"), match.group("value")
        pos = match.end()
        if field not in _FIELDS:
            raise ValueError(f'message type "tensorflow.CheckpointState" has no field named {field!r}')
        if field in ("model_checkpoint_path", "all_model_checkpoint_paths"):
            if value[0] not in "\"'":
                raise ValueError(f"field {field} expects a string, got {value!r}")
            value = _unescape(value[1:-1])
        else:
            value = float(value)
        if field.startswith("all_"):
            state[field].append(value)
        else:
            state[field] = value
    return state


def read_state(directory, latest_filename=None):
    """The parsed state file of `directory` as a dict, or None if there is none or it does
    not parse (a warning says so). Raises StateFileError for a file minitf will not read."""
    path = os.path.join(os.fspath(directory), latest_filename or STATE_FILE)
    data = _read_text(path)
    if data is None:
        return None
    try:
        return parse(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        warnings.warn(f"{path}: Checkpoint ignored (the state file does not parse: {e}).",
                      stacklevel=3)
        return None


def inside(directory, path):
    """`path` (from a state file) as a path in `directory` if it names a file directly inside
    it, else None. A relative path is taken relative to the directory, as TF does."""
    if not path or "\0" in path:
        return None
    directory = os.fspath(directory)
    full = os.path.normpath(os.path.abspath(os.path.join(directory, path)))
    if os.path.dirname(full) != os.path.normpath(os.path.abspath(directory)):
        return None
    name = os.path.basename(full)
    if name in ("", ".", ".."):
        return None
    return os.path.join(directory, name)


def _quote(text):
    out = []
    for byte in text.encode("utf-8"):
        c = chr(byte)
        if c in "\\\"'":
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif byte < 32 or byte >= 127:
            out.append(f"\\{byte:03o}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def _relative(directory, path):
    if os.path.dirname(os.path.abspath(path)) == os.path.abspath(directory):
        return os.path.basename(path)
    return path


def format_state(directory, latest, all_paths, timestamps=None, last_preserved=None):
    """The text of a state file (paths in `directory` written relative to it, as TF does)."""
    lines = [f"model_checkpoint_path: {_quote(_relative(directory, latest))}"]
    lines += [f"all_model_checkpoint_paths: {_quote(_relative(directory, p))}" for p in all_paths]
    lines += [f"all_model_checkpoint_timestamps: {t!r}" for t in (timestamps or [])]
    if last_preserved is not None:
        lines.append(f"last_preserved_timestamp: {last_preserved!r}")
    return "\n".join(lines) + "\n"


def write_state(directory, latest, all_paths, timestamps=None, last_preserved=None):
    """Atomically replace the state file of `directory` (a symlink or FIFO found there is
    replaced, never written through)."""
    h5format.atomic_write_text(os.path.join(directory, STATE_FILE),
                               format_state(directory, latest, all_paths, timestamps,
                                            last_preserved))
