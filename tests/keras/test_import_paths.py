"""TF's dotted import paths: `from tensorflow.keras.layers import Dense` works as
`from minitf.keras.layers import Dense`, and every path is a module that is also the attribute.

The list is the tf.keras paths TF 2.21 offers that minitf implements (TF's `preprocessing` and
`mixed_precision` have no minitf counterpart), plus minitf's offline `datasets.digits`.
"""
import importlib
import pathlib
import subprocess
import sys
import tomllib
import types

import pytest

import minitf as tf

# keras path -> the module that defines its names
PATHS = {
    "layers": "minitf.layers",
    "models": "minitf.models",
    "optimizers": "minitf.optimizers",
    "optimizers.schedules": "minitf.optimizers.schedules.schedules",
    "optimizers.legacy": None,  # a module here; an object of minitf.optimizers defines its names
    "losses": "minitf.losses",
    "metrics": "minitf.metrics",
    "callbacks": "minitf.callbacks",
    "activations": "minitf.activations.activations",
    "initializers": "minitf.initializers.initializers",
    "regularizers": "minitf.regularizers.regularizers",
    "constraints": "minitf.constraints",
    "datasets": "minitf.datasets",
    "datasets.mnist": "minitf.datasets.mnist.mnist",
    "datasets.fashion_mnist": "minitf.datasets.fashion_mnist.fashion_mnist",
    "datasets.cifar10": "minitf.datasets.cifar10.cifar10",
    "datasets.digits": "minitf.datasets.digits.digits",
    "applications": "minitf.applications",
    "applications.vgg19": "minitf.applications.vgg19.vgg19",
    "applications.inception_v3": "minitf.applications.inception_v3.inception_v3",
    "applications.imagenet_utils": "minitf.applications.imagenet_utils.imagenet_utils",
    "utils": "minitf.utils",
    "backend": "minitf.keras.backend",
    "config": "minitf.keras.config",
}
# a name TF users import from each path, checked with a `from ... import` statement
EXAMPLE_NAME = {
    "layers": "Dense", "models": "Sequential", "optimizers": "Adam",
    "optimizers.schedules": "ExponentialDecay", "optimizers.legacy": "Adam", "losses": "MeanSquaredError",
    "metrics": "Accuracy", "callbacks": "EarlyStopping", "activations": "relu",
    "initializers": "GlorotUniform", "regularizers": "L2", "constraints": "MaxNorm",
    "datasets": "mnist", "datasets.mnist": "load_data", "datasets.fashion_mnist": "load_data",
    "datasets.cifar10": "load_data", "datasets.digits": "load_data", "applications": "VGG19",
    "applications.vgg19": "preprocess_input", "applications.inception_v3": "InceptionV3",
    "applications.imagenet_utils": "decode_predictions", "utils": "to_categorical",
    "backend": "floatx", "config": "floatx",
}


def _attribute(path):
    obj = tf.keras
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("path", sorted(PATHS))
def test_path_is_a_module_and_the_attribute(path):
    module = importlib.import_module(f"minitf.keras.{path}")
    assert isinstance(module, types.ModuleType)
    assert module.__name__ == f"minitf.keras.{path}"
    assert _attribute(path) is module
    assert sys.modules[f"minitf.keras.{path}"] is module


@pytest.mark.parametrize("path", sorted(PATHS))
def test_import_statements(path):
    name = EXAMPLE_NAME[path]
    scope = {}
    exec(f"import minitf.keras.{path}\nfrom minitf.keras.{path} import {name}", scope)
    assert scope[name] is getattr(_attribute(path), name)
    parent, _, last = f"minitf.keras.{path}".rpartition(".")
    exec(f"from {parent} import {last} as imported", scope)
    assert scope["imported"] is _attribute(path)
    assert scope["minitf"] is tf


@pytest.mark.parametrize("path", sorted(p for p, src in PATHS.items()
                                        if src and not src.startswith("minitf.keras")))
def test_names_are_the_defining_modules_objects(path):
    module = importlib.import_module(f"minitf.keras.{path}")
    source = importlib.import_module(PATHS[path])
    assert module.__all__, path
    for name in module.__all__:
        value = getattr(module, name)
        if isinstance(value, types.ModuleType):
            # a namespace's submodules are the keras re-export modules of the defining ones
            assert value is importlib.import_module(f"minitf.keras.{path}.{name}")
            for inner in value.__all__:
                assert getattr(value, inner) is getattr(getattr(source, name), inner)
        else:
            assert value is getattr(source, name), f"minitf.keras.{path}.{name}"
    star = {}
    exec(f"from minitf.keras.{path} import *", star)
    assert set(star) - {"__builtins__"} == set(module.__all__)


def test_no_implementation_files_leak_into_the_namespaces():
    # minitf.layers.core, minitf.models.model ... are files, not TF names
    for path in ("layers", "models", "optimizers", "losses", "metrics", "callbacks"):
        module = importlib.import_module(f"minitf.keras.{path}")
        leaked = [n for n in module.__all__ if isinstance(getattr(module, n), types.ModuleType)
                  and n not in ("schedules", "legacy")]
        assert leaked == [], path


def test_the_guides_imports():
    scope = {}
    exec("from minitf.keras.layers import Dense, Flatten, Conv2D\n"
         "from minitf.keras import Model, Sequential, Input\n"
         "import minitf.keras.layers\n"
         "import minitf.keras", scope)
    assert scope["Dense"] is tf.keras.layers.Dense is tf.layers.Dense
    assert scope["Conv2D"] is tf.keras.layers.Conv2D
    assert scope["Model"] is tf.keras.Model is tf.keras.models.Model
    assert scope["minitf"].keras.layers is tf.keras.layers
    model = scope["Sequential"]([scope["Flatten"](input_shape=(2, 2)), scope["Dense"](3)])
    assert model(tf.ones((1, 2, 2))).shape == (1, 3)


def test_legacy_optimizers_module():
    legacy = importlib.import_module("minitf.keras.optimizers.legacy")
    assert tf.keras.optimizers.legacy is legacy
    assert sorted(legacy.__all__) == ["Adagrad", "Adam", "Ftrl", "Optimizer", "RMSprop", "SGD"]
    with pytest.raises(ImportError, match="not supported in Keras 3"):
        legacy.Adam(learning_rate=0.1)


def test_orthogonal_regularizer_alias_is_exported():
    from minitf.keras.regularizers import orthogonal_regularizer
    assert orthogonal_regularizer is tf.regularizers.orthogonal_regularizer


def test_unknown_keras_namespace_is_an_import_error():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("minitf.keras.no_such_namespace")
    with pytest.raises(AttributeError, match="no_such_namespace"):
        tf.keras.no_such_namespace


def test_fresh_interpreter_import_order():
    """A first import through a dotted path (no `import minitf` before it) loads cleanly."""
    code = ("from minitf.keras.optimizers.schedules import ExponentialDecay\n"
            "from minitf.keras.applications.vgg19 import VGG19\n"
            "from minitf.keras.datasets import mnist\n"
            "import minitf as tf\n"
            "assert tf.keras.datasets.mnist is mnist\n"
            "assert tf.keras.optimizers.schedules.ExponentialDecay is ExponentialDecay\n"
            "assert tf.keras.applications.vgg19.VGG19 is VGG19 is tf.keras.applications.VGG19\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_version():
    pyproject = pathlib.Path(__file__).resolve().parents[2] / "pyproject.toml"
    expected = tomllib.loads(pyproject.read_text())["project"]["version"]
    assert tf.__version__ == tf.version.VERSION == expected
    assert importlib.import_module("minitf.version") is tf.version
    scope = {}
    exec("from minitf.version import VERSION", scope)
    assert scope["VERSION"] == expected


def test_paths_match_tensorflow():
    """Every path listed here is one TF offers too (minitf's own `datasets.digits` aside)."""
    pytest.importorskip("tensorflow")
    for path in PATHS:
        if path == "datasets.digits":
            continue
        module = importlib.import_module(f"tensorflow.keras.{path}")
        assert hasattr(module, EXAMPLE_NAME[path]), path
