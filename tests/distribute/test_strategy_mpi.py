"""MultiWorkerMirroredStrategy across processes: `mpiexec -n 2/3` runs of the strategy_* workers
in _mpi_workers/, each under a timeout (a hang fails the test instead of the suite)."""
import numpy as np
import pytest


_VALUES = {}


def _values(run_mpi):
    """The strategy_values.py run on 3 workers (23 elements, global batch 5), shared by the tests."""
    if "run" not in _VALUES:
        _VALUES["run"] = _ok(run_mpi("strategy_values.py", 3, 23, 5, timeout=90))
    return _VALUES["run"]


def _ok(run):
    assert not run.timed_out, run
    assert run.returncode == 0, run
    assert all(r is not None for r in run.results.values()), run
    return run.results


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_two_workers_equal_one_process_with_the_global_batch(run_mpi, optimizer):
    results = _ok(run_mpi("strategy_training.py", 2, 3, optimizer, timeout=90))
    r0, r1 = results[0], results[1]
    assert r0["size"] == 2
    # each rank seeded its initializers differently; the broadcast made them start equal
    for a, b in zip(r0["initial"], r1["initial"]):
        np.testing.assert_array_equal(a, b)
    # global batch 12 split 6/6; the last, partial batch of 5 leaves rank 1 an empty batch
    assert r0["batch_sizes"] == [6, 6, 6, 5] and r1["batch_sizes"] == [6, 6, 6, 0]
    assert r0["iterations"] == r1["iterations"] == 4
    for step, (h0, h1, ref) in enumerate(zip(r0["history"], r1["history"], r0["reference"])):
        for a, b, c in zip(h0, h1, ref):
            np.testing.assert_array_equal(a, b, err_msg=f"ranks differ after step {step}")
            np.testing.assert_allclose(a, c, rtol=1e-5, atol=1e-6, err_msg=f"step {step}")
    np.testing.assert_allclose(r0["losses"], r0["reference_losses"], rtol=1e-5)
    assert r0["losses"] == r1["losses"]


def test_reduce_gather_and_replica_context_on_three_workers(run_mpi):
    results = _values(run_mpi)
    # rank r: vector [1 + r, 2r]; value = r+1 rows [[10r + 2k, 10r + 2k + 1]]
    rows = np.concatenate([np.arange(2 * (r + 1), dtype="float32").reshape(r + 1, 2) + 10 * r for r in range(3)])
    for rank, out in results.items():
        assert out["size"] == 3 and out["in_multi_worker"]
        assert out["should_checkpoint"] == (rank == 0)
        np.testing.assert_allclose(out["sum_none"], [6.0, 6.0])
        np.testing.assert_allclose(out["mean_none"], [2.0, 2.0])
        np.testing.assert_allclose(out["sum_axis0"], rows.sum(axis=0))
        np.testing.assert_allclose(out["mean_axis0"], rows.mean(axis=0), rtol=1e-6)  # over all 6 rows
        np.testing.assert_allclose(out["mean_axes"], rows.mean(), rtol=1e-6)
        np.testing.assert_allclose(out["nested"]["a"], [6.0, 6.0])
        assert int(out["nested"]["b"]) == 3
        np.testing.assert_array_equal(out["gather"], rows)
        replica_id, replicas, summed, (mean1, mean2), merged, cross = out["replica"]
        assert (replica_id, replicas, cross) == (rank, 3, False)
        np.testing.assert_allclose(summed, [6.0, 6.0])
        np.testing.assert_allclose(mean1, [2.0, 2.0])
        np.testing.assert_allclose(mean2, [4.0, 4.0])
        np.testing.assert_allclose(merged, [6.0, 6.0])
        assert out["input_context"] == (3, rank, 3)


def test_distributed_dataset_covers_every_element_once_per_epoch(run_mpi):
    results = _values(run_mpi)
    steps = {out["distributed_steps"] for out in results.values()}
    assert steps == {10}  # 5 global batches a epoch, the same on every worker
    for epoch in range(2):
        seen = sorted(i for out in results.values() for batch in out["distributed_seen"][epoch] for i in batch)
        assert seen == list(range(23))
    for epoch in range(2):  # an unseeded shuffle too: the workers follow rank 0's order
        seen = sorted(i for out in results.values() for batch in out["shuffled_seen"][epoch] for i in batch)
        assert seen == list(range(23))
    assert results[0]["shuffled_seen"][0] != results[0]["shuffled_seen"][1]  # reshuffled each epoch
    # TF's split of a global batch of 5 over 3 replicas: 2, 2, 1
    assert [len(b) for b in results[0]["distributed_seen"][0]] == [2, 2, 2, 2, 2]
    assert [len(b) for b in results[2]["distributed_seen"][0]] == [1, 1, 1, 1, 0]


def test_uneven_datasets_from_function_keep_workers_in_step(run_mpi):
    results = _values(run_mpi)
    counts = {rank: len(out["from_function"]) for rank, out in results.items()}
    assert set(counts.values()) == {5}  # worker 0's 23 examples in batches of 5 set the pace
    ids = [i for out in results.values() for batch, _, _ in out["from_function"] for i in batch]
    assert sorted(ids) == list(range(23)) + list(range(1000, 1011))  # each exactly once
    for out in results.values():
        for batch, shape, dtype in out["from_function"]:
            assert shape == (len(batch), 2) and dtype == "float32"  # empty batches keep the structure


def test_uneven_workers_see_the_optional_empty_at_the_same_step(run_mpi):
    results = _values(run_mpi)
    for out in results.values():
        assert [flag for flag, _ in out["optional_walk"]] == [True] * 5 + [False]
        assert [ids for _, ids in out["optional_walk"][:5]] == [batch for batch, _, _ in out["from_function"]]
        assert out["optional_walk"][5][1] == [-1]


def _weights_equal(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize("layout", ["tutorial", "shared"])
def test_checkpoint_on_chief_survives_a_killed_worker_and_resumes(run_mpi, tmp_path, layout):
    straight = _ok(run_mpi("strategy_checkpoint.py", 2, tmp_path / "a", 3, -1, layout, timeout=90))
    assert straight[0]["resumed_from"] == 0 and straight[0]["iterations"] == 9
    assert _weights_equal(straight[0]["weights"], straight[1]["weights"])
    files = sorted(p.relative_to(tmp_path / "a").as_posix() for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert files == ["ckpt/checkpoint", "ckpt/ckpt-2.data-00000-of-00001", "ckpt/ckpt-2.index",
                     "ckpt/ckpt-3.data-00000-of-00001", "ckpt/ckpt-3.index"]  # the chief's only

    killed = run_mpi("strategy_checkpoint.py", 2, tmp_path / "b", 3, 2, layout, timeout=90)
    assert not killed.timed_out and killed.returncode != 0, killed
    resumed = _ok(run_mpi("strategy_checkpoint.py", 2, tmp_path / "b", 3, -1, layout, timeout=90))
    start = resumed[0]["resumed_from"]
    assert start in (1, 2) and resumed[1]["resumed_from"] == start  # the chief's last complete save
    assert resumed[0]["iterations"] == 9
    # deterministic data and restored optimizer state: the resumed job ends where the straight one did
    for rank in (0, 1):
        for a, b in zip(resumed[rank]["weights"], straight[0]["weights"]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_an_exception_on_one_worker_ends_the_job_instead_of_hanging(run_mpi):
    run = run_mpi("strategy_failure.py", 2, timeout=60)
    assert not run.timed_out and run.returncode != 0, run
    assert "worker 1 fails on purpose" in run.output
