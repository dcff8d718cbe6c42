"""Restoring a checkpoint into an object graph: matching saved keys to existing objects.

The saved keys are arranged in a trie of path components. Restoring walks the current object
graph against it. Values whose variables exist are validated (shape, dtype) all together before
any is assigned, so a failed restore changes nothing. Validation uses the shapes and dtypes the
file declares, before any data is read (`safe_h5`): a file that declares a huge value where a
small variable is expected is refused without allocating it. The values that no variable takes
yet are read too (for later, deferred restores) but must fit the file's read budget.

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
import warnings
import weakref

from minitf import backend
from minitf.checkpoint import graph, h5format, safe_h5
from minitf.trackable import Trackable
from minitf.variable import Variable

__all__ = ["restore_into", "CheckpointLoadStatus", "InitializationOnlyStatus", "ALIASES_ATTR"]


class _Node:
    """One step of the checkpoint's key trie: children by name, a value key, slot keys."""

    __slots__ = ("children", "key", "slots")

    def __init__(self):
        self.children = {}
        self.key = None
        self.slots = []  # (optimizer path, slot name, key)

    def find(self, parts):
        node = self
        for part in parts:
            node = node.children.get(part)
            if node is None:
                return None
        return node

    def keys(self, _seen=None):
        """Every checkpoint key in this subtree (a node shared through an alias counts once)."""
        seen = _seen if _seen is not None else set()
        if id(self) in seen:
            return []
        seen.add(id(self))
        out = [self.key] if self.key else []
        out.extend(key for _, _, key in self.slots)
        for child in self.children.values():
            out.extend(child.keys(seen))
        return out


def _build_trie(keys):
    root = _Node()
    for key in keys:
        if not key.endswith(graph.VALUE_SUFFIX):
            continue
        body = key[:-len(graph.VALUE_SUFFIX)]
        if graph.SLOT_MARK in body:
            var_path, rest = body.split(graph.SLOT_MARK, 1)
            opt_path, _, slot_name = rest.rpartition("/")
            _descend_create(root, var_path).slots.append((opt_path, slot_name, key))
        else:
            _descend_create(root, body).key = key
    return root


def _graft_aliases(root, aliases):
    """Make each alias path lead to the same trie node as the path it stands for."""
    for alias, target in aliases.items():
        if target == alias or alias.startswith(target + "/"):
            continue  # a path back into its own subtree would make the trie a cycle
        node = root.find(target.split("/"))
        if node is None:
            continue
        parent_path, _, last = alias.rpartition("/")
        parent = _descend_create(root, parent_path) if parent_path else root
        parent.children.setdefault(last, node)


def _descend_create(node, path):
    for part in path.split("/"):
        node = node.children.setdefault(part, _Node())
    return node


class _Restore:
    """The shared state of one restore: file values, what was used, objects by path."""

    def __init__(self, path, values, root):
        self.path = path
        self.values = values  # {key: safe_h5.Entry} while planning, then {key: numpy array}
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
        if tuple(value.shape) != tuple(var._value.shape):
            raise safe_h5.IncompatibleValueError(
                None, None, f"Checkpoint {self.path!r}: value {key!r} has shape "
                f"{tuple(value.shape)} but variable {var.name} has shape "
                f"{tuple(var._value.shape)}; the shapes must match to restore.")
        if value.dtype != var._value.dtype:
            raise safe_h5.IncompatibleValueError(
                None, None, f"Checkpoint {self.path!r}: value {key!r} has dtype {value.dtype} but "
                f"variable {var.name} has dtype {var._value.dtype}; the dtypes must match to "
                "restore.")
        self.checked.add(key)

    def load(self, store):
        """Replace the declared entries by their data: values checked against a variable are
        read as they are; the rest must first fit the file's read budget together."""
        unchecked = [e for k, e in self.values.items() if k not in self.checked]
        store.check_budget(unchecked)
        self.values = {k: store.read(e, shape=e.shape if k in self.checked else None)
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
    restore.remember(path, child)
    if hasattr(child, "_restore_slot"):
        _adopt_orphan_slots(restore, path, plan)
    used = set()
    for name, grandchild in child._checkpoint_dependencies():
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
    """Restore checkpoint `prefix` into the graph under `root`; returns a CheckpointLoadStatus."""
    path = h5format.find_data_path(prefix)
    with h5format.open_checkpoint(path) as store:
        restore = _Restore(path, dict(store.entries), root)
        trie = _build_trie(restore.values)
        _graft_aliases(trie, _load_aliases(h5format.text_attrs(store).get(ALIASES_ATTR)))
        plan = []
        # Slots met before their optimizer are adopted when the walk reaches it; the rest wait
        # for an optimizer attached later (`_adopt_orphan_slots` from a subtree restorer).
        try:
            _match_child(restore, root, trie, "", plan)
            for check, _ in plan:
                check()
            restore.load(store)  # every value read (and checksummed) before any is assigned
        except BaseException:
            restore.silenced = True  # the error says it all; no "restored partially" warning
            raise
    for _, apply in plan:
        apply()
    return CheckpointLoadStatus(root, restore)


class CheckpointLoadStatus:
    """What a restore matched: assertions about it, and a warning if values went unused."""

    def __init__(self, root, restore):
        self._root = root
        self._restore = restore

    def _unused_keys(self):
        return self._restore.unused_keys()

    def _unmatched_variables(self):
        current = graph.saveable_variables(self._root)
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
