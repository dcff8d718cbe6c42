"""tf.errors: TensorFlow's exception classes, with the built-in bases TF gives them."""
from minitf.api_export import export, export_value

__all__ = [
    "OpError", "CancelledError", "UnknownError", "InvalidArgumentError", "DeadlineExceededError",
    "NotFoundError", "AlreadyExistsError", "PermissionDeniedError", "ResourceExhaustedError",
    "FailedPreconditionError", "AbortedError", "OutOfRangeError", "UnimplementedError",
    "InternalError", "UnavailableError", "DataLossError", "UnauthenticatedError",
    "OperatorNotAllowedInGraphError",
]


@export("errors.OpError")
class OpError(Exception):
    """Base class of errors raised while running an op; carries node_def, op and message."""

    def __init__(self, node_def=None, op=None, message="", *args):
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message


def _error(name, doc, *bases):
    cls = type(name, (OpError,) + bases, {"__doc__": doc})
    return cls


CancelledError = _error("CancelledError", "An operation was cancelled.")
export_value("CancelledError", "errors.CancelledError")
UnknownError = _error("UnknownError", "An error of unknown cause.")
export_value("UnknownError", "errors.UnknownError")
# TF makes InvalidArgumentError a ValueError too, so `except ValueError` catches it.
InvalidArgumentError = _error("InvalidArgumentError", "An op received an invalid argument.", ValueError)
export_value("InvalidArgumentError", "errors.InvalidArgumentError")
DeadlineExceededError = _error("DeadlineExceededError", "A deadline passed before the op finished.")
export_value("DeadlineExceededError", "errors.DeadlineExceededError")
NotFoundError = _error("NotFoundError", "A requested file or entity does not exist.")
export_value("NotFoundError", "errors.NotFoundError")
AlreadyExistsError = _error("AlreadyExistsError", "An entity that was to be created already exists.")
export_value("AlreadyExistsError", "errors.AlreadyExistsError")
PermissionDeniedError = _error("PermissionDeniedError", "The caller may not run the operation.")
export_value("PermissionDeniedError", "errors.PermissionDeniedError")
ResourceExhaustedError = _error("ResourceExhaustedError", "A resource (such as memory) ran out.")
export_value("ResourceExhaustedError", "errors.ResourceExhaustedError")
FailedPreconditionError = _error("FailedPreconditionError", "The system is not in a state to run the op.")
export_value("FailedPreconditionError", "errors.FailedPreconditionError")
AbortedError = _error("AbortedError", "The operation was aborted.")
export_value("AbortedError", "errors.AbortedError")
OutOfRangeError = _error("OutOfRangeError", "An iteration went past its valid range.")
export_value("OutOfRangeError", "errors.OutOfRangeError")
UnimplementedError = _error("UnimplementedError", "The operation is not implemented.")
export_value("UnimplementedError", "errors.UnimplementedError")
InternalError = _error("InternalError", "An internal invariant was broken.")
export_value("InternalError", "errors.InternalError")
UnavailableError = _error("UnavailableError", "The runtime is not currently available.")
export_value("UnavailableError", "errors.UnavailableError")
DataLossError = _error("DataLossError", "Unrecoverable data loss or corruption.")
export_value("DataLossError", "errors.DataLossError")
UnauthenticatedError = _error("UnauthenticatedError", "The request has no valid credentials.")
export_value("UnauthenticatedError", "errors.UnauthenticatedError")


@export("errors.OperatorNotAllowedInGraphError")
class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation that needs a value (`bool(t)`, iterating) was applied to a symbolic
    tensor while a `tf.function` was being traced."""


def invalid_argument(op_name, message):
    """Build the InvalidArgumentError TF raises from an eager op, tagged with the op's name."""
    return InvalidArgumentError(None, None, f"{message} [Op:{op_name}]")
