"""A short demonstration of the tape: fits y = 3x + 2 by gradient descent and prints the result.

Run it with `python -m minitf.demo`. Inside the package the names come from the modules that
define them; user code writes the same with `import minitf as tf` (`tf.constant`,
`tf.Variable`, `tf.GradientTape`, `tf.reduce_mean`).
"""
from minitf.ops.constant import constant
from minitf.ops.reduce import reduce_mean
from minitf.tape import GradientTape
from minitf.variable import Variable


def main():
    """Fit a line with a GradientTape and plain gradient descent."""
    x = constant([[float(i) / 10] for i in range(-10, 11)])
    y = 3.0 * x + 2.0
    w = Variable(0.0)
    b = Variable(0.0)
    for step in range(200):
        with GradientTape() as tape:
            error = w * x + b - y
            loss = reduce_mean(error * error)
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(0.5 * dw)
        b.assign_sub(0.5 * db)
        if step % 50 == 0:
            print(f"step {step:3d}  loss {float(loss):.6f}")
    print(f"w = {float(w):.4f} (true 3), b = {float(b):.4f} (true 2)")


if __name__ == "__main__":
    main()
