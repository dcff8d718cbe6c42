"""Trackable's deferred-restoration contract: _defer_restore / _track_child."""
import numpy as np

import minitf as tf
from minitf.trackable import Trackable


class Holder(Trackable):
    """A bare trackable with a dict of children."""

    def __init__(self):
        self.children = {}

    def _checkpoint_dependencies(self):
        return sorted(self.children.items())

    def add(self, name, child):
        self.children[name] = child
        return self._track_child(name, child)


def test_array_value_is_assigned_once_on_creation():
    h = Holder()
    h._defer_restore("v", np.array([1.0, 2.0]))
    v = h.add("v", tf.Variable([0.0, 0.0]))
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    v.assign([3.0, 3.0])
    h.add("v", v)  # a second announcement finds nothing waiting
    np.testing.assert_array_equal(v.numpy(), [3.0, 3.0])


def test_callable_value_receives_the_child():
    h, got = Holder(), []
    h._defer_restore("sub", got.append)
    child = Holder()
    h.add("sub", child)
    assert got and got[0] is child


def test_other_names_are_left_waiting():
    h = Holder()
    h._defer_restore("a", np.array(1.0))
    b = h.add("b", tf.Variable(0.0))
    assert b.numpy() == 0.0
    a = h.add("a", tf.Variable(0.0))
    assert a.numpy() == 1.0


def test_path_names_descend_into_a_waiting_subtree():
    class Subtree:
        def __init__(self):
            self.asked = []

        def __call__(self, child):
            raise AssertionError("the head itself should not be applied")

        def descend(self, parts):
            self.asked.append(parts)
            return lambda child: child.assign(7.0) if parts == ["1"] else None

    h, sub = Holder(), Subtree()
    h._defer_restore("layers", sub)
    v = h.add("layers/1", tf.Variable(0.0))
    assert v.numpy() == 7.0 and sub.asked == [["1"]]
    assert "layers" in h._pending_restore  # siblings may still come


def test_track_attribute_applies_only_public_trackables_with_something_waiting():
    h = Holder()
    v = tf.Variable([0.0])
    h._track_attribute("v", v)  # nothing waiting: no-op, no pending dict created
    assert "_pending_restore" not in h.__dict__
    h._defer_restore("v", np.array([4.0]))
    h._defer_restore("_v", np.array([5.0]))
    h._track_attribute("v", 3.0)  # not a variable: ignored, still waiting
    h._track_attribute("_v", v)  # private names are not dependencies
    np.testing.assert_array_equal(v.numpy(), [0.0])
    h._track_attribute("v", v)
    np.testing.assert_array_equal(v.numpy(), [4.0])
    assert "v" not in h._pending_restore and "_v" in h._pending_restore
