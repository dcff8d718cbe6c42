"""Worker: rank 1 raises while rank 0 waits in a collective; the job must end, not hang."""
import sys

import minitf as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
if strategy.cluster_resolver.task_id == 1:
    raise ValueError("worker 1 fails on purpose")
strategy.reduce("SUM", tf.constant([1.0]), axis=None)  # never completes: rank 1 is gone
sys.exit(0)
