"""The logs fit/evaluate hand to callbacks: tensors turned into floats, nested dicts flattened,
and the small argument rules of the loops (verbosity, validation frequency)."""
from minitf.engine.data_adapter import to_numpy

__all__ = ["floats", "flatten_logs", "resolve_verbose", "should_validate"]


def floats(logs):
    """Logs with tensor values turned into Python floats (nested dicts flattened)."""
    out = {}
    for key, value in (logs or {}).items():
        if isinstance(value, dict):
            out.update(floats(value))
        else:
            try:
                out[key] = float(to_numpy(value))
            except (TypeError, ValueError):
                out[key] = value
    return out


def flatten_logs(logs):
    """`logs` with nested dicts merged into one level (the compiled metrics report a dict)."""
    if not isinstance(logs, dict) or not any(isinstance(v, dict) for v in logs.values()):
        return logs
    out = {}
    for key, value in logs.items():
        if isinstance(value, dict):
            out.update(flatten_logs(value))
        else:
            out[key] = value
    return out


def resolve_verbose(verbose):
    """The verbosity as an int: 'auto' means 1 (a progress bar); a value Keras' progress bar
    does not know (not an int, e.g. 'loud') prints nothing, as there."""
    if verbose == "auto":
        return 1
    try:
        return int(verbose)
    except (TypeError, ValueError):
        return 0


def should_validate(epoch, validation_freq):
    """Whether the epoch (0-based) is one to validate at under `validation_freq`."""
    if isinstance(validation_freq, int):
        if validation_freq < 1:
            raise ValueError(f"`validation_freq` must be positive, got {validation_freq}.")
        return (epoch + 1) % validation_freq == 0
    return (epoch + 1) in validation_freq
