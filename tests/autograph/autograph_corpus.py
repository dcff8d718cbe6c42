"""Small programs that AutoGraph converts: each runs original and converted, eagerly, with
tensor inputs (staged control flow, run eagerly) and Python inputs (plain Python control flow),
in `test_corpus.py`. Side effects go to `LOG` and to stdout, so the test compares them too.

`program(*arg_sets)` registers a function with its inputs; an argument set is a tuple, or a
function returning one (for fresh mutable inputs). `python=True` marks the sets made only of
Python values: there the converted function must behave exactly like the original, types
included.
"""
import functools

import numpy as np

import minitf as tf

LOG = []
PROGRAMS = []


def program(*arg_sets, python=()):
    """Register `fn` with tensor argument sets and (keyword) Python argument sets."""
    def register(fn):
        PROGRAMS.append((fn, arg_sets, python))
        return fn
    return register


def T(value, dtype=None):  # noqa: N802 (a short constructor for the tables below)
    return lambda: tf.constant(value, dtype=dtype)


# -- if / elif / else ------------------------------------------------------------------------

@program((T(3),), (T(-3),), python=((3,), (-3,)))
def relu(x):
    if tf.greater(x, 0):
        return x
    else:
        return 0


@program((T(2.0),), (T(-2.0),), python=((2.0,), (-2.0,)))
def if_without_else(x):
    y = x * 2
    if x > 0:
        y = y + 1
    return y


@program((T(12),), (T(7),), (T(1),), (T(-1),), python=((12,), (7,), (1,), (-1,)))
def elif_chain(x):
    if x > 10:
        r = 3
    elif x > 5:
        r = 2
    elif x > 0:
        r = 1
    else:
        r = 0
    return r


@program((T(12),), (T(7),), (T(-1),), python=((12,), (7,), (-1,)))
def elif_returns(x):
    if x > 10:
        return x * 3
    elif x > 5:
        return x * 2
    else:
        return x


@program((T(1.0), T(2.0)), (T(-1.0), T(2.0)), (T(1.0), T(-2.0)), python=((1.0, -2.0), (-1, 2)))
def nested_ifs(a, b):
    if a > 0:
        if b > 0:
            r = a + b
        else:
            r = a - b
    else:
        r = -a
    return r


@program((T(4),), (T(-4),), python=((4,), (-4,)))
def branch_side_effects(x):
    if x > 0:
        print("positive branch")
        LOG.append("pos")
        y = x
    else:
        print("negative branch")
        LOG.append("neg")
        y = -x
    return y


@program((T(5),), (T(-5),), python=((5,), (-5,)))
def early_return(x):
    if x < 0:
        return -1
    y = x * 2
    LOG.append("after the early return")
    return y


@program((T(3.0),), (T(-3.0),), python=((3.0,), (-3.0,)))
def branch_local_and_outputs(x):
    a, b = x, x
    if x > 0:
        a = a * 2
        tmp = a + 1
        b = tmp - a
    return a, b


@program((T(2),), (T(-2),), python=((2,), (-2,)))
def branch_returns_structure(x):
    if x > 0:
        out = {"sign": 1, "value": x}
    else:
        out = {"sign": -1, "value": -x}
    return out["sign"], out["value"]


@program((T(1),), (T(-1),), python=((1,), (-1,)))
def no_return_value(x):
    if x > 0:
        LOG.append("no return")


# -- while -------------------------------------------------------------------------------------

@program((T([1.0, 2.0]),), (T([0.25, 0.25]),))
def reduce_sum_loop(x):
    while tf.reduce_sum(x) > 1:
        x = tf.tanh(x)
    return x


@program((T(5),), (T(0),), python=((5,), (0,)))
def while_counter(n):
    i = 0
    total = 0
    while i < n:
        total += i * i
        i += 1
    return i, total


@program((T(7),), python=((7,), (100,)))
def while_break(n):
    i = 0
    while i < 50:
        if i * i > n:
            break
        i += 1
    return i


@program((T(10),), python=((10,),))
def while_continue(n):
    i = 0
    s = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        s += i
    return s


@program(python=((4,), (9,)))
def while_true_break(n):
    i = 0
    while True:
        i += 1
        LOG.append(i)
        if i >= n:
            break
    return i


@program(python=((10,), (3,)))
def while_return(n):
    i = 0
    while i < n:
        i += 1
        if i > 5:
            return i * 100
    return -i


@program(python=((3,), (0,)))
def while_else(n):
    i = 0
    while i < n:
        i += 1
    else:
        i = i + 100
    return i


@program((T(3),), python=((3,),))
def while_float_state(n):
    x = 1.0
    k = 0
    while k < n:
        x = x * 1.5
        k += 1
    return x


# -- for ---------------------------------------------------------------------------------------

@program(python=(([1, 5, -2, 2, 7, 1],), ([],)))
def for_list_break_continue(xs):
    s = 0
    for x in xs:
        if x > 6:
            break
        if x < 0:
            continue
        s += x
        LOG.append(x)
    return s


@program(python=((5,),))
def for_python_range(n):
    squares = []
    for i in range(n):
        squares.append(i * i)
    return squares


@program((T([1, 2, 3, 4]),), (T([5, -5]),))
def for_over_tensor(x):
    s = 0
    for row in x:
        s += row
    return s


@program((T(6),), (T(0),))
def for_tf_range(n):
    total = 0
    for i in tf.range(n):
        total += i
    return total


@program((T(3),), (T(100),))
def for_tf_range_break(limit):
    s = 0
    for i in tf.range(10):
        if i > limit:
            break
        s += i
    return s


@program((T(8),))
def for_tf_range_continue(n):
    s = 0
    for i in tf.range(n):
        if i % 2 == 0:
            continue
        s += i
    return s


@program((T(7),), python=((7,),))
def fizzbuzz(n):
    for i in tf.range(1, n + 1):
        print('Iteration:', i)
        if i % 15 == 0:
            print('FizzBuzz')
        elif i % 3 == 0:
            print('Fizz')
        elif i % 5 == 0:
            print('Buzz')
        else:
            print(i)


@program((T([[1, 2], [3, 4], [5, 6]]),))
def for_rows_collect(m):
    rows = []
    for r in m:
        rows.append(tf.reduce_sum(r))
    return tf.stack(rows)


@program((lambda: (tf.data.Dataset.range(5),)), (lambda: (tf.data.Dataset.from_tensor_slices([1.0, 2.0]),)))
def for_dataset(ds):
    total = 0
    for x in ds:
        total += x
        LOG.append(int(x))
    return total


@program(lambda: (tf.data.Dataset.range(10),))
def for_dataset_break(ds):
    seen = 0
    for x in ds:
        if x > 3:
            break
        seen += 1
    return seen


@program(python=(({"a": 1, "b": 0, "c": 3},),))
def for_dict_items(d):
    keys = []
    for k, v in d.items():
        if v:
            keys.append(k)
    return keys


@program(python=((["x", "y", "z"],),))
def for_enumerate_zip(names):
    out = []
    for i, name in enumerate(names):
        out.append((i, name))
    for a, b in zip(names, names[1:]):
        out.append(a + b)
    return out


@program(python=(([(1, 2), (3, 4)],),))
def for_tuple_target(pairs):
    s = 0
    for a, b in pairs:
        s += a * b
    return s


@program(python=(([1, 2, 3],), ([1, 2, 9],)))
def for_else(xs):
    for x in xs:
        if x > 5:
            found = x
            break
    else:
        found = None
    return found


@program((T(3),), python=((3,),))
def nested_loops(n):
    total = 0
    for i in range(4):
        j = 0
        while j < n:
            total += i * j
            j += 1
    return total


@program(python=((4,),))
def nested_break_inner(n):
    pairs = []
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            pairs.append((i, j))
    return pairs


@program(python=(("abc",),))
def for_string(s):
    out = ""
    for ch in s:
        out = ch + out
    return out


@program((T(4),))
def for_tensor_loop_list_append(n):
    xs = []
    for i in tf.range(n):
        xs.append(i * 10)
    return len(xs)


@program((T([3, -1, 4, -1, 5]),))
def for_tensor_nested_if_break(x):
    s = 0
    for v in x:
        if v < 0:
            if s > 5:
                break
            continue
        s += v
    return s


# -- comprehensions ----------------------------------------------------------------------------

@program(python=(([1, -2, 3, 20],),))
def list_comprehension(xs):
    return [x * 2 for x in xs if x > 0 and x < 10]


@program(python=((["a", "bb"],),))
def dict_and_generator(words):
    lengths = {w: len(w) for w in words}
    return lengths, sum(n for n in lengths.values())


# -- functions ---------------------------------------------------------------------------------

def helper_square(v):
    LOG.append("helper")
    if v > 0:
        return v * v
    return -v


@program((T(3),), (T(-3),), python=((3,), (-3,)))
def calls_user_function(x):
    return helper_square(x) + 1


@program((T(2.0),), python=((2.0,),))
def nested_function(x):
    k = 3

    def inner(y):
        if y > 1:
            return y * k
        return y
    return inner(x) + inner(0.5)


@program(python=((3,),))
def nonlocal_counter(n):
    count = 0

    def bump():
        nonlocal count
        count += 1
    while count < n:
        bump()
    return count


def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


@program((T(5),), python=((5,), (1,)))
def recursive(n):
    return factorial(n)


def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


@program(python=((6,), (7,)))
def mutual_recursion(n):
    return is_even(n), is_odd(n)


class Accumulator:
    """A user class whose methods converted code calls (bound self)."""

    def __init__(self):
        self.count = 0
        self.history = []

    def add(self, v):
        if v > 0:
            self.count += v
        self.history.append(v)
        return self.count


@program((T([1, -2, 3]),), python=(([1, -2, 3],),))
def method_calls(xs):
    acc = Accumulator()
    for v in xs:
        acc.add(v)
    return acc.count, len(acc.history)


class Counter:
    def __init__(self):
        self.n = 0

    def run(self, steps):
        for i in tf.range(steps):
            self.n += i
        return self.n


@program((T(4),))
def attribute_loop_state(steps):
    return Counter().run(steps)


def make_scaler(factor):
    def scale(x):
        if x > 0:
            return x * factor
        return x
    return scale


@program((T(2),), python=((2,), (-2,)))
def closure(x):
    return make_scaler(10)(x)


SCALE = 3
TOTAL = [0]


@program((T(4),), python=((4,),))
def globals_read_write(x):
    global SCALE
    y = x * SCALE
    SCALE = SCALE + 1
    TOTAL[0] += 1
    SCALE = SCALE - 1
    return y


@program(python=(([3, 1, 2],),))
def lambdas(xs):
    doubled = list(map(lambda v: v * 2, xs))
    return sorted(doubled, key=lambda v: -v)


@program((T(5),), (T(-5),), python=((5,), (-5,)))
def conditional_expression(x):
    y = x if x > 0 else -x
    z = 1 if x > 0 else (2 if x > -10 else 3)
    return y, z


def logged(name, value):
    LOG.append(name)
    return value


@program(python=((True, False), (False, True), (True, True)))
def and_or_side_effects(a, b):
    r1 = logged("a1", a) and logged("b1", b)
    r2 = logged("a2", a) or logged("b2", b)
    r3 = not logged("a3", a)
    return r1, r2, r3


@program((T(True), T(False)), (T(False), T(True)), (T(True), T(True)))
def and_or_tensors(a, b):
    return tf.logical_and(a, b), (a and b), (a or b), (not a)


@program((T(5),), (T(50),), python=((5,), (50,), (-1,)))
def chained_comparison(x):
    return 0 < x < 10


@program(python=(([1, 0, 2],),))
def try_except_in_loop(xs):
    s = 0.0
    for x in xs:
        try:
            s += 1 / x
        except ZeroDivisionError:
            LOG.append("div by zero")
            s -= 1
    return s


@program(python=((1,), (-1,)))
def try_finally_return(x):
    try:
        if x > 0:
            return "positive"
        return "not positive"
    finally:
        LOG.append("finally")


class Recorder:
    def __enter__(self):
        LOG.append("enter")
        return self

    def __exit__(self, *exc):
        LOG.append("exit")


@program((T(1),), python=((1,), (-1,)))
def with_statement(x):
    with Recorder():
        if x > 0:
            y = 1
        else:
            y = 2
    return y


@program(python=((1,), (1, 5)))
def default_arguments(a, b=2, *, c=10):
    return a + b + c


@program(python=((1, 2, 3), (1,)))
def star_args_kwargs(first, *rest, **options):
    total = first
    for r in rest:
        total += r
    return total, sorted(options)


@program(python=((2,),))
def calls_with_star_args(n):
    return star_args_kwargs(*[n, n], **{"k": 1})


def logging_decorator(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        LOG.append("before " + fn.__name__)
        result = fn(*args, **kwargs)
        LOG.append("after " + fn.__name__)
        return result
    return wrapper


@logging_decorator
def decorated_clip(x):
    if x > 5:
        return 5
    return x


@program((T(9),), python=((9,), (2,)))
def calls_decorated(x):
    return decorated_clip(x)


def count_up(n):
    i = 0
    while i < n:
        yield i
        i += 1


@program(python=((4,),))
def uses_generator(n):
    return sum(count_up(n))


@program(python=((3,), (-3,)))
def asserts(x):
    assert x != 0, "x must not be zero"
    if x < 0:
        return -x
    return x


@program(python=((3,),))
def delete_statement(x):
    y = x
    del x
    return y


@program(python=(([1, 2, 3],),))
def subscript_augassign(xs):
    xs = list(xs)
    for i in range(len(xs)):
        xs[i] += 10
    return xs


@program((T(2.5),), python=((2.5,),))
def formatting(x):
    return f"value={x}"


@program((T([1.0, 4.0, 9.0]),))
def library_calls(x):
    y = np.sqrt(np.asarray(x))
    return tf.reduce_sum(tf.constant(y)), float(np.max(y))


@program(lambda: (tf.Variable(0), tf.constant(4)))
def variable_updates_in_loop(v, n):
    while v < n:
        v.assign_add(1)
    return v.read_value()


@program(python=((3,),))
def walrus(n):
    out = []
    i = 0
    while (j := i * 2) < n * 2:
        out.append(j)
        i += 1
    return out


@program(python=(([1, 2, 3, 4],),))
def star_unpacking(xs):
    first, *middle, last = xs
    return first, middle, last


class Base:
    def describe(self, x):
        return "base" if x else "none"


class Derived(Base):
    def describe(self, x):
        if x:
            return "derived+" + super().describe(x)
        return super().describe(x)


@program(python=((1,), (0,)))
def super_call(x):
    return Derived().describe(x)


@program(python=((3,), (20,)))
def multiple_returns_in_loop_body(n):
    i = 0
    while i < 10:
        i += 1
        if i == n:
            return "hit"
        if i > 8:
            return "late"
    return "never"


@program((T([2.0, -1.0, 3.0]),))
def tensor_loop_with_dtype_float(x):
    best = -100.0
    for v in x:
        if v > best:
            best = v
    return best


@program((T(4),), python=((4,),))
def python_loop_over_tensor_condition(n):
    hits = 0
    for i in range(6):
        if i < n:
            hits += 1
    return hits


@program(python=((5,),))
def lambda_closure_in_loop(n):
    fns = []
    for i in range(n):
        fns.append(lambda k=i: k * k)
    return [f() for f in fns]


@program((T(3),), python=((3,),))
def nonlocal_in_tensor_loop(n):
    calls = []

    def record(v):
        calls.append(v)
    i = 0
    while i < n:
        record(i)
        i += 1
    return len(calls)


@program((T([1.0, 2.0, 3.0]),), python=(([1.0, 2.0],),))
def gradient_tape_in_loop(xs):
    w = tf.Variable(2.0)
    grads = []
    for x in xs:
        with tf.GradientTape() as tape:
            loss = w * w * x
        grads.append(tape.gradient(loss, w))
    return tf.stack(grads)


@program((T([3.0, -1.0]),))
def keras_layer_in_branch(x):
    layer = tf.keras.layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros")
    if tf.reduce_sum(x) > 0:
        y = layer(tf.reshape(x, [1, 2]))
    else:
        y = tf.zeros([1, 1])
    return y
