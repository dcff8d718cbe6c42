"""The public namespaces are generated from the export declarations (tools/generate_api.py).

They are current, every name in them resolves to its definition, one path names one definition,
no hand-written re-export module is left, and the front is lazy (importing a namespace imports
nothing else) without breaking pickle, copy or `from minitf import *`.
"""
import ast
import copy
import importlib
import json
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import minitf as tf
from minitf import api_export

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))
import generate_api  # noqa: E402


def _run(code):
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def _generated_namespaces():
    """(module name, file) of every generated namespace module under minitf/."""
    found = []
    for dirpath, _, names in os.walk(os.path.join(REPO, "minitf")):
        for name in sorted(names):
            path = os.path.join(dirpath, name)
            if name.endswith(".py") and generate_api.is_generated(path):
                rel = os.path.relpath(path, REPO)[:-3].replace(os.sep, ".")
                found.append((rel[:-len(".__init__")] if rel.endswith(".__init__") else rel, path))
    return sorted(found)


def test_generated_files_are_current():
    """Re-running the generator in memory gives the files on disk, byte for byte."""
    out = subprocess.run([sys.executable, os.path.join(REPO, "tools", "generate_api.py"), "--check"],
                         capture_output=True, text=True, cwd=REPO, timeout=600,
                         env=dict(os.environ, PYTHONPATH=REPO))
    assert out.returncode == 0, ("namespaces out of date; run `python tools/generate_api.py`:\n"
                                 + out.stdout + out.stderr[-2000:])


def test_a_path_declared_twice_fails():
    saved = dict(api_export._BY_PATH), {k: list(v) for k, v in api_export.EXPORTS.items()}
    try:
        api_export._record("fake.one", "f", ("zz_test_namespace.f",))
        api_export._record("fake.one", "f", ("zz_test_namespace.f",))  # the same definition again: fine
        with pytest.raises(api_export.ExportConflictError, match="declared twice"):
            api_export._record("fake.two", "g", ("zz_test_namespace.f",))
    finally:
        api_export._BY_PATH.clear()
        api_export._BY_PATH.update(saved[0])
        api_export.EXPORTS.clear()
        api_export.EXPORTS.update(saved[1])


def test_a_name_that_is_also_a_namespace_fails():
    exports = {("fake.one", "f"): ["zz.f"], ("fake.two", "g"): ["zz.f.g"]}
    with pytest.raises(ValueError, match="both names and namespaces"):
        generate_api.collect(exports)


def test_export_returns_the_object_unchanged():
    def f():
        pass
    saved = dict(api_export._BY_PATH), {k: list(v) for k, v in api_export.EXPORTS.items()}
    try:
        assert api_export.export("zz_test_namespace.f")(f) is f
        assert api_export.EXPORTS[(__name__, "f")] == ["zz_test_namespace.f"]
    finally:
        api_export._BY_PATH.clear()
        api_export._BY_PATH.update(saved[0])
        api_export.EXPORTS.clear()
        api_export.EXPORTS.update(saved[1])


def test_every_name_in_every_generated_namespace_resolves():
    namespaces = _generated_namespaces()
    assert len(namespaces) > 50
    for module_name, _ in namespaces:
        module = importlib.import_module(module_name)
        assert sorted(dir(module)) == sorted(set(module.__all__) | set(module._NAMES) | set(module._NAMESPACES))
        for name, (defining, attribute) in module._NAMES.items():
            value = getattr(module, name)
            assert value is getattr(importlib.import_module(defining), attribute), f"{module_name}.{name}"
        for name, child in module._NAMESPACES.items():
            assert getattr(module, name) is importlib.import_module(child)


def test_no_hand_written_re_export_module_remains():
    """A module that only imports names (and lists them) is a re-export file: it must be generated.

    The namespaces still listed as "implementation" in tools/api_namespaces.json (modules with
    code of their own at a public path, whose code has yet to move) are left out of this check."""
    with open(generate_api.CONFIG, encoding="utf-8") as f:
        pending = {os.path.join("minitf", *ns.split(".")) for ns in json.load(f).get("implementation", [])}
    offenders = []
    for dirpath, _, names in os.walk(os.path.join(REPO, "minitf")):
        for name in names:
            path = os.path.join(dirpath, name)
            if not name.endswith(".py") or generate_api.is_generated(path):
                continue
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read())
            body = [n for n in tree.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
            only_imports = body and all(
                isinstance(n, (ast.Import, ast.ImportFrom, ast.Delete))
                or (isinstance(n, ast.Assign) and all(isinstance(t, ast.Name) and t.id == "__all__"
                                                      for t in n.targets))
                for n in body)
            star = any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)
                       for n in ast.walk(tree))
            rel = os.path.relpath(path, REPO)
            key = rel[:-len(os.sep + "__init__.py")] if name == "__init__.py" else rel[:-3]
            if (only_imports or star) and key not in pending:
                offenders.append(rel)
    assert not offenders, f"hand-written re-export modules (declare the names instead): {offenders}"


def test_implementation_namespaces_are_listed_and_define_code():
    """A namespace the generator leaves alone is a module with code of its own, and its public
    names are exactly the names declared for its path."""
    with open(generate_api.CONFIG, encoding="utf-8") as f:
        implementation = json.load(f).get("implementation", [])
    declared = {}
    for (_, _), paths in api_export.EXPORTS.items():
        for path in paths:
            ns, _, name = path.rpartition(".")
            declared.setdefault(ns, set()).add(name)
    for ns in implementation:
        module = importlib.import_module("minitf." + ns)
        assert not generate_api.is_generated(module.__file__)
        names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
        public = {n for n in names if not isinstance(getattr(module, n), type(sys))}
        assert public == declared.get(ns, set()), ns


def test_importing_a_leaf_namespace_loads_only_what_it_imports():
    out = _run("import sys, minitf.dtypes; print(sorted(m for m in sys.modules if m.startswith('minitf')))")
    loaded = eval(out)
    front = {"minitf", "minitf.api_export", "minitf._host_tuning"}  # the generated minitf/__init__
    assert set(loaded) == front | {"minitf.dtypes"}, loaded
    out = _run("import sys, minitf; print(sorted(m for m in sys.modules if m.startswith('minitf')))")
    assert set(eval(out)) == front
    out = _run("import sys, minitf.math; print(sorted(m for m in sys.modules if m.startswith('minitf')))")
    assert set(eval(out)) == front | {"minitf.math"}


def test_no_op_keras_or_graph_module_before_first_use():
    out = _run("import sys, minitf, minitf.dtypes, minitf.keras.layers, minitf.nn\n"
               "print(sorted(m for m in sys.modules if m.startswith(('minitf.ops', 'minitf.keras_core', "
               "'minitf.layers', 'minitf.graph', 'minitf.autograph', 'minitf.function', 'minitf.tensor'))))")
    assert eval(out) == []


def test_tensor_operators_are_installed_before_the_first_tensor():
    """Whatever door a user takes to a tensor, `+`, `[]`, `==` work on it."""
    out = _run("from minitf import constant\nx = constant([1.0, 2.0])\nprint((x + 1).numpy().tolist(), "
               "x[1].numpy().tolist(), (x == 2.0).numpy().tolist())")
    assert out.split() == ["[2.0,", "3.0]", "2.0", "[False,", "True]"]
    out = _run("import minitf.math as m\nprint((m.add(1.0, 2.0) * 2).numpy())")
    assert out.strip() == "6.0"
    out = _run("import minitf as tf\nprint(tf.convert_to_tensor([tf.constant(1.0), 2.0]).shape)")
    assert out.strip() == "(2,)"


def test_the_same_objects_through_every_door():
    import minitf.keras.layers as layers
    from minitf.keras.layers import Dense
    assert Dense is layers.Dense is tf.keras.layers.Dense
    assert tf.keras.layers.Convolution2D is tf.keras.layers.Conv2D
    assert tf.math.add is tf.add
    assert tf.float32 is tf.dtypes.float32
    assert tf.__version__ == tf.version.VERSION
    assert "add" in dir(tf.math) and "Dense" in dir(tf.keras.layers)
    import inspect
    members = dict(inspect.getmembers(tf.math))
    assert members["reduce_sum"] is tf.reduce_sum


def test_a_public_name_keeps_its_value_when_its_namesake_submodule_loads():
    """tf.function is the decorator although minitf/function.py is a submodule of minitf."""
    out = _run("import minitf as tf\nimport minitf.function, minitf.device, minitf.custom_gradient\n"
               "print(type(tf.function).__name__, type(tf.device).__name__, type(tf.custom_gradient).__name__)")
    assert out.split() == ["function", "type", "function"]
    assert callable(tf.function) and not isinstance(tf.function, type(sys))


def test_pickle_and_copy_of_public_objects():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    for obj in (x, tf.float32, tf.TensorShape([2, None])):
        assert pickle.loads(pickle.dumps(obj)) == obj if not tf.is_tensor(obj) else True
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(x)).numpy(), x.numpy())
    np.testing.assert_array_equal(copy.deepcopy(x).numpy(), x.numpy())
    assert pickle.loads(pickle.dumps(tf.math.add)) is tf.math.add
    assert pickle.loads(pickle.dumps(tf.keras.layers.Dense)) is tf.keras.layers.Dense
    layer = tf.keras.layers.Dense(3)
    clone = copy.deepcopy(layer)
    assert type(clone) is tf.keras.layers.Dense and clone.units == 3
    v = tf.Variable([1.0, 2.0])
    np.testing.assert_array_equal(copy.deepcopy(v).numpy(), v.numpy())


def test_star_import_gives_the_public_names():
    out = _run("import sys\nfrom minitf import *\n"  # (tf.print comes with it: write with sys.stdout)
               "sys.stdout.write(repr((float32.name, callable(constant), Tensor.__name__, "
               "GradientTape.__module__, keras.layers.Dense.__name__)))")
    assert out.strip() == "('float32', True, 'Tensor', 'minitf.tape', 'Dense')"
