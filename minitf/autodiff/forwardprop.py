"""tf.autodiff: forward-mode differentiation (`ForwardAccumulator`) next to `GradientTape`.

A `ForwardAccumulator` sits on the same thread-local stack as the tapes (`recording.thread_state`),
so every op whose input has a tangent calls `record` while it is active; `record` hands such
ops to `_forward_op` instead of keeping them. No op has a forward-mode rule of its own: the
tangent of an op's outputs comes from its reverse-mode rule by TF's "double backward" trick.
The gradient rule `vjp(u)` is linear in the output cotangent `u`, so

    jvp(v) = d/du <vjp(u), v>

and that derivative is one more backward pass, through the ops the rule ran on a probe `u`.
Gradient rules are written in minitf ops, which is what makes the second pass possible; a rule
that leaves minitf (numpy on `_value`) is caught and named rather than given zero tangents.

Every computation of a tangent runs with only the tapes and accumulators entered *before* this
accumulator active: they see (and differentiate) it, later ones do not, as in TF. That gives
forward-over-forward (nested accumulators), forward-over-backward (an accumulator around a tape
whose `gradient` runs inside it) and backward-over-forward (a tape around an accumulator).
"""
import weakref

from minitf import backend
from minitf.errors import errors
from minitf.nest import nest
from minitf.convert import convert_to_tensor
from minitf.indexed_slices import IndexedSlices
from minitf.ops.array import zeros
from minitf.ops.constant import cast
from minitf.recording import thread_state
from minitf.tape import GradientTape, UnconnectedGradients, backprop, check_unconnected, unbroadcast
from minitf.tensor import Tensor
from minitf.variable import Variable
from minitf.api_export import export


def _differentiable(x):
    return x._value.dtype.kind in "fc"


@export("autodiff.ForwardAccumulator")
class ForwardAccumulator:
    """Computes Jacobian-vector products (JVPs) with forward-mode differentiation.

    `ForwardAccumulator(primals, tangents)` attaches a tangent (the "vector") to each primal
    tensor or variable. While the accumulator is active (`with acc:`), every op that uses a
    value with a tangent computes the tangent of its outputs at once, and `acc.jvp(y)` looks
    that tangent up, during or after the `with` block. Forward mode costs one pass per
    tangent direction, so it suits functions with few inputs and many outputs; it keeps no
    activations alive for a backward pass.

    Accumulators and tapes apply in the order they were entered: an outer accumulator or tape
    sees the tangent computations of inner ones (giving higher derivatives and
    Hessian-vector products), inner ones ignore those of outer ones.

    Args:
      primals: a Tensor or Variable, or a nested structure of them, to attach tangents to.
        Values not listed behave as if their tangent were zeros.
      tangents: the same structure as `primals`, each entry a tensor (or anything
        convertible to one) of its primal's shape and dtype.

    Raises:
      ValueError: when a primal is listed twice, when the structures differ, or when a
        tangent's dtype or shape differs from its primal's.
      TypeError: when the two structures use different sequence types.
      AttributeError: when a primal is not a Tensor or Variable.
    """

    # read by recording.record: ops are handed to `_forward_op`, variable reads are not watched
    _forward = True
    _watch_accessed_variables = False

    def __init__(self, primals, tangents):
        self._tangents = {}  # tape id of a primal or computed tensor -> its tangent
        self._watched = self._tangents  # what recording.record tests inputs against
        self._refs = {}  # tape id -> weak reference that forgets the tangent with its tensor
        self._recording = False
        seen = set()
        for primal in nest.flatten(primals):
            if id(primal) in seen:
                raise ValueError(f"Tensor {primal!r} was specified as a primal multiple times in "
                                 "ForwardAccumulator. This may indicate an error. If it was intended, "
                                 "please sum the corresponding tangents.")
            seen.add(id(primal))
        nest.assert_same_structure(primals, tangents)
        for primal, tangent in zip(nest.flatten(primals), nest.flatten(tangents)):
            self._watch(primal, tangent)

    def _watch(self, primal, tangent):
        if not isinstance(primal, (Tensor, Variable)):
            raise AttributeError(f"ForwardAccumulator primals must be tensors or variables, got "
                                 f"{type(primal).__name__}: {primal!r}; convert it with "
                                 "tf.convert_to_tensor first.")
        tangent = convert_to_tensor(tangent, dtype=primal.dtype)
        pshape, tshape = tuple(primal._value.shape), tuple(tangent._value.shape)
        if pshape != tshape:
            raise ValueError(f"ForwardAccumulator: the tangent of shape {list(tshape)} does not match "
                             f"its primal of shape {list(pshape)}; pass a tangent of the primal's shape.")
        self._set(primal, tangent)

    def _set(self, x, tangent):
        key = x._id
        self._tangents[key] = tangent
        if isinstance(x, Tensor):
            tangents, refs = self._tangents, self._refs
            refs[key] = weakref.ref(x, lambda _, k=key: (tangents.pop(k, None), refs.pop(k, None)))
        else:  # a variable keeps its tangent for the accumulator's lifetime, as in TF
            self._refs[key] = x

    # -- context -------------------------------------------------------------------------
    def __enter__(self):
        if self._recording:
            raise ValueError("Accumulator is already recording.")
        thread_state.active = thread_state.active + [self]  # copy: iteration in record() stays valid
        self._recording = True
        return self

    def __exit__(self, *exc):
        if self._recording:
            thread_state.active = [t for t in thread_state.active if t is not self]
            self._recording = False
        return False

    # -- forward pass ----------------------------------------------------------------------
    def _forward_op(self, op, inputs, outputs, grad_fn):
        """Called by `recording.record` for an op with at least one input that has a tangent."""
        tangents = self._tangents
        in_tangents = [tangents.get(x._id) if _differentiable(x) else None for x in inputs]
        if all(t is None for t in in_tangents) or not any(_differentiable(o) for o in outputs):
            return
        saved = thread_state.active
        thread_state.active = saved[:saved.index(self)]  # only what was entered before us sees this
        try:
            out_tangents = _jvp(op, inputs, outputs, grad_fn, in_tangents)
        finally:
            thread_state.active = saved
        for out, tangent in zip(outputs, out_tangents):
            if tangent is not None:
                self._set(out, tangent)

    # -- answers ---------------------------------------------------------------------------
    def jvp(self, primals, unconnected_gradients=UnconnectedGradients.NONE):
        """The tangent computed for each of `primals` (no computation happens here).

        Args:
          primals: a Tensor or Variable the accumulator watched or computed while active, or a
            nested structure of them.
          unconnected_gradients: what a value without a tangent gets (one computed outside
            the accumulator, or not depending on its primals, or of an integer dtype):
            `tf.UnconnectedGradients.NONE` / `"none"` (the default) gives None,
            `tf.UnconnectedGradients.ZERO` / `"zero"` gives zeros of its shape and dtype.

        Returns:
          The structure of `primals` with a Tensor (or None) for each entry.

        Raises:
          ValueError: for an unknown `unconnected_gradients` value.
          AttributeError: when an entry is not a Tensor or Variable.
        """
        unconnected = check_unconnected(unconnected_gradients)

        def lookup(x):
            if not isinstance(x, (Tensor, Variable)):
                raise AttributeError(f"ForwardAccumulator.jvp takes tensors or variables, got "
                                     f"{type(x).__name__}: {x!r}.")
            tangent = self._tangents.get(x._id)
            if tangent is None and unconnected is UnconnectedGradients.ZERO:
                tangent = zeros(tuple(x._value.shape), dtype=x.dtype)
            return tangent
        return nest.map_structure(lookup, primals)


def _probe(out):
    """A cotangent for `out` in the first backward pass: ones (any value would do for a linear
    rule, but a non-zero one lets `_jvp` tell a rule that left minitf from a zero gradient)."""
    xp = backend.array_module(out._value)
    return Tensor(xp.ones_like(out._value) if _differentiable(out) else xp.zeros_like(out._value))


# Ops whose gradient rule the user writes (tf.custom_gradient): the only rules that may not be
# linear in the cotangent (clipping, normalizing), which the double-backward trick relies on.
_USER_RULES = frozenset({"CustomGradient"})


def _input_cotangents(grad_fn, probes, inputs, in_tangents):
    """The rule's cotangent for each input that has a tangent (None elsewhere), dense and of
    the input's shape and dtype."""
    result = grad_fn(*probes)
    if not isinstance(result, (tuple, list)):
        result = (result,)
    out = []
    for x, v, gx in zip(inputs, in_tangents, result):
        if callable(gx) and v is not None:
            gx = gx()
        if v is None or gx is None:
            out.append(None)
            continue
        if isinstance(gx, IndexedSlices):
            gx = gx.to_dense()
        gx = unbroadcast(gx, x._value.shape, 0)
        if gx._value.dtype != x._value.dtype:
            gx = cast(gx, x.dtype)
        out.append(gx)
    return out


def _check_linear(op, grad_fn, probes, inputs, in_tangents, cotangents):
    """UnimplementedError when a user-written rule is not linear in its upstream gradient:
    doubling the probes must double every cotangent."""
    saved = thread_state.active
    thread_state.active = []
    try:
        doubled = _input_cotangents(grad_fn, [Tensor(u._value * 2) for u in probes], inputs, in_tangents)
    finally:
        thread_state.active = saved
    for single, double in zip(cotangents, doubled):
        if single is None or double is None:
            continue
        a, b = backend.to_host(single._value), backend.to_host(double._value)
        if not (abs(b - 2 * a) <= 1e-5 * (abs(2 * a) + 1)).all():
            raise errors.UnimplementedError(
                None, None, f"ForwardAccumulator cannot compute the tangent of op {op.name}: the gradient "
                            "function given to tf.custom_gradient is not linear in its upstream gradient "
                            "(it clips or normalizes it, for example), so tangents cannot be derived from "
                            "it. Compute this derivative with tf.GradientTape instead. "
                            f"[Op:{op.name}]")


def _jvp(op, inputs, outputs, grad_fn, in_tangents):
    """Output tangents of one op from its gradient rule, by differentiating the rule in its
    cotangent: one backward pass on probes `u`, then d/du of sum_i <vjp_i(u), v_i>."""
    probes = [_probe(o) for o in outputs]
    inner = GradientTape()
    with inner:
        inner._watched.update(u._id for u, o in zip(probes, outputs) if _differentiable(o))
        cotangents = _input_cotangents(grad_fn, probes, inputs, in_tangents)
    if op.name in _USER_RULES:
        _check_linear(op, grad_fn, probes, inputs, in_tangents, cotangents)
    targets, seeds = [], []
    for v, gx in zip(in_tangents, cotangents):
        if gx is None:
            continue
        if gx._id not in inner._watched:
            if backend.to_host(gx._value).any():
                raise errors.UnimplementedError(
                    None, None, f"ForwardAccumulator cannot compute the tangent of op {op.name}: "
                                "its gradient function does not run on minitf ops, so it cannot be "
                                "differentiated a second time. Compute this derivative with "
                                f"tf.GradientTape instead. [Op:{op.name}]")
            continue  # a constant-zero gradient: no tangent flows through this input
        targets.append(gx)
        seeds.append(v)
    if not targets:
        return [None] * len(outputs)
    # the second backward pass runs after `inner` stopped recording, seen by the outer tapes only
    return backprop(inner._records, targets, seeds, probes, batch_ndim=0)
