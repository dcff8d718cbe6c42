"""Lists, dicts and tuples on a tf.train.Checkpoint: tracking containers, keys, deferred restore.

The expected keys and values are those TensorFlow 2.21 gives for the same programs (checked with
TF; `test_compare_with_tensorflow` repeats the check where TF is installed).
"""
import os
import pickle

import numpy as np
import pytest

import minitf as tf
from minitf.checkpoint import graph
from minitf.trackable import ListWrapper

VALUE = "/.ATTRIBUTES/VARIABLE_VALUE"


def _names(path):
    return [n for n, _ in tf.train.list_variables(path) if n != graph.OBJECT_GRAPH_KEY]


def _guide_save(module, prefix):
    """The guide's "Lists and dictionaries" program, for minitf or TF (`module`)."""
    save = module.train.Checkpoint()
    save.listed = [module.Variable(1.)]
    save.listed.append(module.Variable(2.))
    save.mapped = {"one": save.listed[0]}
    save.mapped["two"] = save.listed[1]
    save.t = (module.Variable(3.), [module.Variable(4.)], {"a": module.Variable(5.)})
    save.nested = {"x": [module.Variable(6.), {"y": module.Variable(7.)}]}
    save.nested["x"][1]["z"] = module.Variable(8.)
    save.nested["x"].append(module.Variable(9.))
    return save, save.save(prefix)


GUIDE_KEYS = [k + VALUE for k in ["listed/0", "listed/1", "nested/x/0", "nested/x/1/y", "nested/x/1/z",
                                  "nested/x/2", "save_counter", "t/0", "t/1/0", "t/2/a"]]


def test_containers_are_wrapped_and_later_items_saved(tmp_path):
    save, path = _guide_save(tf, str(tmp_path / "tf_list_example"))
    assert type(save.listed).__name__ == "ListWrapper" and isinstance(save.listed, list)
    assert type(save.mapped).__name__ == "_DictWrapper" and isinstance(save.mapped, dict)
    assert type(save.t).__name__ == "_TupleWrapper" and isinstance(save.t, tuple)
    assert type(save.t[1]).__name__ == "ListWrapper"
    assert repr(save.listed).startswith("ListWrapper([<tf.Variable")
    assert repr(save.mapped).startswith("DictWrapper({'one': <tf.Variable")
    assert save.listed == [save.listed[0], save.listed[1]]
    assert _names(path) == GUIDE_KEYS
    for key, want in [("listed/0", 1.), ("listed/1", 2.), ("nested/x/1/z", 8.), ("nested/x/2", 9.)]:
        assert tf.train.load_variable(path, key + VALUE) == want


def test_guide_restore_pattern(tmp_path):
    _, path = _guide_save(tf, str(tmp_path / "tf_list_example"))
    restore = tf.train.Checkpoint()
    v2 = tf.Variable(0.)
    restore.mapped = {"two": v2}
    restore.restore(path).expect_partial()
    assert v2.numpy() == 2.
    restore.listed = []
    assert repr(restore.listed) == "ListWrapper([])"
    v1 = tf.Variable(0.)
    restore.listed.append(v1)  # attached after the restore: restored on attach
    assert restore.listed[0].numpy() == 1.
    # listed/1 is the object already restored into v2 (mapped/two): a new one keeps its value.
    restore.listed.append(tf.Variable(0.))
    assert restore.listed[1].numpy() == 0.


def test_shared_object_restores_into_first_attached_only(tmp_path):
    _, path = _guide_save(tf, str(tmp_path / "c"))
    first_list = tf.train.Checkpoint()
    first_list.restore(path).expect_partial()
    first_list.listed = []
    first_list.listed.append(tf.Variable(0.))
    first_list.mapped = {"one": tf.Variable(0.)}
    assert (first_list.listed[0].numpy(), first_list.mapped["one"].numpy()) == (1., 0.)
    first_map = tf.train.Checkpoint()
    first_map.restore(path).expect_partial()
    first_map.mapped = {"one": tf.Variable(0.)}
    first_map.listed = []
    first_map.listed.append(tf.Variable(0.))
    assert (first_map.mapped["one"].numpy(), first_map.listed[0].numpy()) == (1., 0.)
    same = tf.train.Checkpoint()
    same.restore(path).expect_partial()
    v = tf.Variable(0.)
    same.mapped = {"one": v}
    same.listed = [v]  # the same object at both paths: simply restored
    assert v.numpy() == 1.


def test_nested_containers_restore_on_attach(tmp_path):
    _, path = _guide_save(tf, str(tmp_path / "c"))
    restore = tf.train.Checkpoint()
    status = restore.restore(path)
    restore.nested = {"x": []}
    restore.nested["x"].append(tf.Variable(0.))
    restore.nested["x"].append({"y": tf.Variable(0.)})
    restore.nested["x"][1]["z"] = tf.Variable(0.)
    restore.nested["x"].extend([tf.Variable(0.)])
    restore.t = (tf.Variable(0.), [tf.Variable(0.)], {"a": tf.Variable(0.)})
    restore.listed = [tf.Variable(0.)]
    restore.listed += [tf.Variable(0.)]
    x = restore.nested["x"]
    assert [float(x[0]), float(x[1]["y"]), float(x[1]["z"]), float(x[2])] == [6., 7., 8., 9.]
    assert [float(restore.t[0]), float(restore.t[1][0]), float(restore.t[2]["a"])] == [3., 4., 5.]
    assert [float(v) for v in restore.listed] == [1., 2.]
    status.assert_consumed()


def test_write_does_not_create_save_counter(tmp_path):
    ckpt = tf.train.Checkpoint()
    ckpt.listed = [tf.Variable(1.)]
    ckpt.listed.append(tf.Variable(2.))
    path = ckpt.write(str(tmp_path / "w"))
    assert ckpt._save_counter is None
    assert _names(path) == ["listed/0" + VALUE, "listed/1" + VALUE]


def test_append_only_lists_and_string_keys_or_save_fails(tmp_path):
    ckpt = tf.train.Checkpoint()
    ckpt.l2 = [tf.Variable(1.)]
    ckpt.l2[0] = tf.Variable(5.)  # a trackable item replaced
    with pytest.raises(ValueError, match="A list element was replaced"):
        ckpt.write(str(tmp_path / "a"))
    del ckpt.l2
    ckpt.mixed = [tf.Variable(1.), 3, "x"]  # untrackable items are kept, not saved
    ckpt.mixed[1] = 4  # replacing an untrackable item is fine
    assert _names(ckpt.write(str(tmp_path / "b"))) == ["mixed/0" + VALUE]
    ckpt.d3 = {1: tf.Variable(1.)}
    with pytest.raises(ValueError, match="non-string key"):
        ckpt.write(str(tmp_path / "c"))
    del ckpt.d3
    for mutate in (lambda x: x.pop(), lambda x: x.insert(0, 1), lambda x: x.__delitem__(0),
                   lambda x: x.reverse(), lambda x: x.clear(), lambda x: x.remove(x[0])):
        ckpt.m = [tf.Variable(1.), tf.Variable(2.)]
        mutate(ckpt.m)
        with pytest.raises(ValueError, match="append-only"):
            ckpt.write(str(tmp_path / "d"))
    ckpt.m = [1, 2]
    ckpt.m.sort()  # no trackables: nothing to lose
    ckpt.write(str(tmp_path / "e"))


def test_wrapper_pickles_and_is_unhashable():
    lw = ListWrapper([1, [2]])
    assert type(lw[1]) is ListWrapper
    assert pickle.loads(pickle.dumps(lw)) == [1, [2]]
    with pytest.raises(TypeError):
        hash(lw)


def test_object_graph_is_stored(tmp_path):
    ckpt = tf.train.Checkpoint()
    v = tf.Variable(1.)
    ckpt.listed = [v]
    ckpt.mapped = {"one": v}
    nodes = graph.object_graph(ckpt)["nodes"]
    assert nodes[0]["children"] == [["listed", 1], ["mapped", 2]]
    assert nodes[1]["children"] == [["0", 3]] and nodes[2]["children"] == [["one", 3]]
    assert nodes[3]["key"] == "listed/0" + VALUE


def test_compare_with_tensorflow(tmp_path):
    real_tf = pytest.importorskip("tensorflow")
    _, mini_path = _guide_save(tf, str(tmp_path / "mini" / "c"))
    _, tf_path = _guide_save(real_tf, str(tmp_path / "tf" / "c"))
    tf_listed = [(n, s) for n, s in real_tf.train.list_variables(tf_path)
                 if n != "_CHECKPOINTABLE_OBJECT_GRAPH"]
    mini_listed = [(n, s) for n, s in tf.train.list_variables(mini_path)
                   if n != graph.OBJECT_GRAPH_KEY]
    assert mini_listed == tf_listed
    for name, _ in tf_listed:
        np.testing.assert_array_equal(tf.train.load_variable(mini_path, name),
                                      real_tf.train.load_variable(tf_path, name))
    assert os.path.exists(mini_path + ".index")  # TF's format (issue 26)


def test_constructor_accepts_lists_and_dicts(tmp_path):
    ckpt = tf.train.Checkpoint(a=[tf.Variable(1.)], b={"x": tf.Variable(2.)})
    assert type(ckpt.a).__name__ == "ListWrapper" and type(ckpt.b).__name__ == "_DictWrapper"
    ckpt.a.append(tf.Variable(3.))
    assert _names(ckpt.write(str(tmp_path / "w"))) == ["a/0" + VALUE, "a/1" + VALUE, "b/x" + VALUE]
    for bad in [(1, 2), 1]:
        with pytest.raises(ValueError, match="trackable"):
            tf.train.Checkpoint(a=bad)


def test_list_variables_lists_the_object_graph_as_tf(tmp_path):
    ckpt = tf.train.Checkpoint()
    ckpt.listed = [tf.Variable([1., 2.])]
    path = ckpt.write(str(tmp_path / "w"))
    assert tf.train.list_variables(path) == [("_CHECKPOINTABLE_OBJECT_GRAPH", []),
                                             ("listed/0" + VALUE, [2])]
    reader = tf.train.load_checkpoint(path)
    assert reader.get_variable_to_dtype_map()["_CHECKPOINTABLE_OBJECT_GRAPH"] == tf.string
    assert b"listed" in reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH")
    empty = tf.train.Checkpoint().write(str(tmp_path / "e"))
    assert tf.train.list_variables(empty) == [("_CHECKPOINTABLE_OBJECT_GRAPH", [])]
