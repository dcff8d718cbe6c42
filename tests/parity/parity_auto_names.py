"""Model-building scripts from the TF guides, written once for any Keras-like module `k`
(`keras` itself or `minitf.keras`): each returns the automatic names of what it built, in a
fixed order, so that the names Keras 3 hands out can be compared with minitf's one by one."""
import numpy as np

__all__ = ["SCRIPTS", "names_of"]


def names_of(model):
    """The model's name, then its layers' names, nested models expanded in place."""
    out = [model.name]
    for layer in getattr(model, "layers", []):
        out.extend(names_of(layer) if hasattr(layer, "layers") else [layer.name])
    return out


def _functional(k, units=1):
    inp = k.Input((4,))
    return k.Model(inp, k.layers.Dense(units)(inp))


def sequential_then_functional(k):
    seq = k.Sequential([k.Input((4,)), k.layers.Dense(8), k.layers.Dense(1)])
    inp = k.Input((4,))
    model = k.Model(inp, k.layers.Dense(1)(k.layers.Dense(8)(inp)))
    return names_of(seq) + names_of(model)


def sequential_input_shape(k):
    seq = k.Sequential([k.layers.Dense(8, input_shape=(4,)), k.layers.Dense(1)])
    seq_input = seq.inputs[0]._keras_history[0] if hasattr(seq.inputs[0], "_keras_history") \
        else seq.inputs[0].node.layer
    return names_of(seq) + [seq_input.name] + names_of(_functional(k))


def sequential_add(k):
    seq = k.Sequential()
    seq.add(k.Input((4,)))
    seq.add(k.layers.Dense(8))
    seq.add(k.layers.Dense(1))
    return names_of(seq) + names_of(_functional(k))


def sequential_lazy_call(k):
    seq = k.Sequential([k.layers.Dense(8), k.layers.Dense(1)])
    seq(np.zeros((2, 4), "float32"))
    return names_of(seq) + names_of(_functional(k))


def sequential_build(k):
    seq = k.Sequential([k.layers.Dense(8), k.layers.Dense(1)])
    seq.build((None, 4))
    unbuilt = k.Sequential([k.layers.Dense(3)])
    return names_of(seq) + names_of(unbuilt) + names_of(_functional(k))


def two_sequentials(k):
    a = k.Sequential([k.Input((4,)), k.layers.Dense(8)])
    b = k.Sequential([k.Input((4,)), k.layers.Dense(8)])
    return names_of(a) + names_of(b) + names_of(_functional(k))


def subclassed(k):
    class MyModel(k.Model):
        def __init__(self):
            super().__init__()
            self.d1 = k.layers.Dense(8)
            self.d2 = k.layers.Dense(1)

        def call(self, x):
            return self.d2(self.d1(x))

    m = MyModel()
    m(np.zeros((2, 4), "float32"))
    return [m.name, m.d1.name, m.d2.name, MyModel().name] + names_of(_functional(k))


def nested(k):
    inner = k.Sequential([k.layers.Dense(8), k.layers.Dense(4)])
    inp = k.Input((4,))
    mid = k.Model(inp, k.layers.Dense(1)(inner(inp)))
    outer = k.Sequential([k.Input((4,)), mid, k.layers.Dense(2)])
    return names_of(inner) + names_of(mid) + names_of(outer) + names_of(_functional(k))


def model_first_in_sequential(k):
    first = _functional(k, 3)
    seq = k.Sequential([first, k.layers.Dense(2)])
    return names_of(seq) + names_of(_functional(k))


def after_clear_session(k):
    k.Sequential([k.Input((4,)), k.layers.Dense(8)])
    _functional(k)
    k.backend.clear_session()
    seq = k.Sequential([k.Input((4,)), k.layers.Dense(8)])
    return names_of(seq) + names_of(_functional(k))


def compile_and_fit(k):
    seq = k.Sequential([k.Input((4,)), k.layers.Dense(1)])
    seq.compile("adam", "mse", metrics=["mae"])
    seq.fit(np.zeros((4, 4), "float32"), np.zeros((4, 1), "float32"), verbose=0)
    return names_of(seq) + [seq.optimizer.name] + names_of(_functional(k))


def pop_layer(k):
    seq = k.Sequential([k.Input((4,)), k.layers.Dense(8), k.layers.Dense(1)])
    seq.pop()
    return names_of(seq) + names_of(_functional(k))


def sequential_from_config(k):
    seq = k.Sequential([k.Input((4,)), k.layers.Dense(8), k.layers.Dense(1)])
    again = k.Sequential.from_config(seq.get_config())
    return names_of(again) + names_of(_functional(k))


def add_without_rebuild(k):
    seq = k.Sequential([k.Input((4,))])
    seq.add(k.layers.Dense(8), rebuild=False)
    seq.add(k.layers.Dense(1), rebuild=False)
    built = seq.built
    seq.build((None, 4))
    return [built] + names_of(seq) + names_of(_functional(k))


def branches_and_merges(k):
    inp = k.Input((4,))
    a = k.layers.Dense(2)(inp)
    b = k.layers.Dense(2)(inp)
    added = k.layers.Add()([a, b])
    both = k.layers.Concatenate()([a, b])
    model = k.Model(inp, [both, k.layers.concatenate([a, added])])
    return names_of(model) + names_of(_functional(k))


def inputs_at_different_depths(k):
    a, b, unused = k.Input((4,)), k.Input((3,)), k.Input((2,))
    h = k.layers.Dense(3)(k.layers.Dense(5)(a))
    shared = k.layers.Dense(3)
    out = k.layers.Add()([shared(h), shared(b)])
    model = k.Model([a, b, unused], [out, k.layers.Dense(1)(h)])
    return names_of(model) + names_of(_functional(k))


def nested_functional_in_functional(k):
    inner = _functional(k, 3)
    inp = k.Input((4,))
    side = k.layers.Dense(3)(inp)
    model = k.Model(inp, k.layers.Multiply()([inner(inp), side]))
    return names_of(model) + names_of(_functional(k))


SCRIPTS = [sequential_then_functional, sequential_input_shape, sequential_add, sequential_lazy_call,
           sequential_build, two_sequentials, subclassed, nested, model_first_in_sequential,
           after_clear_session, compile_and_fit, pop_layer, sequential_from_config, add_without_rebuild,
           branches_and_merges, inputs_at_different_depths, nested_functional_in_functional]
