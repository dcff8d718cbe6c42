"""Small tf.function programs whose printed output must be the same under TF 2.21 and minitf:
when a trace happens (Python prints run only while tracing), how many traces a function holds,
what `tf.print` prints on each call, results, signatures and error classes.

Run as `python function_programs.py tensorflow|minitf`: runs every program with `tf` bound to
that library and prints one JSON object {program name: its output}. Each program's Python
`print`s are its observations (tf.print writes to stderr in both libraries and is not compared).
"""
import contextlib
import io
import json
import sys

PROGRAMS = {}


def program(fn):
    PROGRAMS[fn.__name__] = fn
    return fn


@program
def trace_per_dtype_and_shape(tf):
    @tf.function
    def double(a):
        print("Tracing with", a)
        return a + a
    for value in (tf.constant(1), tf.constant(1.1), tf.constant("a"), tf.constant("b"),
                  tf.constant([1, 2]), tf.constant([3, 4]), tf.constant([[1]])):
        print(double(value))
    print(double.experimental_get_tracing_count())
    print(double.pretty_printed_concrete_signatures())


@program
def python_values_by_value(tf):
    @tf.function
    def f(x, n):
        print("Tracing", n)
        return x * n
    x = tf.constant(2.0)
    for n in (1, 1, 2, 1.0, 2.0, True):
        print(f(x, n))
    print(f.experimental_get_tracing_count())


@program
def variables_by_spec(tf):
    @tf.function
    def f(v):
        print("Tracing", v.shape, v.dtype)
        return v * 2
    a, b, c = tf.Variable(1.0), tf.Variable(2.0), tf.Variable([1.0, 2.0])
    print(f(a), f(b), f(c), f(a))
    a.assign(10.0)
    print(f(a), f.experimental_get_tracing_count())

    @tf.function
    def g(v, w):
        print("Tracing g")
        return v + w
    print(g(a, b), g(a, a), g(b, a), g.experimental_get_tracing_count())


@program
def objects_by_identity(tf):
    class Scale:
        def __init__(self, k):
            self.k = k

    @tf.function
    def f(x, obj):
        print("Tracing", obj.k)
        return x * obj.k
    s2, s3 = Scale(2.0), Scale(3.0)
    x = tf.constant(1.0)
    print(f(x, s2), f(x, s2), f(x, s3), f(x, s2))
    print(f.experimental_get_tracing_count())


@program
def input_signature_rules(tf):
    @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
    def collatz(x):
        print("Tracing with", x)
        return tf.where(x % 2 == 0, x // 2, 3 * x + 1)
    print(collatz(tf.constant([1, 2])))
    print(collatz(tf.constant([1, 2, 3, 4, 5])))
    for bad in (tf.constant([[1, 2], [3, 4]]), tf.constant([1.0, 2.0])):
        try:
            collatz(bad)
        except TypeError:
            print("TypeError")
    print(collatz.experimental_get_tracing_count())
    print(collatz.pretty_printed_concrete_signatures())


@program
def reduce_retracing(tf):
    @tf.function(reduce_retracing=True)
    def g(x):
        print("Tracing with", x)
        return x
    for n in (3, 5, 7, 9):
        print(g(tf.range(n)))
    print(g.experimental_get_tracing_count())


@program
def structures_and_keywords(tf):
    @tf.function
    def f(d, items, scale=2.0):
        print("Tracing", sorted(d), len(items), scale)
        return d["a"] * scale + items[0]
    one = tf.constant(1.0)
    print(f({"a": one}, [one]))
    print(f({"a": one}, [one], 2.0))
    print(f(d={"a": one}, items=[one]))
    print(f({"a": one, "b": 3}, [one]))
    print(f({"a": one}, [one, one]))
    print(f({"a": one}, (one,)))
    print(f.experimental_get_tracing_count())


@program
def numpy_arrays_by_shape(tf):
    import numpy as np

    @tf.function
    def f(x):
        print("Tracing", x.shape, x.dtype)
        return x * 2
    print(f(np.ones(3, np.float32)), f(np.zeros(3, np.float32)), f(np.ones(3)), f(np.ones(4, np.float32)))
    print(f.experimental_get_tracing_count())


@program
def side_effects_and_tf_print(tf):
    log = []

    @tf.function
    def f(x):
        print("Traced with", x)
        tf.print("Executed with", x)
        log.append(1)
    f(1)
    f(1)
    f(2)
    f(tf.constant(3))
    f(tf.constant(4))
    print(len(log))


@program
def variables_on_first_trace(tf):
    class Count(tf.Module):
        def __init__(self):
            self.count = None

        @tf.function
        def __call__(self):
            print("Tracing")
            if self.count is None:
                self.count = tf.Variable(0)
            return self.count.assign_add(1)
    c = Count()
    print(c(), c(), c())

    @tf.function
    def f(x):
        v = tf.Variable(1.0)
        return v * x
    try:
        f(1.0)
    except ValueError:
        print("ValueError")


@program
def init_scope_counter(tf):
    class Model(tf.Module):
        def __init__(self):
            self.v = tf.Variable(0)
            self.counter = 0

        @tf.function
        def __call__(self):
            if self.counter == 0:
                with tf.init_scope():
                    self.counter += 1
                    self.v.assign_add(1)
            return self.v
    m = Model()
    print([int(m().numpy()) for _ in range(3)])

    class Model2(tf.Module):
        def __init__(self):
            self.v = tf.Variable(0)
            self.counter = 0

        @tf.function
        def __call__(self):
            if self.counter == 0:
                self.counter += 1
                self.v.assign_add(1)
            return self.v
    m2 = Model2()
    print([int(m2().numpy()) for _ in range(3)])


@program
def concrete_functions(tf):
    @tf.function
    def double(a):
        print("Tracing", a)
        return a + a
    cf = double.get_concrete_function(tf.constant("a"))
    again = double.get_concrete_function(tf.TensorSpec([], tf.string))
    print(cf is again)
    print(cf(tf.constant("x")), cf(a=tf.constant("y")))
    print(cf)
    print(cf.function_type)
    print(cf.structured_input_signature)
    print([t.name for t in cf.inputs], [t.name for t in cf.outputs])
    for node in cf.graph.as_graph_def().node:
        print(node.input, "->", node.name)
    try:
        cf(tf.constant(1))
    except tf.errors.InvalidArgumentError:
        print("InvalidArgumentError")

    @tf.function
    def power(a, b):
        return a ** b
    square = power.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
    print(square)
    print(square(tf.constant(10.0)))
    try:
        square(tf.constant(10.0), b=3)
    except TypeError:
        print("TypeError")


@program
def autograph_loops_and_branches(tf):
    @tf.function
    def fizzbuzz(n):
        for i in tf.range(1, n + 1):
            print("Tracing for loop")
            if i % 15 == 0:
                print("Tracing fizzbuzz branch")
                tf.print("fizzbuzz")
            elif i % 3 == 0:
                print("Tracing fizz branch")
                tf.print("fizz")
            elif i % 5 == 0:
                print("Tracing buzz branch")
                tf.print("buzz")
            else:
                print("Tracing default branch")
                tf.print(i)
    fizzbuzz(tf.constant(5))
    fizzbuzz(tf.constant(16))

    @tf.function
    def f(x):
        while tf.reduce_sum(x) > 1:
            tf.print(x)
            x = tf.tanh(x)
        return x
    print(f(tf.constant([2.0, 1.0])))

    def simple_relu(x):
        if tf.greater(x, 0):
            return x
        else:
            return 0
    relu = tf.function(simple_relu)
    print(relu(tf.constant(1)), relu(tf.constant(-1)))

    @tf.function
    def train(dataset):
        loss = tf.constant(0)
        for x, y in dataset:
            loss += tf.abs(y - x)
        return loss
    print(train(tf.data.Dataset.from_tensor_slices(([1, 2, 3], [4, 6, 8]))))


@program
def gradients_inside_and_outside(tf):
    w = tf.Variable(3.0)

    @tf.function
    def inner(x):
        with tf.GradientTape() as tape:
            y = w * x * x
        return tape.gradient(y, [w, x])

    @tf.function
    def outer(x):
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = x * x * x
            dy = t1.gradient(y, x)
        return dy, t2.gradient(dy, x)
    print(inner(tf.constant(2.0)))
    print(outer(tf.constant(2.0)))
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        out = outer(x * 1.0)[0]
    print(tape.gradient(out, x))


@program
def unused_ops_are_pruned(tf):
    @tf.function
    def f(x):
        tf.gather(x, [1])
        return x
    print(f(tf.constant([0.0])))


@program
def optimizer_steps(tf):
    x, y = tf.constant([-1.0]), tf.constant([2.0])

    def train_step(w, optimizer):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(w * x - y))
        gradients = tape.gradient(loss, [w])
        optimizer.apply_gradients(zip(gradients, [w]))
        return loss
    w = tf.Variable(2.0)
    opt1, opt2 = tf.keras.optimizers.Adam(1e-2), tf.keras.optimizers.Adam(1e-3)
    step = tf.function(train_step)
    for _ in range(3):
        print(step(w, opt1).numpy().round(3), w.numpy().round(4))
    try:
        step(w, opt2)
    except ValueError:
        print("ValueError")


@program
def run_functions_eagerly(tf):
    @tf.function
    def f(x):
        print("Calculating", tf.executing_eagerly())
        return x * x
    f(tf.constant(2))
    f(tf.constant(2))
    tf.config.run_functions_eagerly(True)
    try:
        f(tf.constant(2))
        f(tf.constant(2))
    finally:
        tf.config.run_functions_eagerly(False)
    f(tf.constant(2))
    print(f.experimental_get_tracing_count())


def main(lib):
    tf = __import__(lib)
    if lib == "tensorflow":
        tf.get_logger().setLevel("ERROR")
    results = {}
    for name, fn in PROGRAMS.items():
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                fn(tf)
            except Exception as e:  # noqa: BLE001 (an error is an observation too)
                print(f"raised {type(e).__name__}")
        results[name] = out.getvalue()
    sys.__stdout__.write(json.dumps(results))


if __name__ == "__main__":
    main(sys.argv[1])
