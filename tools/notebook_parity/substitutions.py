"""Every change the harness makes to notebook text, apart from IPython syntax and the import rewrite.

The same rules apply under TensorFlow and under minitf, so both run the same program. They do
two things only:

* Dataset downloads become small local stand-ins (standins.py, imported into each notebook as
  `_nbp`): same file formats, shapes and dtypes, far fewer examples. The machine has no network,
  and the measurement is about the library, not the data.
* Training is shortened: epoch and step counts are capped, images are made smaller, pretrained
  ImageNet weights become random initialisation (weights=None) since they cannot be downloaded.

A rule is (id, regex, replacement, why). Global rules apply to every cell of every notebook;
NOTEBOOK_RULES apply to one notebook (optionally one cell, 1-based over code cells). The runner
reports any notebook rule that matched nothing, which means the pinned notebooks drifted.
"""
import collections
import re

import standins

EPOCH_CAP = 2  # training epochs after shortening
STEP_CAP = 2  # optimisation steps per epoch / per call after shortening

Rule = collections.namedtuple("Rule", "id pattern repl why cell", defaults=(None,))


def _cap(limit):
    """A replacement that keeps the name and caps the integer that follows it at `limit`."""
    def repl(m):
        return f"{m.group(1)}{m.group(2)}{min(int(m.group(3)), limit)}"
    return repl


def _url_literal(m):
    """A known data URL string literal becomes a call returning the stand-in's local path."""
    url = m.group(2)
    if url in standins.LOCAL_URLS:
        return f"_nbp.local_url({url!r})"
    return m.group(0)


GLOBAL_RULES = [
    Rule("get_file", re.compile(r"\b(?:tf\.)?keras\.utils\.get_file\("), "_nbp.get_file(",
         "downloads come from standins.get_file: generated files keyed by the URL's file name"),
    Rule("keras_datasets",
         re.compile(r"\b(?:(?:tf\.)?keras\.datasets\.)?(fashion_mnist|mnist)\.load_data\(\s*\)"),
         r"_nbp.load_data('\1')",
         "MNIST / Fashion-MNIST: random uint8 images (N, 28, 28) and uint8 labels, 1024 train / 256 test"),
    Rule("tfds_import", re.compile(r"^(\s*)import\s+tensorflow_datasets\s+as\s+tfds\b", re.M),
         r"\1tfds = _nbp.FakeTFDS()",
         "tensorflow_datasets is not installed; a stand-in `tfds.load` serves mnist, penguins, tf_flowers"),
    Rule("imagenet_weights", re.compile(r"""weights\s*=\s*(['"])imagenet\1"""), "weights=None",
         "pretrained weights cannot be downloaded; random initialisation runs the same code"),
    Rule("epochs", re.compile(r"\b(epochs|EPOCHS|num_epochs|NUM_EPOCHS)(\s*=\s*)(\d+)\b"), _cap(EPOCH_CAP),
         f"epoch counts capped at {EPOCH_CAP}"),
    Rule("data_urls", re.compile(r"""(['"])(https?://[^'"\s]+)\1"""), _url_literal,
         "URLs read with pandas/requests that standins.LOCAL_URLS knows become local generated files"),
]

_STEPS = re.compile(r"\b(steps|steps_per_epoch|steps_per_octave)(\s*=\s*)(\d+)\b")

NOTEBOOK_RULES = {
    "guide/core/matrix_core": [
        Rule("matrix_core_requests", re.compile(r"requests\.get\(img_link,\s*stream=True\)\.raw"),
             "_nbp.open_url(img_link)", "the corgi JPEG is generated locally (96x128)"),
    ],
    "guide/data": [
        Rule("data_steps", _STEPS, _cap(STEP_CAP), f"fit/evaluate/predict steps capped at {STEP_CAP}"),
    ],
    "tutorials/generative/style_transfer": [
        Rule("style_max_dim", re.compile(r"\bmax_dim = 512\b"), "max_dim = 64",
             "images scaled to 64 px instead of 512 px (VGG19 on numpy)"),
        Rule("style_steps", _STEPS, _cap(STEP_CAP), f"optimisation steps per epoch capped at {STEP_CAP}"),
    ],
    "tutorials/generative/deepdream": [
        Rule("dream_max_dim", re.compile(r"max_dim=500\b"), "max_dim=128",
             "image scaled to 128 px instead of 500 px (InceptionV3 on numpy; 128/1.3**2 stays above 75)"),
        Rule("dream_steps", _STEPS, _cap(STEP_CAP), f"gradient-ascent steps capped at {STEP_CAP}"),
    ],
}


def _apply_rule(rule, text, hits):
    new, n = rule.pattern.subn(rule.repl, text)
    if hits is not None and new != text:
        hits[rule.id] = hits.get(rule.id, 0) + n
    return new


def apply(text, nb_id, index, hits=None):
    """`text` (code cell `index`, 1-based, of notebook `nb_id`) with every applicable rule applied."""
    for rule in NOTEBOOK_RULES.get(nb_id, []):
        if rule.cell is None or rule.cell == index:
            text = _apply_rule(rule, text, hits)
    for rule in GLOBAL_RULES:
        text = _apply_rule(rule, text, hits)
    return text


def describe():
    """The rules as markdown lines, for the report."""
    lines = ["Global rules (every notebook):"]
    lines += [f"- `{r.id}`: {r.why}" for r in GLOBAL_RULES]
    for nb_id, rules in NOTEBOOK_RULES.items():
        lines += [f"- {nb_id}: `{r.id}`: {r.why}" for r in rules]
    return lines
