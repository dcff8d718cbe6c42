"""One owner of the CPU thread counts: tf.config.threading, MINITF_NUM_THREADS, the BLAS pool
(through threadpoolctl) and minitf's worker pool."""
import os

import numpy as np
import pytest
import threadpoolctl

import minitf as tf
from minitf.kernels import numpy as numpy_kernels
from minitf.kernels import threads


@pytest.fixture
def restore_threads():
    yield
    threads.set_intra_op_threads(0)  # also resizes both pools for the (restored) default


def _blas_threads():
    info = threadpoolctl.threadpool_info()
    blas = [p["num_threads"] for p in info if p["user_api"] == "blas"]
    return blas[0] if blas else None


def test_one_thread_less_per_core_other_processes_keep_busy():
    assert threads.load_following_threads(2, 0.0) == 2
    assert threads.load_following_threads(2, 0.4) == 2   # a light competitor: one more thread still gains
    assert threads.load_following_threads(2, 0.67) == 1  # a busy process sharing a core with a BLAS thread
    assert threads.load_following_threads(2, 3.0) == 1   # never fewer than one
    assert threads.load_following_threads(16, 4.9) == 11
    assert threads.load_following_threads(1, 0.0) == 1


def _stat(path, rows):
    path.write_text("cpu  0 0 0 0 0 0 0 0 0 0\n" + "".join(
        f"cpu{i} {user} 0 {system} {idle} 0 0 0 0 0 0\n" for i, (user, system, idle) in enumerate(rows)))
    return str(path)


def test_load_is_read_from_proc_stat_for_this_process_cores(tmp_path, monkeypatch):
    monkeypatch.setattr(threads.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(threads, "_CLOCK_TICKS", 100)
    clock = iter([10.0, 12.0])
    cpu = iter([5.0, 5.5])  # this process used 0.5 s of CPU between the samples
    monkeypatch.setattr(threads.time, "monotonic", lambda: next(clock))
    monkeypatch.setattr(threads.time, "process_time", lambda: next(cpu))
    # cpu2 is outside the affinity: its (huge) load is not ours to count
    before = threads._read_load_sample(_stat(tmp_path / "a", [(100, 0, 0), (0, 0, 100), (0, 0, 0)]))
    after = threads._read_load_sample(_stat(tmp_path / "b", [(250, 50, 0), (0, 0, 300), (10**6, 0, 0)]))
    # 200 ticks = 2 s busy on our cores in 2 s of wall time, 0.5 s of it ours: others 0.75 cores
    assert threads.busy_cores_of_others(before, after) == pytest.approx(0.75)
    assert threads._read_load_sample(str(tmp_path / "missing")) is None


def test_the_default_follows_the_load_and_resizes_the_pools(monkeypatch, restore_threads):
    monkeypatch.setattr(threads, "available_cores", lambda: 2)  # OpenBLAS cannot grow past the machine's
    monkeypatch.setattr(threads, "_follower", threads._LoadFollower())
    monkeypatch.setattr(threads, "_SAMPLE_SECONDS", 0.0)
    busy = [0.0]
    monkeypatch.setattr(threads, "busy_cores_of_others", lambda before, after: busy[0])
    threads.set_intra_op_threads(0)  # both pools sized for this (2-core) follower's count
    for load, expected in ((0.0, 2), (1.0, 1), (0.1, 2)):
        busy[0] = load
        threads.adapt_to_load()
        assert threads.intra_op_threads() == expected
        pool = threads.worker_pool()  # None for one thread: the caller works alone
        assert (pool[1] if pool else 0) == min(expected, threads._MAX_WORKERS) - 1
        if _blas_threads() is not None and not any(os.environ.get(v) for v in threads._BLAS_ENV_VARS):
            assert _blas_threads() == expected
    threads.set_intra_op_threads(3)  # a set count does not follow the load
    busy[0] = 3.0
    threads.adapt_to_load()
    assert threads.intra_op_threads() == 3


def test_op_determinism_fixes_the_count_at_every_core(monkeypatch, restore_threads):
    monkeypatch.setattr(threads, "available_cores", lambda: 4)
    monkeypatch.setattr(threads, "_follower", threads._LoadFollower())
    monkeypatch.setattr(threads, "_SAMPLE_SECONDS", 0.0)
    monkeypatch.setattr(threads, "busy_cores_of_others", lambda before, after: 3.0)
    monkeypatch.setattr(threads, "_deterministic", [])
    tf.config.experimental.enable_op_determinism()
    assert threads.determinism_enabled()
    threads.adapt_to_load()
    assert threads.intra_op_threads() == 4


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
    assert threads.intra_op_threads() == threads._follower.threads


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
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items()
           if k not in ("MINITF_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")}
    env.update(env_vars)
    code = ("import minitf, threadpoolctl\nminitf.constant  # the first public name loads the op modules\n"
            "print([p['num_threads'] for p in threadpoolctl.threadpool_info() if p['user_api'] == 'blas'])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return eval(out.stdout.strip())


def test_import_sizes_blas_before_any_op_and_respects_the_users_variable():
    # every op, the first included, runs on one thread count (GEMM bits may depend on it)
    if not _blas_threads():
        pytest.skip("no BLAS pool threadpoolctl can see")
    assert set(_blas_threads_after_import()) == {threads.available_cores()}  # idle: every core
    assert set(_blas_threads_after_import(MINITF_NUM_THREADS="2")) == {2}
    assert set(_blas_threads_after_import(OPENBLAS_NUM_THREADS="2")) == {2}
