"""The pinned notebook list and the reader that pulls code cells out of a tensorflow/docs checkout.

The notebooks themselves are not stored in this repository: the runner reads them from a
tensorflow/docs checkout (a work tree or a bare git directory) at the pinned commit, so a
re-measurement reads exactly the text the substitution rules were written against.
"""
import json
import pathlib
import subprocess

# tensorflow/docs commit the list and the substitution rules were written against (2026-03-11).
DOCS_COMMIT = "7c3650212740204359d4ceae481abc79345541be"

# Notebook ids are paths under site/en/ without the .ipynb suffix.
NOTEBOOKS = [
    # TF core guides
    "guide/basics",
    "guide/tensor",
    "guide/variable",
    "guide/autodiff",
    "guide/advanced_autodiff",
    "guide/intro_to_modules",
    "guide/basic_training_loops",
    "guide/core/quickstart_core",
    "guide/core/mlp_core",
    "guide/core/optimizers_core",
    "guide/core/logistic_regression_core",
    "guide/core/matrix_core",
    "guide/ragged_tensor",
    "guide/sparse_tensor",
    "guide/random_numbers",
    "guide/checkpoint",
    "guide/data",
    "guide/tensor_slicing",
    "guide/function",
    "guide/intro_to_graphs",
    "guide/saved_model",
    # tutorials
    "tutorials/quickstart/beginner",
    "tutorials/quickstart/advanced",
    "tutorials/customization/basics",
    "tutorials/customization/custom_training_walkthrough",
    "tutorials/customization/custom_layers",
    "tutorials/generative/dcgan",
    "tutorials/generative/style_transfer",
    "tutorials/generative/deepdream",
    "tutorials/load_data/tfrecord",
    "tutorials/load_data/images",
    "tutorials/keras/classification",
    # added 2026-11-28: more programs written by others (TF 2 guides and tutorials; the TF 1
    # migration guides and DTensor's guide/core/distribution are left out: minitf has no
    # tf.compat.v1 and no DTensor)
    "guide/effective_tf2",
    "guide/mixed_precision",
    "guide/data_performance",
    "guide/tf_numpy",
    "tutorials/generative/cvae",
    "tutorials/generative/autoencoder",
    "tutorials/generative/adversarial_fgsm",
    "tutorials/keras/regression",
    "tutorials/keras/save_and_load",
    "tutorials/keras/overfit_and_underfit",
    "tutorials/load_data/csv",
    "tutorials/load_data/numpy",
    "tutorials/load_data/pandas_dataframe",
    "tutorials/load_data/text",
    "tutorials/images/cnn",
    "tutorials/images/classification",
    "tutorials/images/data_augmentation",
    "tutorials/images/segmentation",
    "tutorials/interpretability/integrated_gradients",
    "tutorials/reinforcement_learning/actor_critic",
    "tutorials/structured_data/preprocessing_layers",
    "tutorials/structured_data/imbalanced_data",
    "tutorials/structured_data/time_series",
    "tutorials/distribute/custom_training",
    "tutorials/distribute/keras",
    "tutorials/distribute/input",
    "tutorials/distribute/save_and_load",
    "tutorials/understanding/sngp",
    # added 2026-11-29: programs reading folders of files (IMDB reviews, speech-command clips)
    "tutorials/keras/text_classification",
    "tutorials/audio/simple_audio",
]


def notebook_path(nb_id):
    """The notebook's path inside a tensorflow/docs checkout."""
    return f"site/en/{nb_id}.ipynb"


def read_notebook_text(docs, nb_id, commit=DOCS_COMMIT):
    """The raw .ipynb text of `nb_id` from `docs`: a work tree, or a git directory read at `commit`."""
    docs = pathlib.Path(docs)
    rel = notebook_path(nb_id)
    git_dir = docs if (docs / "HEAD").is_file() and (docs / "objects").is_dir() else docs / ".git"
    if git_dir.exists():
        res = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{commit}:{rel}"],
                             capture_output=True, text=True)
        if res.returncode == 0:
            return res.stdout
        if not (docs / rel).is_file():
            raise FileNotFoundError(f"{rel} at commit {commit} not readable from {git_dir}: {res.stderr.strip()}; "
                                    "fetch that commit (git fetch origin {commit}) or pass --commit")
    return (docs / rel).read_text(encoding="utf-8")


def code_cells(ipynb_text):
    """The source of each code cell, in order, as strings (markdown and raw cells dropped)."""
    nb = json.loads(ipynb_text)
    cells = []
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        src = cell.get("source", "")
        cells.append("".join(src) if isinstance(src, list) else src)
    return cells
