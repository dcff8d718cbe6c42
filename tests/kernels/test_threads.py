"""One owner of the CPU thread counts: tf.config.threading, MINITF_NUM_THREADS, the BLAS pool
(through threadpoolctl) and minitf's worker pool."""
import numpy as np
import pytest
import threadpoolctl

import minitf as tf
from minitf.kernels import numpy as numpy_kernels
from minitf.kernels import threads


@pytest.fixture
def restore_threads():
    yield
    threads.set_intra_op_threads(0)


def _blas_threads():
    info = threadpoolctl.threadpool_info()
    blas = [p["num_threads"] for p in info if p["user_api"] == "blas"]
    return blas[0] if blas else None


def test_default_leaves_one_core_free():
    assert threads.default_threads(1) == 1
    assert threads.default_threads(2) == 1
    assert threads.default_threads(16) == 15


def test_config_threading_round_trip_sizes_both_pools(restore_threads):
    assert tf.config.threading.get_intra_op_parallelism_threads() == 0
    tf.config.threading.set_intra_op_parallelism_threads(2)
    assert tf.config.threading.get_intra_op_parallelism_threads() == 2
    assert threads.intra_op_threads() == 2
    if _blas_threads() is not None:
        assert _blas_threads() == 2
    pool = threads.worker_pool()
    assert pool is not None and pool[1] == 1  # the caller runs a share itself
    tf.config.threading.set_intra_op_parallelism_threads(1)
    assert threads.worker_pool() is None
    if _blas_threads() is not None:
        assert _blas_threads() == 1
    tf.config.threading.set_intra_op_parallelism_threads(0)
    assert threads.intra_op_threads() == threads.default_threads()


@pytest.mark.parametrize("bad", [-1, 1.5, "2", True])
def test_bad_counts_are_rejected(bad):
    with pytest.raises(ValueError):
        tf.config.threading.set_intra_op_parallelism_threads(bad)


def test_environment_variable(monkeypatch):
    monkeypatch.setenv("MINITF_NUM_THREADS", "3")
    assert threads.requested_threads() == 3 and threads.intra_op_threads() == 3
    monkeypatch.setenv("MINITF_NUM_THREADS", "many")
    with pytest.raises(ValueError, match="MINITF_NUM_THREADS"):
        threads.intra_op_threads()


def test_inter_op_is_remembered():
    tf.config.threading.set_inter_op_parallelism_threads(3)
    assert tf.config.threading.get_inter_op_parallelism_threads() == 3
    tf.config.threading.set_inter_op_parallelism_threads(0)


def test_blocks_on_threads_give_the_one_thread_result(restore_threads):
    rng = np.random.default_rng(0)
    a = rng.normal(size=700_000).astype(np.float32)
    results = []
    for count in (1, 3):
        threads.set_intra_op_threads(count)
        out = np.zeros_like(a)

        def kernel(src, dst):
            np.multiply(src, 2.5, out=dst)
            dst += 1
        numpy_kernels.map_blocks(kernel, [a, out])
        results.append(out)
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], a * np.float32(2.5) + 1)


def _blas_threads_after_import(**env_vars):
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items()
           if k not in ("MINITF_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")}
    env.update(env_vars)
    code = ("import minitf, threadpoolctl\n"
            "print([p['num_threads'] for p in threadpoolctl.threadpool_info() if p['user_api'] == 'blas'])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return eval(out.stdout.strip())


def test_import_sizes_blas_before_any_op_and_respects_the_users_variable():
    # every op, the first included, runs on one thread count (GEMM bits may depend on it)
    if not _blas_threads():
        pytest.skip("no BLAS pool threadpoolctl can see")
    assert set(_blas_threads_after_import()) == {threads.default_threads()}
    assert set(_blas_threads_after_import(MINITF_NUM_THREADS="2")) == {2}
    assert set(_blas_threads_after_import(OPENBLAS_NUM_THREADS="2")) == {2}
