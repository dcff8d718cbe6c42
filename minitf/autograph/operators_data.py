"""`for` loops over input pipelines: `tf.data` datasets and iterators, and the distributed
datasets and iterators of `tf.distribute`.

Each kind of loop is one function. Eagerly they iterate in Python, element by element; inside
a traced function a dataset loop is one graph node whose body is traced once (the graph being
traced builds it), as TF stages it. The classes are recognised without
importing their packages (which sit above AutoGraph): an object can only be a dataset once
`minitf.data` is loaded.
"""
import sys

from minitf.recording import active_graph

__all__ = ["is_dataset", "is_data_iterator", "is_distributed", "for_over_dataset",
           "for_over_distributed"]


def _loaded_class(module_name, class_name):
    module = sys.modules.get(module_name)
    return getattr(module, class_name, None) if module is not None else None


def _isinstance_of(value, *places):
    for module_name, class_name in places:
        cls = _loaded_class(module_name, class_name)
        if cls is not None and isinstance(value, cls):
            return True
    return False


def is_dataset(value):
    """Whether `value` is a `tf.data.Dataset`."""
    return _isinstance_of(value, ("minitf.data.dataset", "Dataset"))


def is_data_iterator(value):
    """Whether `value` is an iterator over a `tf.data.Dataset` (`iter(ds)`)."""
    return _isinstance_of(value, ("minitf.data.iterator", "Iterator"))


def is_distributed(value):
    """Whether `value` is a distributed dataset or iterator of `tf.distribute`."""
    return _isinstance_of(value, ("minitf.distribute.input", "DistributedDataset"),
                          ("minitf.distribute.input", "DistributedDatasetsFromFunction"),
                          ("minitf.distribute.input", "DistributedIterator"))


def _run(iterable, extra_test, body):
    if extra_test is not None and not extra_test():
        return
    for element in iterable:
        body(element)
        if extra_test is not None and not extra_test():
            return


def for_over_dataset(ds, extra_test, body, get_state, set_state, symbol_names):
    """`for x in ds` over a dataset (or a dataset's iterator): `body(element)` for each element
    until the dataset ends or `extra_test()` (break/return flags) turns false."""
    graph = active_graph()
    if graph is None:
        _run(ds, extra_test, body)
        return
    # traced: one loop node, its body traced once on the dataset's element spec
    init_vars = tuple(get_state())

    def staged_body(element, *state):
        set_state(state)
        body(element)
        return tuple(get_state())

    def staged_test(*state):
        set_state(state)
        return extra_test()
    final = graph.dataset_loop(ds, staged_body, init_vars,
                               staged_test if extra_test is not None else None)
    set_state(tuple(final))


def for_over_distributed(iter_, extra_test, body, get_state, set_state, symbol_names):
    """`for x in dist_ds` over a distributed dataset or iterator: `body(per-replica element)`
    for each element. As in TF, `break` and `return` are not supported over a distributed
    dataset (NotImplementedError)."""
    del get_state, set_state, symbol_names
    if extra_test is not None and not _isinstance_of(
            iter_, ("minitf.distribute.input", "DistributedIterator")):
        raise NotImplementedError("break and return statements are not yet supported in for ... "
                                  "in distributed input loops.")
    _run(iter_, extra_test, body)
