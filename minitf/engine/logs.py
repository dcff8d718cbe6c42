"""The small argument rules of fit/evaluate's loops: verbosity and validation frequency. (The
logs themselves take their form at the callbacks: `minitf.callbacks.callback_list.pythonify_logs`.)"""

__all__ = ["resolve_verbose", "should_validate"]


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
