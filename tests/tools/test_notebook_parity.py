"""The notebook-parity harness's text rewriting, substitution rules, stand-ins and report helpers.

Pure text and numpy: no TensorFlow, no notebooks, no subprocesses.
"""
import pathlib
import re
import struct
import sys

import numpy as np
import pytest

HARNESS = pathlib.Path(__file__).resolve().parents[2] / "tools" / "notebook_parity"
sys.path.insert(0, str(HARNESS))

import report  # noqa: E402
import rewrite  # noqa: E402
import standins  # noqa: E402
import substitutions  # noqa: E402


# -- import rewriting -------------------------------------------------------------------------

@pytest.mark.parametrize("src, expected", [
    ("import tensorflow as tf", "import minitf as tf"),
    ("  import tensorflow as tf  # the library", "  import minitf as tf  # the library"),
    ("import tensorflow", "import minitf as tensorflow"),
    ("from tensorflow import keras", "from minitf import keras"),
    ("from tensorflow.keras import layers, losses", "from minitf.keras import layers, losses"),
    ("from tensorflow.keras.layers import Dense", "from minitf.keras.layers import Dense"),
    ("import tensorflow.keras.layers as L", "import minitf.keras.layers as L"),
    ("import keras", "import minitf.keras as keras"),
    ("from keras import layers", "from minitf.keras import layers"),
    ("from keras.layers import Dense", "from minitf.keras.layers import Dense"),
])
def test_imports_point_at_minitf(src, expected):
    assert rewrite.rewrite_imports(src, "minitf") == expected


@pytest.mark.parametrize("src", [
    "import tensorflow_datasets as tfds",
    "import tensorflow_hub as hub",
    "x = 'import tensorflow as tf'",
    "print(tf.__version__)",
    "import keras_tuner as kt",
])
def test_other_lines_untouched(src):
    assert rewrite.rewrite_imports(src, "minitf") == src


def test_tensorflow_run_keeps_imports():
    src = "import tensorflow as tf\nfrom tensorflow.keras import layers"
    assert rewrite.rewrite_imports(src, "tensorflow") == src


def test_unknown_library_rejected():
    with pytest.raises(ValueError, match="unknown library 'jax'"):
        rewrite.rewrite_imports("import tensorflow as tf", "jax")


# -- IPython syntax ---------------------------------------------------------------------------

def test_shell_and_line_magics_become_pass_keeping_indentation():
    src = "!pip install -q seaborn\n%matplotlib inline\nfor i in range(2):\n  !ls {i}\nx = 1"
    out = rewrite.strip_magics(src)
    compile(out, "<cell>", "exec")
    lines = out.split("\n")
    assert lines[0].startswith("pass") and lines[1].startswith("pass")
    assert lines[3].startswith("  pass")
    assert lines[4] == "x = 1"


def test_shell_capture_becomes_empty_list():
    out = rewrite.strip_magics("files = !ls *.csv")
    ns = {}
    exec(out, ns)
    assert ns["files"] == []


def test_writefile_magic_writes_the_body(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exec(rewrite.strip_magics("%%writefile missing.csv\n1,2,3,4\n,2,3,4"), {})
    assert (tmp_path / "missing.csv").read_text() == "1,2,3,4\n,2,3,4\n"


def test_time_magic_runs_body_other_cell_magics_skip():
    assert rewrite.strip_magics("%%time\nx = 1") == "x = 1"
    with pytest.raises(rewrite.SkipCell, match="%%bash"):
        rewrite.strip_magics("%%bash\nls")


# -- substitution rules -----------------------------------------------------------------------

def _sub(text, nb_id="guide/basics", index=1):
    hits = {}
    return substitutions.apply(text, nb_id, index, hits), hits


@pytest.mark.parametrize("src, expected", [
    ("model.fit(x, y, epochs=10)", "model.fit(x, y, epochs=2)"),
    ("EPOCHS = 50", "EPOCHS = 2"),
    ("num_epochs = 201", "num_epochs = 2"),
    ("model.fit(x, y, epochs=1)", "model.fit(x, y, epochs=1)"),
    ("epochs = range(10)", "epochs = range(10)"),
    ("initial_epochs = 10", "initial_epochs = 10"),
])
def test_epochs_capped(src, expected):
    assert _sub(src)[0] == expected


def test_downloads_and_datasets_redirected_to_standins():
    out, hits = _sub("p = tf.keras.utils.get_file('a.jpg', 'https://x/a.jpg')\n"
                     "(x, y), _ = tf.keras.datasets.mnist.load_data()\n"
                     "f = fashion_mnist.load_data()\n"
                     "vgg = tf.keras.applications.VGG19(include_top=False, weights='imagenet')\n"
                     "import tensorflow_datasets as tfds")
    assert "_nbp.get_file('a.jpg', 'https://x/a.jpg')" in out
    assert "_nbp.load_data('mnist')" in out and "_nbp.load_data('fashion_mnist')" in out
    assert "weights=None" in out and "imagenet" not in out
    assert out.endswith("tfds = _nbp.FakeTFDS()")
    assert set(hits) == {"get_file", "keras_datasets", "imagenet_weights", "tfds_import"}


def test_known_data_url_becomes_local_path_unknown_stays():
    url = "http://archive.ics.uci.edu/ml/machine-learning-databases/auto-mpg/auto-mpg.data"
    out, _ = _sub(f"url = '{url}'\nother = 'https://example.com/x.csv'")
    assert out.split("\n")[0] == f"url = _nbp.local_url({url!r})"
    assert out.split("\n")[1] == "other = 'https://example.com/x.csv'"


def test_notebook_rules_only_in_their_notebook():
    src = "def train(steps=100):\n  pass\nmax_dim = 512"
    assert _sub(src, "guide/basics")[0] == src
    out, hits = _sub(src, "tutorials/generative/style_transfer")
    assert "steps=2" in out and "max_dim = 64" in out
    assert hits == {"style_steps": 1, "style_max_dim": 1}


def test_every_rule_is_documented():
    lines = substitutions.describe()
    for rule in substitutions.GLOBAL_RULES:
        assert any(f"`{rule.id}`" in line for line in lines)
    for rules in substitutions.NOTEBOOK_RULES.values():
        for rule in rules:
            assert rule.why and any(f"`{rule.id}`" in line for line in lines)


def test_prepare_cell_applies_all_steps_in_order():
    src = "!pip install tensorflow\nimport tensorflow as tf\nmodel.fit(x, y, epochs=5)"
    out = rewrite.prepare_cell(src, "minitf", "guide/basics", 3)
    assert out.split("\n")[1:] == ["import minitf as tf", "model.fit(x, y, epochs=2)"]
    assert rewrite.prepare_cell(src, "tensorflow", "guide/basics", 3).split("\n")[1] == "import tensorflow as tf"


# -- stand-ins (no Pillow, no TF) -------------------------------------------------------------

def test_mnist_standin_shapes_and_dtypes():
    (x, y), (xt, yt) = standins.load_data("mnist")
    assert x.shape == (standins.N_TRAIN, 28, 28) and x.dtype == np.uint8
    assert y.shape == (standins.N_TRAIN,) and y.dtype == np.uint8 and y.max() <= 9
    assert xt.shape == (standins.N_TEST, 28, 28)
    (x2, _), _ = standins.load_data("mnist")
    np.testing.assert_array_equal(x, x2)  # generated from a fixed seed


@pytest.mark.parametrize("spec, expected", [
    ("train", ("train", 0, 1024)),
    ("train[10000:]", ("train", 171, 1024)),
    ("train[0:10000]", ("train", 0, 171)),
    ("train[:20%]", ("train", 0, 205)),
    ("train[80%:90%]", ("train", 819, 922)),
])
def test_tfds_split_strings_scale_to_the_standin(spec, expected):
    assert standins.parse_split(spec, {"train": 60000}, 1024) == expected


def test_tfrecord_framing_and_crc32c():
    assert standins._crc32c(b"123456789") == 0xE3069283  # the CRC-32C check value
    data = standins.tfrecord_bytes([b"abc", b""])
    (n,) = struct.unpack("<Q", data[:8])
    assert n == 3 and data[12:15] == b"abc"
    assert struct.unpack("<I", data[8:12])[0] == standins._masked_crc(data[:8])
    assert len(data) == (8 + 4 + 3 + 4) + (8 + 4 + 0 + 4)


def test_example_encoding_matches_protobuf_wire_format():
    # Example{features{feature{key:"a" value{int64_list{value:[1, 300]}}}}} by hand
    int64_list = b"\x0a\x03\x01\xac\x02"
    feature = b"\x1a" + bytes([len(int64_list)]) + int64_list
    entry = b"\x0a\x01a" + b"\x12" + bytes([len(feature)]) + feature
    features = b"\x0a" + bytes([len(entry)]) + entry
    assert standins.example_bytes({"a": [1, 300]}) == b"\x0a" + bytes([len(features)]) + features


def test_get_file_generates_text_and_csv_and_refuses_unknown(tmp_path, monkeypatch):
    monkeypatch.setenv("NBP_STANDIN_DIR", str(tmp_path))
    p = standins.get_file("cowper.txt", "https://storage.googleapis.com/download.tensorflow.org/data/illiad/cowper.txt")
    assert len(pathlib.Path(p).read_text().splitlines()) == 200
    titanic = standins.get_file("train.csv", "https://storage.googleapis.com/tf-datasets/titanic/train.csv")
    assert pathlib.Path(titanic).read_text().split("\n")[0].startswith("survived,sex,age")
    with pytest.raises(Exception, match="URL fetch failure on https://example.com/big.bin"):
        standins.get_file("big.bin", "https://example.com/big.bin")


def test_creditcard_extract_leaves_csv_beside_zip(tmp_path, monkeypatch):
    monkeypatch.setenv("NBP_STANDIN_DIR", str(tmp_path))
    z = standins.get_file(origin="https://storage.googleapis.com/download.tensorflow.org/data/creditcard.zip",
                          fname="creditcard.zip", extract=True)
    header = pathlib.Path(z.replace(".zip", ".csv")).read_text().split("\n")[0].split(",")
    assert len(header) == 31 and header[-1] == "Class"


# -- report helpers ---------------------------------------------------------------------------

def test_output_comparison_masks_numbers_only():
    a = "tf.Tensor(1.5, shape=(), dtype=float32)\n"
    b = "tf.Tensor(-2.25e-3,   shape=(), dtype=float32)"
    assert report.normalize_output(a) == report.normalize_output(b)
    assert report.normalize_output(a) != report.normalize_output(a.replace("float32", "float64"))


def test_causes_group_by_type_and_masked_message_and_areas_match():
    e1 = {"type": "ValueError", "message": "shape (3, 4) vs (5,)"}
    e2 = {"type": "ValueError", "message": "shape (7, 1) vs (2,)"}
    assert report.cause_key(e1) == report.cause_key(e2)
    assert report.area_of({"message": "module 'minitf' has no attribute 'ragged'"}, "") == "ragged"
    assert report.area_of({"message": "boom"}, "g = tf.random.Generator.from_seed(1)") == "random.Generator"
    assert report.area_of({"message": "boom"}, "ex = tf.train.Example(features=f)") == "tfrecord/Example"
    assert report.area_of({"message": "'Sequential' object has no attribute 'save'"}, "m.save('x')") is None


def test_defined_names_feed_the_cascade_rule():
    names = report._defined_names("def f():\n  y = 2\nclass C:\n  pass\na, b = 1, 2\nx == 3")
    assert {"f", "C", "a", "b", "y"} <= names and "x" not in names
    assert re.match(r"^\w+$", "f")


def test_help_syntax_becomes_pass():
    out = rewrite.strip_magics("tf.keras.Input?\ntf.nn??")
    assert out.split("\n")[0].startswith("pass") and out.split("\n")[1].startswith("pass")


def test_indented_cell_is_dedented_as_ipython_does():
    out = rewrite.strip_magics(" for x in range(2):\n   print(x)")
    assert out == "for x in range(2):\n  print(x)"
    compile(out, "<cell>", "exec")


def test_area_from_defining_cells_only_without_notebook_lines():
    ctx = ["def tf_parse(eg):\n  return tf.io.parse_example(eg, spec)"]
    assert report.area_of({"message": "bad dtype"}, "", ctx) == "tfrecord/Example"
    assert report.area_of({"message": "bad dtype"}, "decoded = ds.map(tf_parse)", ctx) is None
