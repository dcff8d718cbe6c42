"""tf.saved_model.SaveOptions, LoadOptions and Asset."""
import os

from minitf.ops.constant import constant
from minitf.trackable import Trackable
from minitf.api_export import export

__all__ = ["SaveOptions", "LoadOptions", "Asset"]


@export("saved_model.SaveOptions")
class SaveOptions:
    """Options for `tf.saved_model.save` (TF's arguments, accepted; see each for what minitf does).

    Args:
      namespace_whitelist: accepted (minitf writes only TF's own ops).
      save_debug_info: accepted; no debug info is written.
      function_aliases: {alias: tf.function}, recorded in the MetaInfoDef.
      experimental_custom_gradients: accepted; gradients of loaded functions are computed from
        their ops (custom gradient functions are not saved).
      extra_tags: tags added to 'serve' on the MetaGraphDef.
      The other experimental_* arguments are accepted and have no effect.
    """

    def __init__(self, namespace_whitelist=None, save_debug_info=False, function_aliases=None,
                 experimental_debug_stripper=False, experimental_io_device=None,
                 experimental_variable_policy=None, experimental_custom_gradients=True,
                 experimental_image_format=False, experimental_skip_saver=False,
                 experimental_sharding_callback=None, extra_tags=None):
        self.namespace_whitelist = list(namespace_whitelist or [])
        self.save_debug_info = save_debug_info
        self.function_aliases = dict(function_aliases or {})
        self.experimental_debug_stripper = experimental_debug_stripper
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_custom_gradients = experimental_custom_gradients
        self.experimental_image_format = experimental_image_format
        self.experimental_skip_saver = experimental_skip_saver
        self.experimental_sharding_callback = experimental_sharding_callback
        self.extra_tags = extra_tags


@export("saved_model.LoadOptions")
class LoadOptions:
    """Options for `tf.saved_model.load`.

    Args:
      allow_partial_checkpoint: load even when some variables have no value in the checkpoint
        (they keep zeros) instead of raising.
      experimental_skip_checkpoint: do not read the variables (they keep zeros).
      The other arguments are accepted and have no effect.
    """

    def __init__(self, allow_partial_checkpoint=False, experimental_io_device=None,
                 experimental_skip_checkpoint=False, experimental_variable_policy=None,
                 experimental_load_function_aliases=False):
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_io_device = experimental_io_device
        self.experimental_skip_checkpoint = experimental_skip_checkpoint
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_load_function_aliases = experimental_load_function_aliases


@export("saved_model.Asset")
class Asset(Trackable):
    """A file a SavedModel carries along (a vocabulary, say): saving copies it into the
    SavedModel's `assets/` directory; a loaded Asset's `asset_path` names that copy.

    Args:
      path: the file's path (a string or a scalar string tensor).
    """

    _saved_model_identifier = "asset"

    def __init__(self, path):
        if hasattr(path, "numpy"):
            path = path.numpy()
        self._path = os.fsdecode(path)

    @property
    def asset_path(self):
        """The file's path, a scalar string tensor."""
        return constant(self._path)

    def __repr__(self):
        return f"<tf.saved_model.Asset {self._path!r}>"
