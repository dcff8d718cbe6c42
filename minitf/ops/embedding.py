"""tf.nn.embedding_lookup: rows of an embedding table (or of a table split into shards), with
TF 2's 'div' sharding and optional max-norm clipping; the gradient of each table is an
IndexedSlices (through gather)."""
import numpy as np

from minitf import dispatch
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.ops._core import Variable, as_tensor
from minitf.ops.clip import clip_by_norm
from minitf.ops.gather import gather
from minitf.ops.constant import identity
from minitf.ops.shaping import concat, reshape
from minitf.api_export import export

__all__ = ["embedding_lookup"]


def _clip(result, ids_rank, max_norm):
    """Each embedding (the dims after the ids' dims) scaled to an L2 norm of at most max_norm."""
    if max_norm is None:
        return result
    return clip_by_norm(result, max_norm, axes=list(range(ids_rank, len(result.shape))))


def _div_assignments(flat_ids, sizes):
    """TF's 'div' strategy: shard p holds a contiguous block of ids, the first `extras` shards
    one id more than the rest. Returns (shard of each id, row inside its shard)."""
    n = len(sizes)
    total = int(sum(sizes))
    per, extras = divmod(total, n)
    if per == 0:
        raise errors.invalid_argument(
            "embedding_lookup", f"{n} shards hold only {total} rows in all: every shard needs at "
                                "least one row under the 'div' partition strategy")
    shard = np.maximum(flat_ids // (per + 1), (flat_ids - extras) // per)
    row = np.where(shard < extras, flat_ids % (per + 1), (flat_ids - extras) % per)
    bad = (shard < 0) | (shard >= n)
    if bad.any():
        raise errors.invalid_argument(
            "DynamicPartition", f"id {int(flat_ids[bad][0])} is not in [0, {total}) (the rows of "
                                f"the {n} shards together); partitions value {int(shard[bad][0])} "
                                f"is not in [0, {n})")
    return shard, row


@export("nn.embedding_lookup")
@dispatch.add_dispatch_support
def embedding_lookup(params, ids, max_norm=None, name=None):
    """The rows of `params` at `ids`: shape ids.shape + params.shape[1:].

    Args:
      params: an embedding table (tensor or variable), or a list of tables sharing their trailing
        dims, read as one table split by TF 2's 'div' strategy (shard p holds a contiguous block
        of rows; the first `total % len(params)` shards hold one row more).
      ids: int32/int64 ids, each in [0, total rows).
      max_norm: if given, each looked-up embedding whose L2 norm is larger is scaled down to it.
      name: ignored (TF's op name).

    Returns:
      The embeddings. Their gradient with respect to each table is an IndexedSlices.

    Raises:
      ValueError: `params` is None or an empty list.
      InvalidArgumentError: an id out of range or non-integer ids.
    """
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, (list, tuple)) and not params:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    if not isinstance(params, (list, tuple)):
        params = [params]
    params = [p if isinstance(p, Variable) else convert_to_tensor(p) for p in params]
    ids = as_tensor(ids)
    ids_rank = len(ids.shape)
    if len(params) == 1:
        return identity(_clip(gather(params[0], ids), ids_rank, max_norm))
    flat = reshape(ids, [-1])
    flat_ids = np.asarray(flat.numpy())
    if flat_ids.dtype.kind not in "iu":
        gather(params[0], flat)  # raises TF's InvalidArgumentError for the ids' dtype
    shard, row = _div_assignments(flat_ids.astype(np.int64), [int(p.shape[0]) for p in params])
    parts, order = [], []
    for p, table in enumerate(params):
        chosen = np.nonzero(shard == p)[0]
        parts.append(gather(table, convert_to_tensor(row[chosen].astype(flat_ids.dtype))))
        order.append(chosen)
    # gathered rows come grouped by shard; put each back at its id's position
    position = np.empty(flat_ids.size, dtype=np.int64)
    position[np.concatenate(order)] = np.arange(flat_ids.size)
    stitched = gather(concat(parts, 0), convert_to_tensor(position))
    result = reshape(stitched, list(ids.shape) + list(parts[0].shape[1:]))
    return _clip(result, ids_rank, max_norm)
