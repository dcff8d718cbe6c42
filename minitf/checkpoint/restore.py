"""Restoring a checkpoint into an object graph: matching saved values to existing objects.

The saved values are arranged in a trie of path components (`trie`): from the keys and aliases
of minitf's older HDF5 files, or from the object graph of a TF-format checkpoint
(`object_graph.translate`, which also reads the ones TF writes). Restoring walks the current
object graph against it, naming children as the trie does: `_checkpoint_dependencies()` for
HDF5 files, `keras_view.restore_deps` for TF's format. Values whose variables exist are
validated (shape, dtype) all together before any is assigned, so a failed restore changes
nothing. Validation uses the shapes and dtypes the file declares, before any data is read
(`safe_h5`, `tensor_bundle`): a file that declares a huge value where a small variable is
expected is refused without allocating it. The values that no variable takes yet are read too
(for later, deferred restores) but must fit the file's read budget.

A saved object reached along several paths is one trie node (the aliases graft it); it is
restored into the first object matched there only (`_Restore.bind`), as TF does.

Values whose objects do not exist yet are deferred on the nearest existing parent
(`Trackable._defer_restore`) and applied when the parent calls `_track_child`; optimizer slot
values wait in the optimizer until the slot is created. A slot whose optimizer is not in the
graph yet (attached to the Checkpoint, or created, after `restore()`) waits in the restore
until an object with `_restore_slot` is matched at the optimizer's path.

As in TF, values left unused are reported (a warning, unless `expect_partial()`) when the
restore can no longer use them: once its status is gone and no object still holds a deferred
part of it. The restore refers to matched objects weakly so that this happens on time.
"""
import json
import os
import warnings
import weakref

from minitf import backend
from minitf.errors import errors
from minitf.checkpoint import (graph, h5format, keras_view, object_graph, protos, safe_h5,
                               tensor_bundle, trie)
from minitf.checkpoint.proto_wire import WireError
from minitf.trackable import Trackable
from minitf.variable import Variable
from minitf.api_export import export

__all__ = ["restore_into", "CheckpointLoadStatus", "InitializationOnlyStatus", "ALIASES_ATTR"]


class _Restore:
    """The shared state of one restore: file values, what was used, objects by path."""

    def __init__(self, path, values, root, deps=None, saveable=None):
        self.path = path
        self.values = values  # {key: declared Entry} while planning, then {key: numpy array}
        # how objects name their children here, and which variables a full restore covers
        self.deps = deps or (lambda obj: obj._checkpoint_dependencies())
        self.saveable = saveable or graph.saveable_variables
        self.checked = set()  # keys already validated against a variable
        self.consumed = set()
        self.restored_ids = set()
        self.silenced = False
        self._objects = {}  # checkpoint path -> weak reference to the matched Trackable
        self.planned = set()  # keys already headed for a variable (now or on creation)
        self.orphan_slots = []  # (var, optimizer path, slot name, key) before the optimizer
        self._bound = {}  # id(trie node) -> weak reference to the object it was restored into
        self.root_ref = weakref.ref(root) if _weakrefable(root) else (lambda r=root: r)

    def remember(self, path, obj):
        """Note that `obj` was matched at checkpoint `path` (held weakly: no cycle through the
        deferred restorers that objects hold)."""
        self._objects[path] = weakref.ref(obj) if _weakrefable(obj) else (lambda o=obj: o)

    def object_at(self, path):
        """The object matched at `path`, or None."""
        ref = self._objects.get(path)
        return ref() if ref is not None else None

    def bind(self, node, obj):
        """Claim trie `node` for `obj`; False if another live object already has it.

        As in TF, one saved object is restored into one object: a variable saved once and
        reachable by two paths ('listed/0' and 'mapped/one') gives its value to the first object
        attached at either path, and a different object attached later at the other path keeps
        its own value.
        """
        ref = self._bound.get(id(node))
        current = ref() if ref is not None else None
        if current is not None:
            return current is obj
        self._bound[id(node)] = weakref.ref(obj) if _weakrefable(obj) else (lambda o=obj: o)
        return True

    def unused_keys(self):
        """Checkpoint value keys not restored (so far)."""
        return sorted(k for k in self.values
                      if k.endswith(graph.VALUE_SUFFIX) and k not in self.consumed)

    def __del__(self):
        if self.silenced:
            return
        try:
            unused = self.unused_keys()
        except Exception:  # interpreter shutdown
            return
        if unused:
            warnings.warn(f"Checkpoint {self.path!r} was restored partially; values "
                          f"never used: {unused[:10]}{' ...' if len(unused) > 10 else ''}. "
                          "Call expect_partial() on the load status to silence this.",
                          stacklevel=2)

    def check(self, key, var):
        """Refuse value `key` for `var` unless shape and dtype match (before it is read:
        IncompatibleValueError, both TF's ValueError and minitf's DataLossError)."""
        value = self.values[key]
        if getattr(value, "dtype", None) is None:
            raise safe_h5.IncompatibleValueError(
                None, None, f"Checkpoint {self.path!r}: value {key!r} holds "
                f"{getattr(value, 'dtype_name', 'no numbers')}, which variable {var.name} "
                f"({var.dtype.name}) cannot take.")
        if tuple(value.shape) != tuple(var._value.shape):
            raise safe_h5.IncompatibleValueError(
                None, None, f"Checkpoint {self.path!r}: value {key!r} has shape "
                f"{tuple(value.shape)} but variable {var.name} has shape "
                f"{tuple(var._value.shape)}; the shapes must match to restore.")
        declared = getattr(value, "dtype_name", None)
        if value.dtype != var._value.dtype or (declared and declared != var.dtype.name):
            raise safe_h5.IncompatibleValueError(
                None, None, f"Checkpoint {self.path!r}: value {key!r} has dtype "
                f"{declared or value.dtype} but variable {var.name} has dtype {var.dtype.name}; "
                "the dtypes must match to restore.")
        self.checked.add(key)

    def load(self, store):
        """Replace the declared entries by their data: values checked against a variable are
        read as they are; the rest must first fit the file's read budget together."""
        unchecked = [e for k, e in self.values.items()
                     if k not in self.checked and getattr(e, "numeric", True)]
        store.check_budget(unchecked)
        # what no variable can take (strings, a dataset iterator's state) stays declared only
        self.values = {k: store.read(e, shape=e.shape if k in self.checked else None)
                       if k in self.checked or getattr(e, "numeric", True) else e
                       for k, e in self.values.items()}

    def assign(self, key, var, copy=False):
        value = self.values[key]
        xp = backend.array_module(var._value)
        var._set(xp.array(value, copy=True) if copy or xp.__name__ != "numpy" else value)
        self.consumed.add(key)
        self.restored_ids.add(var._id)


def _weakrefable(obj):
    try:
        weakref.ref(obj)
        return True
    except TypeError:
        return False


class _SubtreeRestorer:
    """Deferred restoration of a checkpoint subtree, applied to an object created later."""

    def __init__(self, restore, node, path):
        self.restore, self.node, self.path = restore, node, path

    def __call__(self, child):
        plan = []
        _match_child(self.restore, child, self.node, self.path, plan)
        for check in plan:  # deferred values: validate then assign, still all-or-nothing
            check[0]()
        for item in plan:
            item[1]()

    def descend(self, parts):
        node = self.node.find(parts)
        if node is None:
            return None
        return _SubtreeRestorer(self.restore, node, self.path + "/" + "/".join(parts))


def _match_child(restore, child, node, path, plan, seen=None):
    """Plan the restoration of `child` from trie `node`; defer what cannot be matched yet."""
    if not restore.bind(node, child):
        return
    if isinstance(child, Trackable):
        restore.remember(path, child)  # every path it is reached by (slots name any of them)
        if hasattr(child, "_restore_slot"):
            _adopt_orphan_slots(restore, path, plan)
    if isinstance(child, Variable):
        if node.key is not None:
            key = node.key
            restore.planned.add(key)
            plan.append((lambda k=key: restore.check(k, child),
                         lambda k=key: restore.assign(k, child)))
        for opt_path, slot_name, key in node.slots:
            _plan_slot(restore, child, opt_path, slot_name, key, plan)
        return
    if not isinstance(child, Trackable):
        return
    seen = seen if seen is not None else set()
    if id(child) in seen:
        return
    seen.add(id(child))
    used = set()
    for name, grandchild in restore.deps(child):
        parts = name.split("/")
        used.add(parts[0])
        sub = node.find(parts)
        if sub is not None:
            _match_child(restore, grandchild, sub, f"{path}/{name}" if path else name, plan, seen)
    for part, sub in node.children.items():
        if part in used and not _has_unclaimed(restore, sub):
            continue
        if _has_unclaimed(restore, sub):
            child._defer_restore(part, _SubtreeRestorer(restore, sub,
                                                        f"{path}/{part}" if path else part))


def _has_unclaimed(restore, node):
    return any(k not in restore.consumed and k not in restore.planned for k in node.keys())


def _plan_slot(restore, var, opt_path, slot_name, key, plan):
    optimizer = restore.object_at(opt_path)
    if optimizer is None or not hasattr(optimizer, "_restore_slot"):
        restore.orphan_slots.append((var, opt_path, slot_name, key))
        return
    if key in restore.planned:
        return  # matched already (a TF-format optimizer's `_variables/<i>` edge)
    slot_name = keras_view.slot_name(optimizer, slot_name)
    if slot_name is None:
        return
    restore.planned.add(key)
    slot = optimizer._slots.get(var._id, {}).get(slot_name)
    if slot is not None:
        plan.append((lambda k=key: restore.check(k, slot), lambda k=key: restore.assign(k, slot)))
        return

    def when_created(new_slot):
        restore.check(key, new_slot)
        restore.assign(key, new_slot, copy=True)
    optimizer._restore_slot(var, slot_name, when_created)


def _adopt_orphan_slots(restore, opt_path, plan):
    """Plan the slots that were waiting for an optimizer at `opt_path`, now that it is matched."""
    waiting = [item for item in restore.orphan_slots if item[1] == opt_path]
    if not waiting:
        return
    restore.orphan_slots = [item for item in restore.orphan_slots if item[1] != opt_path]
    for var, _, slot_name, key in waiting:
        _plan_slot(restore, var, opt_path, slot_name, key, plan)


ALIASES_ATTR = "object_aliases"


def _load_aliases(text):
    if not text:
        return {}
    try:
        aliases = json.loads(text)
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in aliases.items()} if isinstance(aliases, dict) else {}


def restore_into(root, prefix):
    """Restore checkpoint `prefix` into the graph under `root`; returns a CheckpointLoadStatus.

    A TF-format checkpoint ('<prefix>.index') is read if there is one, else minitf's older HDF5
    file ('<prefix>.h5'). Raises NotFoundError when neither exists.
    """
    prefix = os.fspath(prefix)
    if tensor_bundle.is_bundle(prefix):
        store = tensor_bundle.BundleReader(prefix)
        restore = _Restore(store.path, dict(store.entries), root, keras_view.restore_deps,
                           lambda obj: object_graph.build(obj)[1])
        restore.values.pop(graph.OBJECT_GRAPH_KEY, None)
    else:
        path = _h5_path(prefix)
        store = h5format.open_checkpoint(path)
        restore = _Restore(path, dict(store.entries), root)
    with store:
        plan = []
        # Slots met before their optimizer are adopted when the walk reaches it; the rest wait
        # for an optimizer attached later (`_adopt_orphan_slots` from a subtree restorer).
        try:
            if isinstance(store, tensor_bundle.BundleReader):
                root_trie = _bundle_trie(store, root)
            else:
                root_trie = trie.from_keys(restore.values)
                trie.graft_aliases(root_trie, _load_aliases(h5format.text_attrs(store).get(ALIASES_ATTR)))
            _match_child(restore, root, root_trie, "", plan)
            for check, _ in plan:
                check()
            restore.load(store)  # every value read (and checksummed) before any is assigned
        except BaseException:
            restore.silenced = True  # the error says it all; no "restored partially" warning
            raise
    for _, apply in plan:
        apply()
    return CheckpointLoadStatus(root, restore)


def _h5_path(prefix):
    for candidate in (h5format.data_path(prefix), prefix):
        if os.path.isfile(candidate) and candidate.endswith(h5format.SUFFIX):
            return candidate
    raise errors.NotFoundError(None, None, f"Failed to find any matching files for checkpoint "
                               f"{prefix!r} (looked for {tensor_bundle.index_path(prefix)!r} and "
                               f"{h5format.data_path(prefix)!r}).")


_MAX_NODES = 10_000_000


def read_object_graph(store):
    """The ObjectNode list of bundle `store`'s object graph, or None if it has none."""
    entry = store.entries.get(graph.OBJECT_GRAPH_KEY)
    if entry is None:
        return None
    if entry.dtype_name != "string" or entry.shape != ():
        raise store.refuse(entry.path, f"is {entry.dtype_name} of shape {list(entry.shape)}, not "
                            "the scalar string of a serialized object graph")
    try:
        return protos.decode_object_graph(store.read_strings(entry)[0], _MAX_NODES)
    except WireError as e:
        raise store.refuse(entry.path, f"is not a valid object graph: {e}") from None


def _bundle_trie(store, root):
    nodes = read_object_graph(store)
    if nodes is None:  # a bundle of plain keys (no object graph): matched by key, as HDF5 files
        return trie.from_keys(store.entries)
    for node in nodes:
        for name, _, key in node.attributes:
            if name == object_graph.VALUE_ATTRIBUTE and key not in store.entries:
                raise store.refuse(key, "is named by the object graph but not stored")
    return object_graph.translate(nodes, root)


@export("checkpoint.CheckpointLoadStatus")
class CheckpointLoadStatus:
    """What a restore matched: assertions about it, and a warning if values went unused."""

    def __init__(self, root, restore):
        self._root = root
        self._restore = restore

    def _unused_keys(self):
        return self._restore.unused_keys()

    def _unmatched_variables(self):
        current = self._restore.saveable(self._root)
        return sorted(key for key, var in current.items()
                      if var._id not in self._restore.restored_ids)

    def assert_consumed(self):
        """Every checkpoint value was restored and every current variable got a value."""
        unused = self._unused_keys()
        if unused:
            raise AssertionError(f"Unresolved values in checkpoint {self._restore.path!r} "
                                 f"(their objects do not exist or were not created yet): {unused}")
        self.assert_existing_objects_matched()
        return self

    def assert_existing_objects_matched(self):
        """Every variable that exists now in the object graph was restored."""
        missing = self._unmatched_variables()
        if missing:
            raise AssertionError(f"Variables not found in checkpoint {self._restore.path!r}: "
                                 f"{missing}")
        return self

    def assert_nontrivial_match(self):
        """Something besides the save counter was restored."""
        real = [k for k in self._restore.consumed if not k.startswith("save_counter/")]
        if not real:
            raise AssertionError(f"Nothing except the save counter matched checkpoint "
                                 f"{self._restore.path!r}; check the object names.")
        return self

    def expect_partial(self):
        """Silence the warning about checkpoint values left unused."""
        self._restore.silenced = True
        return self

    def run_restore_ops(self, session=None):
        """No-op in eager mode (values are restored already)."""

    def initialize_or_restore(self, session=None):
        """No-op in eager mode (values are restored already)."""


class InitializationOnlyStatus:
    """The status of `restore(None)`: nothing is restored."""

    def assert_consumed(self):
        """Always fails: no checkpoint was given."""
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    assert_existing_objects_matched = assert_consumed
    assert_nontrivial_match = assert_consumed

    def expect_partial(self):
        """Nothing to silence."""
        return self

    def run_restore_ops(self, session=None):
        """No-op."""

    def initialize_or_restore(self, session=None):
        """No-op."""
