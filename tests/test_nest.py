"""tf.nest: flatten, pack and map over nested lists, tuples, namedtuples and dicts."""
import collections

import pytest

import minitf as tf
from minitf.nest import nest


def test_flatten_and_pack_roundtrip():
    Point = collections.namedtuple("Point", "x y")
    s = {"b": [1, (2, 3)], "a": Point(4, 5)}
    flat = tf.nest.flatten(s)
    assert flat == [4, 5, 1, 2, 3]  # dict keys sorted
    rebuilt = tf.nest.pack_sequence_as(s, [x * 10 for x in flat])
    assert rebuilt == {"b": [10, (20, 30)], "a": Point(40, 50)}
    assert isinstance(rebuilt["a"], Point)


def test_map_structure_and_errors():
    assert tf.nest.map_structure(lambda a, b: a + b, [1, (2,)], [10, (20,)]) == [11, (22,)]
    with pytest.raises(ValueError):
        tf.nest.map_structure(lambda a, b: a, [1, 2], [1])
    with pytest.raises(ValueError):
        tf.nest.pack_sequence_as([1, 2], [1])


def test_packer_rebuilds_as_pack_sequence_as():
    Point = collections.namedtuple("Point", "x y")
    structures = [[1, (2, 3)], {"b": [1, 2], "a": (3,)}, (Point(1, [2, 3]), {"k": 4}, []), 5, [],
                  ((),), {"z": {"y": 1, "x": (2, 3)}}]
    for structure in structures:
        leaves = [f"leaf{i}" for i in range(len(nest.flatten(structure)))]
        pack = nest.packer(structure)
        for _ in range(2):
            got, want = pack(leaves), nest.pack_sequence_as(structure, leaves)
            assert got == want and type(got) is type(want)
    with pytest.raises(ValueError, match="structure has 2 leaves"):
        nest.packer([1, 2])(["only one"])
