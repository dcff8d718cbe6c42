"""tf.io.gfile: the standard library's file functions under TF's names, for local paths."""
import glob as _glob
import os as _os
import shutil as _shutil

from minitf.api_export import export as _export


@_export("io.gfile")
class gfile:  # noqa: N801 (TF's module name)
    """tf.io.gfile for local files: exists, glob, makedirs, mkdir, listdir, isdir, remove,
    rename, rmtree, copy, join, walk, stat and GFile (an `open` with TF's mode names)."""

    exists = staticmethod(_os.path.exists)
    isdir = staticmethod(_os.path.isdir)
    join = staticmethod(_os.path.join)
    listdir = staticmethod(_os.listdir)
    remove = staticmethod(_os.remove)
    rmtree = staticmethod(_shutil.rmtree)
    walk = staticmethod(_os.walk)
    stat = staticmethod(_os.stat)

    @staticmethod
    def glob(pattern):
        """The paths matching `pattern`, sorted."""
        return sorted(_glob.glob(pattern))

    @staticmethod
    def makedirs(path):
        """Create `path` and its missing parents (an existing directory is fine)."""
        _os.makedirs(path, exist_ok=True)

    @staticmethod
    def mkdir(path):
        """Create the directory `path` (its parent must exist)."""
        _os.mkdir(path)

    @staticmethod
    def rename(src, dst, overwrite=False):
        """Rename `src` to `dst`; an existing `dst` is an error unless `overwrite`."""
        if not overwrite and _os.path.exists(dst):
            raise FileExistsError(f"rename: {dst!r} exists; pass overwrite=True to replace it")
        _os.replace(src, dst)

    @staticmethod
    def copy(src, dst, overwrite=False):
        """Copy file `src` to `dst`; an existing `dst` is an error unless `overwrite`."""
        if not overwrite and _os.path.exists(dst):
            raise FileExistsError(f"copy: {dst!r} exists; pass overwrite=True to replace it")
        _shutil.copyfile(src, dst)

    @staticmethod
    def GFile(name, mode="r"):  # noqa: N802 (TF's name)
        """An open file object for `name` (the built-in `open`)."""
        return open(name, mode)
