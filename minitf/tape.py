"""GradientTape: walks the records that ops leave through `minitf.recording`.

Every differentiable op calls `record(op, inputs, outputs, grad_fn)` when `thread_state.active`
is non-empty (one attribute check on the fast path). A tape keeps a record only when one of the
op's inputs is watched by it; the outputs then become watched too. Gradient functions are
written with minitf ops, so a tape that is still recording while another one runs its backward
pass records that pass: nested tapes give higher-order derivatives with no extra machinery.

Gradient function contract: `grad_fn(*upstream)` gets one cotangent per output and returns the
cotangent of each input (one value for a single input, else a tuple). An entry may be None
(no gradient) or a zero-argument callable, evaluated only when that input needs a gradient.
Cotangents may carry extra leading batch dimensions (vectorized jacobians); ops whose rules
allow that are declared `Op(..., batchable=True)`.
"""
import contextlib
import enum
import logging

from minitf.errors import errors
from minitf.nest import nest
from minitf.convert import convert_to_tensor
from minitf.indexed_slices import IndexedSlices
from minitf.ops.array import broadcast_to, concat, eye_like_seed, ones_like, reshape, stack, transpose, zeros
from minitf.ops.constant import cast
from minitf.ops.reduce import reduce_sum
from minitf.recording import thread_state
from minitf.tensor import Tensor
from minitf.variable import Variable
from minitf.api_export import export

__all__ = ["GradientTape", "UnconnectedGradients"]

_log = logging.getLogger("minitf")


@export("UnconnectedGradients")
class UnconnectedGradients(enum.Enum):
    """What `gradient` returns for a source the target does not depend on."""
    NONE = "none"
    ZERO = "zero"


def check_unconnected(value):
    try:
        return UnconnectedGradients(value.value if isinstance(value, UnconnectedGradients) else value)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}; use "
                         "tf.UnconnectedGradients.NONE, tf.UnconnectedGradients.ZERO, 'none' or 'zero'.") from None


def _differentiable(x):
    return x._value.dtype.kind in "fc"


def _not_differentiable(value, arg):
    """TF's error for a `target`/`sources` entry that is no tensor or variable: TypeError for a
    string, None (or a float target), which TF cannot take as a dtype; AttributeError for other
    values, whose missing .dtype TF trips on."""
    if isinstance(value, (str, bytes)) or value is None or (arg == "target" and isinstance(value, float)):
        raise TypeError(f"GradientTape.gradient: `{arg}` must hold tensors or variables, got {value!r}")
    if arg == "sources" or not hasattr(value, "__tf_tensor__"):
        raise AttributeError(f"GradientTape.gradient: `{arg}` must hold tensors or variables (with a "
                             f".dtype), got {type(value).__name__} {value!r}")


def _output_gradient(og, target):
    """An output gradient as a tensor of the target's dtype; one that cannot be, as TF's Mul with
    it fails (InvalidArgumentError)."""
    try:
        return convert_to_tensor(og, dtype=target.dtype)
    except (TypeError, ValueError):
        given = convert_to_tensor(og)
        raise errors.invalid_argument("Mul", f"GradientTape.gradient: an output_gradients entry of dtype "
                                             f"{given.dtype.name} for a {target.dtype.name} target; cast it") from None


@export("GradientTape", "autodiff.GradientTape")
class GradientTape:
    """Records the ops run on watched values, so their gradients can be computed afterwards.

    Inside `with tf.GradientTape() as tape:` every op whose input is watched is recorded;
    `tape.gradient(target, sources)` then walks those records backwards (reverse-mode
    differentiation). Trainable variables are watched the moment they are read; tensors are
    watched with `tape.watch(x)`. The gradient rules are themselves minitf ops, so a tape that
    is still recording while an inner tape computes a gradient records that computation too:
    nesting tapes gives second and higher derivatives.

    Args:
      persistent: False (the default) lets the tape answer one `gradient`, `jacobian` or
        `batch_jacobian` call, after which its records are freed. True keeps them for any
        number of calls; drop the tape (`del tape`) to free the memory.
      watch_accessed_variables: True (the default) watches every trainable variable read
        while the tape is recording. With False only what `watch()` names is watched. A layer
        builds its variables on its first call, so with False and an unbuilt layer there is
        nothing to `watch()` before the call, and the gradients come back None: build the
        layer first (call it once, or `layer.build(shape)`), then watch its variables.

    Raises:
      RuntimeError: when a non-persistent tape is asked a second time, or re-entered after
        answering.
    """

    _forward = False  # recording.record keeps this tape's records (accumulators say True)

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._recording = False
        self._records = []
        self._watched = set()
        self._watched_variables = {}  # id -> variable

    # -- context -------------------------------------------------------------------------
    def __enter__(self):
        graph = thread_state.graph
        if graph is not None:  # inside a traced function: a node of its graph
            graph.tape_step(self, "enter")
            return self
        self._push()
        return self

    def __exit__(self, *exc):
        graph = thread_state.graph
        if graph is not None:
            graph.tape_step(self, "exit")
            return False
        if self._recording:
            self._pop()
        return False

    def _push(self):
        if self._records is None:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set "
                               "of gradients (or jacobians); create a new tape or pass persistent=True.")
        thread_state.active = thread_state.active + [self]  # copy: iteration in record() stays valid
        self._recording = True

    def _pop(self):
        thread_state.active = [t for t in thread_state.active if t is not self]
        self._recording = False

    # -- watching ------------------------------------------------------------------------
    def watch(self, tensor):
        """Record the ops that use `tensor` from now on, so gradients with respect to it exist.

        Args:
          tensor: a Tensor, a Variable, or a nested structure (list, tuple, dict) of them.
            Integer tensors are accepted with a warning: their gradients are always None.

        Raises:
          ValueError: for anything else (a numpy array, a Python number): convert it first
            with `tf.convert_to_tensor` and watch the result.
        """
        graph = thread_state.graph
        if graph is not None:
            graph.tape_step(self, "watch", (tensor,))
            return
        for item in nest.flatten(tensor):
            if isinstance(item, Variable):
                self._watch_variable(item)
            elif isinstance(item, Tensor):
                if not _differentiable(item):
                    _log.warning("The dtype of the watched tensor must be floating (e.g. tf.float32), "
                                 "got %s", item.dtype.name)
                if self._watched is not None:
                    self._watched.add(item._id)
            else:
                raise ValueError(f"Passed in object {item!r} of type {type(item).__name__!r}, not "
                                 "tf.Tensor or tf.Variable; watch() accepts tensors, variables and "
                                 "nested structures of them.")

    def _watch_variable(self, variable):
        if variable._id not in self._watched_variables:
            self._watched_variables[variable._id] = variable
        if self._watched is not None:
            self._watched.add(variable._id)

    def watched_variables(self):
        """The variables this tape watches, in the order they were created (as TF lists them)."""
        return tuple(self._watched_variables[i] for i in sorted(self._watched_variables))

    @contextlib.contextmanager
    def stop_recording(self):
        """Temporarily stop recording on this tape (RuntimeError if it is not recording)."""
        if not self._recording:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        graph = thread_state.graph
        if graph is not None:
            graph.tape_step(self, "pause")
            try:
                yield
            finally:
                graph.tape_step(self, "resume")
            return
        self._pop()
        try:
            yield
        finally:
            self._push()

    def reset(self):
        """Forget everything recorded and watched, as if the context were re-entered."""
        graph = thread_state.graph
        if graph is not None:
            graph.tape_step(self, "reset")
            return
        self._records = []
        self._watched = set()
        self._watched_variables = {}

    # -- gradients -----------------------------------------------------------------------
    def _begin_answer(self, what):
        if self._records is None:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set "
                               f"of gradients (or jacobians); this {what} call came after the first. "
                               "Use GradientTape(persistent=True) to ask several times.")
        if self._recording:
            if not self._persistent:
                self._pop()
            else:
                _log.info("Calling GradientTape.%s on a persistent tape inside its context records "
                          "the gradient computation too, which is slower.", what)

    def _finish_answer(self):
        if not self._persistent:
            self._records = None
            self._watched = None

    def _target_tensor(self, target):
        if isinstance(target, Variable):
            # Read the variable as if inside the tape, as TF does, so d(v)/d(v) is one.
            saved = thread_state.active
            thread_state.active = saved + [self] if self not in saved else saved
            self._watched = self._watched if self._watched is not None else set()
            try:
                return target.value()
            finally:
                thread_state.active = saved
        if not isinstance(target, Tensor):
            _not_differentiable(target, "target")
        return convert_to_tensor(target)

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """The gradient of `target` with respect to each of `sources`.

        Args:
          target: a Tensor or Variable, or a nested structure of them; a non-scalar target
            (and a structure of targets) is differentiated as the sum of its elements.
          sources: a Tensor or Variable, or a nested structure of them.
          output_gradients: optional cotangents, one per flattened target (None means ones),
            broadcast to the target's shape: `gradient` then returns the vector-jacobian
            product with them instead of the gradient of the sum.
          unconnected_gradients: what a source the target does not depend on gets:
            `tf.UnconnectedGradients.NONE` / `"none"` (the default) gives None,
            `tf.UnconnectedGradients.ZERO` / `"zero"` gives zeros of the source's shape.

        Returns:
          The structure of `sources`, holding for each source a Tensor of its shape and dtype,
          an IndexedSlices (a variable used through `tf.gather`), or None.

        Raises:
          RuntimeError: on a second call to a non-persistent tape.
          ValueError: when a source is not a tensor or variable, when `output_gradients` has
            the wrong number of entries, or for an unknown `unconnected_gradients` value.
        """
        graph = thread_state.graph
        if graph is not None:
            return graph.tape_answer(self, "gradient", (target, sources),
                                     {"output_gradients": output_gradients,
                                      "unconnected_gradients": unconnected_gradients})
        if target is None:
            raise TypeError("GradientTape.gradient: argument `target` should be a tensor, variable or nested "
                            "structure of them to be differentiated, but received None.")
        self._begin_answer("gradient")
        unconnected = check_unconnected(unconnected_gradients)
        flat_targets = [self._target_tensor(t) for t in nest.flatten(target)]
        flat_sources = self._flat_sources(sources)
        seeds = self._seeds(flat_targets, output_gradients)
        grads = backprop(self._records, flat_targets, seeds, flat_sources, batch_ndim=0)
        grads = self._only_watched(grads, flat_sources)
        self._finish_answer()
        out = [_unconnected(g, s, unconnected, ()) for g, s in zip(grads, flat_sources)]
        return nest.pack_sequence_as(sources, out)

    def _only_watched(self, grads, sources):
        """None for a source this tape neither watches nor computed (TF: a constant the tape
        never saw has no gradient, even when recorded ops took it as an input)."""
        watched = self._watched
        return [g if watched is None or s._id in watched else None for g, s in zip(grads, sources)]

    @staticmethod
    def _flat_sources(sources):
        flat = nest.flatten(sources)
        for s in flat:
            if not isinstance(s, (Tensor, Variable)):
                _not_differentiable(s, "sources")
        return flat

    @staticmethod
    def _seeds(flat_targets, output_gradients):
        if output_gradients is None:
            return [ones_like(t) for t in flat_targets]
        flat_og = nest.flatten(output_gradients)
        # as TF: extra entries are ignored and missing ones count as None (ones)
        flat_og = flat_og[:len(flat_targets)] + [None] * (len(flat_targets) - len(flat_og))
        if len(flat_og) != len(flat_targets):
            raise ValueError(f"output_gradients has {len(flat_og)} entries but there are "
                             f"{len(flat_targets)} targets; pass one per target (None for ones).")
        seeds = []
        for t, og in zip(flat_targets, flat_og):
            if og is None:
                seeds.append(ones_like(t))
            else:
                og = _output_gradient(og, t)
                if tuple(og.shape) != tuple(t.shape):
                    og = broadcast_to(og, t._value.shape)
                seeds.append(og)
        return seeds

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """The full jacobian of `target` with respect to each source.

        When every op between the sources and the target declares a batchable gradient rule,
        all target elements are differentiated in one backward pass over a batch of one-hot
        cotangents; otherwise there is one backward pass per target element.

        Args:
          target: a Tensor (or Variable) of any shape.
          sources: a Tensor or Variable, or a nested structure of them.
          unconnected_gradients: None or zeros for unconnected sources, as in `gradient`.
          parallel_iterations: accepted for TF compatibility; minitf ignores it.
          experimental_use_pfor: True (the default) allows the one-pass form; False always
            loops and needs a persistent tape, as in TF.

        Returns:
          The structure of `sources` with a Tensor of shape `target.shape + source.shape`
          (or None) for each source.

        Raises:
          RuntimeError: on a second call to a non-persistent tape, or with
            `experimental_use_pfor=False` on a non-persistent tape.
        """
        if not experimental_use_pfor and not self._persistent:
            raise RuntimeError("GradientTape must be created with persistent=True to compute the "
                               "jacobian with experimental_use_pfor=False.")
        graph = thread_state.graph
        if graph is not None:
            return graph.tape_answer(self, "jacobian", (target, sources),
                                     {"unconnected_gradients": unconnected_gradients,
                                      "experimental_use_pfor": experimental_use_pfor})
        self._begin_answer("jacobian")
        unconnected = check_unconnected(unconnected_gradients)
        target = self._target_tensor(target)
        flat_sources = self._flat_sources(sources)
        tshape = tuple(target._value.shape)
        n = target._value.size
        if experimental_use_pfor and path_is_batchable(self._records, [target], flat_sources):
            seed = eye_like_seed(target, n, (n,) + tshape)
            grads = backprop(self._records, [target], [seed], flat_sources, batch_ndim=1)
            out = [None if g is None else reshape(g, tshape + tuple(s._value.shape))
                   for g, s in zip(grads, flat_sources)]
        else:
            per_element = []
            for i in range(n):
                seed = eye_like_seed(target, n, (n,) + tshape)[i]
                per_element.append(backprop(self._records, [target], [seed], flat_sources, 0))
            out = []
            for k, s in enumerate(flat_sources):
                column = [row[k] for row in per_element]
                if n == 0 or all(g is None for g in column):
                    out.append(None)
                    continue
                column = [g if g is not None else _zeros(s, ()) for g in column]
                out.append(reshape(stack(column), tshape + tuple(s._value.shape)))
        self._finish_answer()
        out = [_unconnected(g, s, unconnected, tshape) for g, s in zip(out, flat_sources)]
        return nest.pack_sequence_as(sources, out)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example jacobians of a batch: `result[i] = d target[i] / d source[i]`.

        Only correct when example `i` of the target depends on example `i` of the source
        alone (no batch normalization across the batch, for example).

        Args:
          target: a Tensor of shape `[b, ...]`.
          source: a Tensor or Variable of shape `[b, ...]` with the same first dimension.
          unconnected_gradients: None or zeros when unconnected, as in `gradient`.
          parallel_iterations: accepted for TF compatibility; minitf ignores it.
          experimental_use_pfor: as in `jacobian`.

        Returns:
          A Tensor of shape `[b] + target.shape[1:] + source.shape[1:]`, or None.

        Raises:
          ValueError: when target and source disagree on the first dimension, or either is a
            scalar.
          RuntimeError: as in `jacobian`.
        """
        if not experimental_use_pfor and not self._persistent:
            raise RuntimeError("GradientTape must be created with persistent=True to compute the "
                               "batch_jacobian with experimental_use_pfor=False.")
        graph = thread_state.graph
        if graph is not None:
            return graph.tape_answer(self, "batch_jacobian", (target, source),
                                     {"unconnected_gradients": unconnected_gradients,
                                      "experimental_use_pfor": experimental_use_pfor})
        self._begin_answer("batch_jacobian")
        unconnected = check_unconnected(unconnected_gradients)
        target = self._target_tensor(target)
        [source] = self._flat_sources(source)
        tshape, sshape = tuple(target._value.shape), tuple(source._value.shape)
        if not tshape or not sshape or tshape[0] != sshape[0]:
            raise ValueError(f"Need first dimension of target shape ({tshape}) and source shape "
                             f"({sshape}) to match.")
        m = 1
        for d in tshape[1:]:
            m *= d
        seeds = eye_like_seed(target, m, (m, 1) + tshape[1:])  # one-hot per target element
        if experimental_use_pfor and path_is_batchable(self._records, [target], [source]):
            seed = broadcast_to(seeds, (m,) + tshape)
            [g] = backprop(self._records, [target], [seed], [source], batch_ndim=1)
            if g is not None:  # [m, b, *sshape[1:]] -> [b, m, *sshape[1:]]
                perm = [1, 0] + list(range(2, g.ndim))
                g = reshape(transpose(g, perm), tshape + sshape[1:])
        else:
            rows = []
            for j in range(m):
                seed = broadcast_to(seeds[j], tshape)
                rows.append(backprop(self._records, [target], [seed], [source], 0)[0])
            if m == 0 or all(r is None for r in rows):
                g = None
            else:
                rows = [r if r is not None else _zeros(source, ()) for r in rows]
                g = reshape(stack(rows, axis=1), tshape + sshape[1:])
        self._finish_answer()
        if g is None and unconnected is UnconnectedGradients.ZERO:
            g = zeros(tshape + sshape[1:], dtype=source.dtype)
        return g


def _zeros(source, prefix):
    return zeros(tuple(prefix) + tuple(source._value.shape), dtype=source.dtype)


def _unconnected(grad, source, mode, prefix):
    if grad is None and mode is UnconnectedGradients.ZERO:
        return _zeros(source, prefix)
    return grad


def _relevant_ids(records, sources):
    """Ids of tensors that depend on a source (forward reachability over the records)."""
    relevant = {s._id for s in sources}
    for _, inputs, outputs, _ in records:
        for x in inputs:
            if x._id in relevant:
                for out in outputs:
                    relevant.add(out._id)
                break
    return relevant


def path_is_batchable(records, targets, sources):
    relevant = _relevant_ids(records, sources)
    needed = {t._id for t in targets}
    for op, inputs, outputs, _ in reversed(records):
        if any(o._id in needed for o in outputs) and any(x._id in relevant for x in inputs):
            if not op.batchable:
                return False
            needed.update(x._id for x in inputs)
    return True


def _dense(g):
    return g.to_dense() if isinstance(g, IndexedSlices) else g


def unbroadcast(grad, shape, batch_ndim):
    """Sum `grad` down to batch dims + `shape`, undoing numpy broadcasting in the forward op."""
    gshape = grad._value.shape
    if gshape[batch_ndim:] == shape:
        return grad
    extra = len(gshape) - batch_ndim - len(shape)
    axes = list(range(batch_ndim, batch_ndim + extra))
    for i, d in enumerate(shape):
        if d == 1 and gshape[batch_ndim + extra + i] != 1:
            axes.append(batch_ndim + extra + i)
    if axes:
        grad = reduce_sum(grad, axis=axes)
    return reshape(grad, gshape[:batch_ndim] + tuple(shape))


def _accumulate(a, b):
    """The sum of two cotangents; two IndexedSlices stay sparse (their rows are concatenated)."""
    if isinstance(a, IndexedSlices) and isinstance(b, IndexedSlices):
        return IndexedSlices(concat([a.values, b.values], 0), concat([a.indices, b.indices], 0),
                             a.dense_shape)
    return _dense(a) + _dense(b)


def backprop(records, targets, seeds, sources, batch_ndim):
    """Walk `records` backwards from `targets` (seeded with `seeds`); gradients for `sources`."""
    relevant = _relevant_ids(records, sources)
    grads = {}
    for t, seed in zip(targets, seeds):
        if t._id in relevant:
            grads[t._id] = grads[t._id] + seed if t._id in grads else seed
    for op, inputs, outputs, grad_fn in reversed(records):
        upstream = [grads.get(o._id) for o in outputs]
        if all(g is None for g in upstream):
            continue
        needs = [x._id in relevant and _differentiable(x) for x in inputs]
        if not any(needs):
            continue
        if None in upstream:
            batch_shape = next(g for g in upstream if g is not None)._value.shape[:batch_ndim]
            upstream = [g if g is not None else zeros(batch_shape + o._value.shape, dtype=o.dtype)
                        for g, o in zip(upstream, outputs)]
        if not op.sparse_passthrough:
            upstream = [_dense(g) for g in upstream]
        result = grad_fn(*upstream)
        if not isinstance(result, (tuple, list)):
            result = (result,)
        for x, need, gx in zip(inputs, needs, result):
            if not need or gx is None:
                continue
            if callable(gx):
                gx = gx()
                if gx is None:
                    continue
            if not isinstance(gx, IndexedSlices):
                gx = unbroadcast(gx, x._value.shape, batch_ndim)
            prev = grads.get(x._id)
            grads[x._id] = gx if prev is None else _accumulate(prev, gx)
    out = []
    for s in sources:
        g = grads.get(s._id)
        if isinstance(g, IndexedSlices) and not isinstance(s, Variable):
            g = g.to_dense()
        if g is not None and not isinstance(g, IndexedSlices) and g._value.dtype != s._value.dtype \
                and s._value.dtype.kind in "fc":
            g = cast(g, s.dtype)
        out.append(g if g is None or _differentiable(s) else None)
    return out
