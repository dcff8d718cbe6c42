"""Programs whose converted code raises TF's AutoGraph errors when run eagerly with tensors.

`tf` is bound by the test that loads this file (minitf, or TensorFlow for the comparison), so
both libraries convert and run the very same source. `ERRORS` lists each program with its
arguments (built by `args(tf)`) and the error TF 2.21 raises: its type name and message (a
message ending in "..." is a prefix; the rest names objects or structures by address).
"""
# ruff: noqa
tf = None


def undefined_after_branch(x):
    if x > 0:
        y = 1
    return y


def loop_var_changes_dtype(n):
    i = 0
    while i < n:
        i = i + 0.5
    return i


def loop_var_changes_shape(n):
    i = 0
    while i < n:
        i = tf.constant([1, 2])
    return i


def loop_var_changes_structure(n):
    i = 0
    x = 0
    while i < n:
        x = (x, x)
        i += 1
    return x


def while_condition_not_bool(n):
    while n:
        n -= 1
    return n


def if_condition_not_bool(x):
    if x:
        x = x + 1
    return x


def if_condition_not_scalar(x):
    if x > 0:
        x = -x
    return x


def return_in_tensor_loop(limit):
    for i in tf.range(10):
        if i * i > limit:
            return i
    return -1


def return_in_tensor_while(n):
    i = 0
    while i < n:
        i += 1
        if i > 5:
            return i
    return -i


def loop_defines_unsupported_type(n):
    i = 0
    while i < n:
        y = object()
        i += 1
    return y


def loop_must_iterate_once(n):
    i = 0
    while i < n:
        y = i * 2
        i += 1
    return y


def loop_over_scalar(x):
    s = 0
    for v in x:
        s += v
    return s


def loop_var_none_before(n):
    i = 0
    y = None
    while i < n:
        y = i * 3
        i += 1
    return y


ERRORS = [
    (undefined_after_branch, lambda tf: (tf.constant(-1),), "ValueError",
     "'y' must also be initialized in the else branch"),
    (loop_var_changes_dtype, lambda tf: (tf.constant(2),), "TypeError",
     "'i' has dtype int32 before the loop, but dtype float32 after one iteration"),
    (loop_var_changes_shape, lambda tf: (tf.constant(2),), "ValueError",
     "'i' has shape () before the loop, but shape (2,) after one iteration. Use "
     "tf.autograph.experimental.set_loop_options to set shape invariants."),
    (loop_var_changes_structure, lambda tf: (tf.constant(2),), "TypeError",
     "'x' does not have the same nested structure after one iteration.\n\n..."),
    (while_condition_not_bool, lambda tf: (tf.constant(3),), "ValueError",
     "condition of while loop expected to be `tf.bool` scalar, got 3; to use as boolean Tensor, "
     "use `tf.cast`; to check for None, use `is not None`"),
    (if_condition_not_bool, lambda tf: (tf.constant(2),), "ValueError",
     "condition of if statement expected to be `tf.bool` scalar, got 2; to use as boolean Tensor, "
     "use `tf.cast`; to check for None, use `is not None`"),
    (if_condition_not_scalar, lambda tf: (tf.constant([1, 2]),), "ValueError",
     "condition of if statement expected to be `tf.bool` scalar, got [ True  True]; to check for "
     "None, use `is not None`"),
    (return_in_tensor_loop, lambda tf: (tf.constant(3),), "NotImplementedError",
     "a return statement cannot be placed inside this TensorFlow loop; this may happen if a "
     "return statement depends on a static Python condition such as a hyperparameter"),
    (return_in_tensor_while, lambda tf: (tf.constant(10),), "NotImplementedError",
     "a return statement cannot be placed inside this TensorFlow loop; this may happen if a "
     "return statement depends on a static Python condition such as a hyperparameter"),
    (loop_defines_unsupported_type, lambda tf: (tf.constant(2),), "ValueError",
     "'y' must be defined before the loop\nNote: AutoGraph tried to define it automatically, "
     "but ran into a TypeError: Found an unsupported type 'object' while creating placeholder "
     "for ..."),
    (loop_must_iterate_once, lambda tf: (tf.constant(0),), "InvalidArgumentError",
     "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: b'loop "
     "must iterate at least once to initialize y'"),
    (loop_over_scalar, lambda tf: (tf.constant(3),), "ValueError",
     "len requires a non-scalar tensor, got one of shape []"),
]

# Programs whose converted code TF runs without error: the results are compared.
WORKING = [
    (loop_must_iterate_once, lambda tf: (tf.constant(3),)),
    (loop_var_none_before, lambda tf: (tf.constant(2),)),
    (loop_over_scalar, lambda tf: (tf.constant([1, 2, 3]),)),
]
