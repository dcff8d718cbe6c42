"""model.fit and evaluate under MultiWorkerMirroredStrategy across processes (mpiexec -n 2 and 3)
against one process without a strategy: the same steps on the same global batches."""
import numpy as np


def _single(run_mpi):
    run = run_mpi("fit_keras.py", 1, "plain", timeout=120)
    assert run.returncode == 0, run
    return run.results[0]


def test_two_workers_train_as_one_process_on_the_global_batch(run_mpi):
    single = _single(run_mpi)
    run = run_mpi("fit_keras.py", 2, "strategy", timeout=180)
    assert run.returncode == 0, run
    ranks = [run.results[r] for r in range(2)]
    assert all(r["replicas"] == 2 for r in ranks)
    for a, b in zip(ranks[0]["weights"], ranks[1]["weights"]):  # every step leaves the ranks equal
        np.testing.assert_array_equal(a, b)
    # global batch 32 split 16/16: loss/2 per worker, gradients summed -> one step on 32 examples
    for got, want in zip(ranks[0]["after_fit"], single["after_fit"]):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)
    for key in ("loss", "accuracy", "val_loss", "val_accuracy"):  # epoch logs summed over workers
        np.testing.assert_allclose(ranks[0]["history"][key], single["history"][key], rtol=1e-5)
        np.testing.assert_allclose(ranks[1]["history"][key], single["history"][key], rtol=1e-5)
    # evaluate's results are the whole data's, summed over the two workers' halves
    np.testing.assert_allclose(ranks[1]["evaluate"]["loss"], ranks[1]["by_hand"]["loss"], rtol=1e-5)


def test_only_the_chief_writes_callback_files(run_mpi):
    run = run_mpi("fit_keras.py", 2, "strategy", timeout=180)
    assert run.returncode == 0, run
    wrote = run.results[1]["wrote"]
    assert "log_from_rank0.csv" in wrote and "ckpt_from_rank0.weights.h5" in wrote
    assert not any("rank1" in name for name in wrote), wrote
    rows = run.results[0]["csv_rows"]
    assert rows[0].split(",")[0] == "epoch" and len(rows) == 1 + 3  # header and one row per epoch


def test_three_workers_with_uneven_shards_see_every_example_once(run_mpi):
    single = _single(run_mpi)
    run = run_mpi("fit_keras.py", 3, "strategy", timeout=240)
    assert run.returncode == 0, run
    ranks = [run.results[r] for r in range(3)]
    for other in ranks[1:]:
        for a, b in zip(ranks[0]["weights"], other["weights"]):
            np.testing.assert_array_equal(a, b)
    # evaluate sums per-example losses and hits over the workers' 11/11/10-example slices: the
    # metrics of the whole data, whatever the split (the weights differ from one process's:
    # uneven slices weigh their examples unequally in training, as in TF)
    for r in ranks:
        assert r["evaluate"] == ranks[0]["evaluate"]
        np.testing.assert_allclose(r["evaluate"]["loss"], r["by_hand"]["loss"], rtol=1e-5)
        np.testing.assert_allclose(r["evaluate"]["accuracy"], r["by_hand"]["accuracy"], rtol=1e-6)
    assert set(ranks[0]["evaluate"]) == set(single["evaluate"])
