"""model_to_dot / plot_model: the dot graph's nodes, labels and edges (pydot, no Graphviz needed),
and the ImportErrors that say what to install."""
import re
import sys

import pytest

import minitf as tf
from minitf.utils import model_visualization


def _graph(dot):
    """{layer name: label} and the set of (source name, destination name) edges, clusters included."""
    labels, ids = {}, {}

    def walk(graph):
        for node in graph.get_nodes():
            if node.get_name() in ("node", "edge", "graph"):
                continue
            name = re.search(r"<b>([^<]*)</b>", node.get("label")).group(1)
            labels[name], ids[node.get_name()] = node.get("label"), name
        edges = [(e.get_source(), e.get_destination()) for e in graph.get_edges()]
        for sub in graph.get_subgraphs():
            edges += walk(sub)
        return edges
    edges = walk(dot)
    return labels, {(ids[a], ids[b]) for a, b in edges}


def _functional():
    a = tf.keras.Input((3,), name="a")
    b = tf.keras.Input((2,), name="b")
    x = tf.keras.layers.Dense(4, activation="relu", name="hidden")(a)
    y = tf.keras.layers.Concatenate(name="join")([x, b])
    inner = tf.keras.Sequential([tf.keras.Input((6,)), tf.keras.layers.Dense(2, name="i1"),
                                 tf.keras.layers.Dense(1, name="i2")], name="head")
    return tf.keras.Model([a, b], inner(y), name="net")


def test_functional_graph_nodes_and_edges():
    pydot = pytest.importorskip("pydot")
    dot = tf.keras.utils.model_to_dot(_functional())
    assert isinstance(dot, pydot.Dot)
    labels, edges = _graph(dot)
    assert set(labels) == {"a", "b", "hidden", "join", "head"}
    assert edges == {("a", "hidden"), ("hidden", "join"), ("b", "join"), ("join", "head")}
    assert "(InputLayer)" in labels["a"] and "(Sequential)" in labels["head"]
    attributes = dot.get_attributes()
    assert attributes["rankdir"] == "TB" and attributes["dpi"] == 200 and attributes["splines"] == "ortho"


def test_expand_nested_draws_a_cluster_and_wires_into_it():
    pytest.importorskip("pydot")
    dot = tf.keras.utils.model_to_dot(_functional(), expand_nested=True, rankdir="LR")
    assert [sub.get_name() for sub in dot.get_subgraphs()] == ["cluster_head"]
    labels, edges = _graph(dot)
    assert "head" not in labels and {"i1", "i2"} <= set(labels)
    assert ("join", "i1") in edges and ("i1", "i2") in edges
    assert dot.get_attributes()["rankdir"] == "LR"


def test_label_fields():
    pytest.importorskip("pydot")
    model = _functional()
    model.get_layer("join").trainable = False
    labels, _ = _graph(tf.keras.utils.model_to_dot(model, show_shapes=True, show_dtype=True,
                                                   show_layer_activations=True, show_trainable=True))
    assert "Activation: <b>relu</b>" in labels["hidden"]
    assert "Input shape: <b>(None, 3)</b>" in labels["hidden"] and "Output shape: <b>(None, 4)</b>" in labels["hidden"]
    assert "Input shape: <b>[(None, 4), (None, 2)]</b>" in labels["join"]
    assert "Output dtype: <b>float32</b>" in labels["a"] and "Input shape" not in labels["a"]
    assert "<b>Trainable</b>" in labels["hidden"]
    assert "Trainable" not in labels["join"]  # no weights: no trainability cell
    plain, _ = _graph(tf.keras.utils.model_to_dot(model, show_layer_names=False))
    assert "Dense" in plain and "hidden" not in plain


def test_sequential_chain_and_subclassed_single_box():
    pytest.importorskip("pydot")
    seq = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2, name="s1"),
                               tf.keras.layers.Dense(1, name="s2")])
    labels, edges = _graph(tf.keras.utils.model_to_dot(seq))
    assert set(labels) == {"s1", "s2"} and edges == {("s1", "s2")}

    class Custom(tf.keras.Model):
        def __init__(self):
            super().__init__(name="custom")
            self.dense = tf.keras.layers.Dense(1)

        def call(self, x):
            return self.dense(x)
    custom = Custom()
    custom(tf.ones((1, 2)))
    labels, edges = _graph(tf.keras.utils.model_to_dot(custom))
    assert list(labels) == ["custom"] and edges == set()


def test_unbuilt_model_and_bad_arguments():
    pytest.importorskip("pydot")
    with pytest.raises(ValueError, match="has not yet been built"):
        tf.keras.utils.model_to_dot(tf.keras.Sequential([tf.keras.layers.Dense(1)]))
    with pytest.raises(ValueError, match="layer_range"):
        tf.keras.utils.model_to_dot(_functional(), layer_range=["a", "b"])
    with pytest.raises(ValueError, match="Unrecognized keyword"):
        tf.keras.utils.model_to_dot(_functional(), colour=True)


def test_missing_pydot_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pydot", None)  # import pydot now raises ImportError
    assert not model_visualization.check_pydot()
    with pytest.raises(ImportError, match=r"minitf\[plot\]"):
        tf.keras.utils.model_to_dot(_functional())
    with pytest.raises(ImportError, match="pydot"):
        tf.keras.utils.plot_model(_functional())


def test_plot_model_writes_the_picture_or_asks_for_graphviz(tmp_path):
    pytest.importorskip("pydot")
    target = tmp_path / "model.png"
    if model_visualization.check_graphviz():
        tf.keras.utils.plot_model(_functional(), to_file=target, show_shapes=True)
        assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        with pytest.raises(ImportError, match="graphviz"):
            tf.keras.utils.plot_model(_functional(), to_file=target)
        assert not target.exists()
