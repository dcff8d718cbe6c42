"""Loss scaling under MultiWorkerMirroredStrategy on two workers: compute_average_loss divides by
the global batch (the replica's batch times the replicas), scale_regularization_loss by the
replicas, and a LossScaleOptimizer skips a step on every worker when any worker overflows."""
import numpy as np


def test_average_loss_and_loss_scale_skips_agree_across_workers(run_mpi):
    run = run_mpi("loss_scaling.py", 2, timeout=120)
    assert run.returncode == 0, run
    for rank, per_replica_batch in ((0, 2), (1, 3)):
        got = run.results[rank]
        local_sum = [3.0, 6.0][rank]
        assert got["average"] == local_sum / (per_replica_batch * 2)
        assert got["regularization"] == 2.0
        assert "cross replica context" in got["cross_replica_error"]
        # rank 1's inf makes both skip: weights kept, scale halved everywhere
        np.testing.assert_array_equal(got["after_overflow"][0], [1.0, 1.0])
        assert got["after_overflow"][1] == 4.0
        # then (8 + 8) / 4 = 4 per entry: 1 - 4 = -3 on both workers
        np.testing.assert_array_equal(got["after_step"][0], [-3.0, -3.0])
