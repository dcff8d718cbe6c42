"""Shared pieces of the example scripts: dataset choice, output folders, CSV logs, image grids."""
import csv
import os

import numpy as np


def load_images(name, num_train=None, num_test=None, seed=0):
    """(x_train, y_train), (x_test, y_test) as uint8 arrays for 'digits', 'mnist' or 'fashion_mnist'.

    'digits' is minitf's built-in offline dataset, so the examples run on a machine with no network.
    """
    import minitf as tf
    if name == "digits":
        kwargs = {"seed": seed}
        if num_train is not None:
            kwargs["num_train"] = num_train
        if num_test is not None:
            kwargs["num_test"] = num_test
        return tf.keras.datasets.digits.load_data(**kwargs)
    loader = {"mnist": tf.keras.datasets.mnist, "fashion_mnist": tf.keras.datasets.fashion_mnist}[name]
    (x, y), (xt, yt) = loader.load_data()
    if num_train is not None:
        x, y = x[:num_train], y[:num_train]
    if num_test is not None:
        xt, yt = xt[:num_test], yt[:num_test]
    return (x, y), (xt, yt)


def output_dir(path):
    """Create (if needed) and return the output folder."""
    os.makedirs(path, exist_ok=True)
    return path


class CsvLog:
    """A CSV log of one row per epoch under a header row.

    A new run starts the file afresh. A resumed run (`resume_epoch`: the epoch its checkpoint holds)
    keeps the rows up to that epoch and drops any written after the checkpoint it resumes from, so
    the log reads as one uninterrupted run.
    """

    def __init__(self, path, header, resume_epoch=None):
        kept = []
        if resume_epoch is not None and os.path.exists(path):
            with open(path, newline="") as f:
                rows = list(csv.reader(f))
            if rows and rows[0] == list(header):
                kept = [row for row in rows[1:] if row and int(row[0]) <= resume_epoch]
        self._file = open(path, "w", newline="")
        self._writer = csv.writer(self._file)
        self._writer.writerows([list(header)] + kept)
        self._file.flush()

    def write(self, row):
        """Append one row and flush it to disk."""
        self._writer.writerow(row)
        self._file.flush()

    def close(self):
        """Close the file."""
        self._file.close()


def save_grid_png(images, path, cols=4, scale=4):
    """Save a grid of [N, H, W] (or [N, H, W, 1]) images with values in [0, 1] as a PNG (Pillow)."""
    from PIL import Image
    images = np.asarray(images)
    if images.ndim == 4:
        images = images[..., 0]
    n, h, w = images.shape
    rows = (n + cols - 1) // cols
    grid = np.zeros((rows * h, cols * w), np.float32)
    for i, img in enumerate(images):
        r, c = divmod(i, cols)
        grid[r * h:(r + 1) * h, c * w:(c + 1) * w] = img
    pixels = (np.clip(grid, 0, 1) * 255).astype(np.uint8)
    Image.fromarray(pixels).resize((cols * w * scale, rows * h * scale), Image.NEAREST).save(path)
    return path
