"""Metrics made in a MultiWorkerMirroredStrategy's scope read every worker's state outside the
strategy's run (as Keras' sync-on-read metric variables do in TF) and their own inside it."""
import pytest


def test_metric_results_sum_the_workers_states_outside_run(run_mpi):
    run = run_mpi("metrics_custom_loop.py", 2, timeout=120)
    assert run.returncode == 0, run
    for rank, local_mean, local_state in ((0, 1.5, [3.0, 2.0]), (1, 20.0, [60.0, 3.0])):
        got = run.results[rank]
        assert got["inside_run"] == pytest.approx(local_mean)
        assert got["outside"] == pytest.approx(63.0 / 5) and got["in_scope"] == pytest.approx(63.0 / 5)
        assert got["accuracy"] == pytest.approx(4 / 5)  # hits 2 of 2 and 2 of 3 (a tie takes class 0)
        assert got["unscoped"] == pytest.approx(local_mean)
        assert got["local_state_after"] == local_state  # reading did not change the state
