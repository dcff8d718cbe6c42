"""The collective layer of tf.distribute: LocalCollective, MpiCollective (under mpiexec, -n 2 and
-n 3), NcclCollective (on a GPU), and the cluster resolution that picks between them.

Multi-process tests run `mpiexec -n N python _mpi_workers/<worker>.py` through the `run_mpi`
fixture (conftest.py) and compare each rank's results with numpy on every rank's contribution.
"""
import importlib.util
import json
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from minitf.distribute import cluster
from minitf.distribute.collective import LocalCollective
from minitf.errors import errors
from minitf.distribute import mpi_collective
from minitf.distribute.mpi_collective import MpiCollective, bucket_plan

_SPEC = importlib.util.spec_from_file_location(
    "_mpi_workers_common", __file__.replace("test_collectives.py", "_mpi_workers/common.py"))
common = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(common)


class FakeComm:
    """Just enough of an mpi4py communicator for resolve_cluster."""

    def __init__(self, size, rank):
        self.size, self.rank = size, rank

    def Get_size(self):  # noqa: N802 (mpi4py's names)
        return self.size

    def Get_rank(self):  # noqa: N802
        return self.rank


def tf_config(chief=0, workers=2, task=("worker", 0), **extra):
    cluster_spec = {"worker": [f"host:{2000 + i}" for i in range(workers)]}
    if chief:
        cluster_spec["chief"] = ["host:1999"]
    cluster_spec.update(extra)
    return json.dumps({"cluster": cluster_spec, "task": {"type": task[0], "index": task[1]}})


def fields(info):
    return (info.num_workers, info.task_id, info.task_type, info.task_index, info.is_chief, info.source)


# -- one process ---------------------------------------------------------------------------------

def test_local_collective_is_the_identity_on_copies():
    group = LocalCollective()
    arrays = [np.arange(6.0).reshape(2, 3), np.array([1, 2], np.int32)]
    for op in ("sum", "mean", "max", "min"):
        out = group.allreduce(arrays, op)
        assert [o.dtype for o in out] == [a.dtype for a in arrays]
        assert all(np.array_equal(o, a) and o is not a for o, a in zip(out, arrays))
    out = group.broadcast(arrays)
    out[0][0, 0] = 99.0
    assert arrays[0][0, 0] == 0.0
    assert len(group.allgather(arrays[1])) == 1 and group.allgather_object("x") == ["x"]
    assert group.broadcast_object({"a": 1}) == {"a": 1} and group.barrier() is None
    with pytest.raises(ValueError, match="prod"):
        group.allreduce(arrays, "prod")


def test_bucket_plan_packs_small_arrays_and_isolates_big_ones():
    assert bucket_plan([10, 10, 10], 1024) == [[0, 1, 2]]
    # 64-byte alignment: three 40-byte arrays take 192 bytes, two fit in 128
    assert bucket_plan([40, 40, 40], 128) == [[0, 1], [2]]
    assert bucket_plan([10, 5000, 10], 1024) == [[0], [1], [2]]
    assert bucket_plan([], 1024) == []


class FakeMpi:
    """An mpi4py.MPI stand-in whose requests never complete and whose calls can fail."""

    class Exception(Exception):  # noqa: A001 (mpi4py's name)
        pass

    BYTE = "byte"

    class Request:
        @staticmethod
        def Testall(requests):  # noqa: N802
            return False

        def Test(self):  # noqa: N802
            return False

    class Comm:
        aborted = False

        def Iallgather(self, send, recv):  # noqa: N802
            return FakeMpi.Request()

        def Ibarrier(self):  # noqa: N802
            raise FakeMpi.Exception("MPI_ERR_OTHER: fake failure\nstack")

        def Abort(self, code):  # noqa: N802
            self.aborted = True


def _fake_group(monkeypatch, timeout):
    exits = []
    monkeypatch.setattr(mpi_collective.atexit, "register", exits.append)
    group = object.__new__(MpiCollective)
    group.__dict__.update(_mpi=FakeMpi, _comm=FakeMpi.Comm(), rank=1, size=2, timeout_seconds=timeout,
                          bucket_bytes=1024, check_signatures=True, _broken=None, _closed=False,
                          _digests={}, _layouts={})
    return group, exits


def test_allreduce_plan_packs_arrays_by_work_dtype_and_hashes_bucket_bytes(monkeypatch):
    group, _ = _fake_group(monkeypatch, None)  # bucket_bytes=1024
    hosts = [np.ones(10, np.float32), np.ones(5000, np.float32), np.ones(10, np.float16),
             np.ones((4, 5), np.float32), np.ones(3, bool)]
    digest, buckets = group._allreduce_plan("max", hosts, "allreduce op=max")
    f32, u8 = np.dtype(np.float32), np.dtype(np.uint8)
    assert buckets == [
        (f32, True, [(0, 0, 10, (10,), None)]),  # alone: the next array does not fit its bucket
        (f32, True, [(1, 0, 5000, (5000,), None)]),  # bigger than a bucket
        (f32, False, [(2, 0, 10, (10,), np.float16), (3, 10, 30, (4, 5), None)]),  # float16 reduced in float32
        (u8, True, [(4, 0, 3, (3,), np.bool_)]),  # bools reduced as uint8, alone in their work dtype
    ]
    assert group._allreduce_plan("max", [h.copy() for h in hosts], "allreduce op=max")[1] is buckets  # cached
    ints = [np.ones(3, np.int32), np.ones(2, np.int32)]
    assert group._allreduce_plan("mean", ints, "allreduce op=mean")[1][0][2] == [
        (0, 0, 3, (3,), None), (1, 3, 5, (2,), None)]  # integer means stay float64 (TF's x / n)
    # the signature covers bucket_bytes: workers with different buckets would make different MPI calls
    group.bucket_bytes = 2048
    assert group._allreduce_plan("max", hosts, "allreduce op=max")[0] != digest


def test_a_collective_past_its_deadline_raises_and_breaks_the_group(monkeypatch):
    group, exits = _fake_group(monkeypatch, 0.2)
    start = time.monotonic()
    with pytest.raises(errors.DeadlineExceededError, match=r"MpiCollective.allreduce op=sum on rank 1 of 2 "
                       r"timed out after 0\.2 s \(timeout_seconds=0\.2\)"):
        group.allreduce([np.ones(3)], "sum")
    assert 0.2 <= time.monotonic() - start < 2
    with pytest.raises(errors.UnavailableError, match="Restart the job"):
        group.barrier()
    assert len(exits) == 1  # the job is aborted at exit: MPI cannot cancel the pending collective
    exits[0]()
    assert group._comm.aborted


def test_a_failure_while_the_signature_is_in_flight_breaks_the_group(monkeypatch):
    """allreduce fills its buffers while the agreement allgather travels: if that fails (out of
    memory), the peers may already be in the data calls, so the group must not be reused."""
    group, exits = _fake_group(monkeypatch, None)
    arrays = [np.ones(3)]

    def no_memory(*args, **kwargs):
        raise MemoryError("fake: no memory for the bucket")

    with monkeypatch.context() as patch:
        patch.setattr(mpi_collective.np, "array", no_memory)
        with pytest.raises(MemoryError):
            group.allreduce(arrays, "sum")
    assert "while packing its buffers (MemoryError)" in group._broken and len(exits) == 1
    with pytest.raises(errors.UnavailableError, match="Restart the job"):
        group.allreduce(arrays, "sum")


def test_mpi_errors_become_unavailable_errors(monkeypatch):
    group, exits = _fake_group(monkeypatch, None)
    group._agree = lambda *a, **k: None
    with pytest.raises(errors.UnavailableError, match=r"barrier on rank 1 of 2 failed in MPI \(MPI_ERR_OTHER"):
        group.barrier()
    assert group._broken and len(exits) == 1


# -- resolving the world (no MPI needed: a fake communicator) -----------------------------------

def test_without_a_launcher_the_world_is_one_local_process():
    info = cluster.resolve_cluster(env={})
    assert fields(info) == (1, 0, "worker", 0, True, "local")
    assert isinstance(cluster.make_collective(env={}), LocalCollective)
    assert isinstance(cluster.make_collective("NCCL", env={}), LocalCollective)
    assert cluster.launcher_world_size({"OMPI_COMM_WORLD_SIZE": "4"}) == 4
    assert cluster.launcher_world_size({"PMI_SIZE": "2"}) == 2 and cluster.launcher_world_size({}) is None
    assert cluster.launcher_world_size({"PMIX_RANK": "0"}) == -1  # launched; the size comes from MPI


def test_tf_config_without_mpi_says_how_to_launch():
    with pytest.raises(ValueError, match=r"mpiexec -n 3 python") as info:
        cluster.resolve_cluster(env={"TF_CONFIG": tf_config(chief=1, workers=2)})
    assert "MPI" in str(info.value) and "minitf[mpi]" in str(info.value)
    one = cluster.resolve_cluster(env={"TF_CONFIG": tf_config(workers=1)})
    assert fields(one) == (1, 0, "worker", 0, True, "tf_config")


def test_tf_config_chief_rules_follow_tf():
    with_chief = tf_config(chief=1, workers=2)
    assert cluster.resolve_cluster({"TF_CONFIG": with_chief}, FakeComm(3, 1)).has_chief
    assert not cluster.resolve_cluster({"TF_CONFIG": tf_config(workers=3)}, FakeComm(3, 1)).has_chief
    assert fields(cluster.resolve_cluster({"TF_CONFIG": with_chief}, FakeComm(3, 0))) == \
        (3, 0, "chief", 0, True, "tf_config+mpi")
    assert fields(cluster.resolve_cluster({"TF_CONFIG": with_chief}, FakeComm(3, 2))) == \
        (3, 2, "worker", 1, False, "tf_config+mpi")
    no_chief = tf_config(workers=2)
    assert cluster.resolve_cluster({"TF_CONFIG": no_chief}, FakeComm(2, 0)).is_chief
    assert not cluster.resolve_cluster({"TF_CONFIG": no_chief}, FakeComm(2, 1)).is_chief
    assert fields(cluster.resolve_cluster({}, FakeComm(2, 1))) == (2, 1, "worker", 1, False, "mpi")


def test_tf_config_world_size_mismatch_names_both_numbers():
    with pytest.raises(ValueError, match=r"4 workers.*2 processes"):
        cluster.resolve_cluster({"TF_CONFIG": tf_config(workers=4)}, FakeComm(2, 0))
    with pytest.raises(ValueError, match="ps"):
        cluster.resolve_cluster({"TF_CONFIG": tf_config(workers=2, ps=["h:1"])}, FakeComm(2, 0))
    with pytest.raises(ValueError, match="JSON"):
        cluster.resolve_cluster({"TF_CONFIG": "{nope"}, FakeComm(2, 0))


def test_launched_without_mpi4py_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "mpi4py", None)  # makes `from mpi4py import MPI` fail
    with pytest.raises(ImportError, match=r'pip install "minitf\[mpi\]"'):
        cluster.make_collective(env={"PMI_SIZE": "2", "PMI_RANK": "0"})


def test_unknown_implementation_is_named():
    with pytest.raises(ValueError, match="GRPC"):
        cluster.make_collective("GRPC", env={})

    class Implementation:  # tf.distribute.experimental.CommunicationImplementation members have .name
        name = "RING"

    assert isinstance(cluster.make_collective(Implementation(), env={}), LocalCollective)


# -- MPI: every collective against numpy ---------------------------------------------------------

def _expected_allreduce(op, n):
    per_rank = [common.contributions(r, 40, with_bool=op in ("max", "min")) + [common.big_array(r)]
                for r in range(n)]
    expected = []
    for parts in zip(*per_rank):
        stack = np.stack(parts)
        dtype = stack.dtype
        wide = stack.astype(np.float32) if dtype == np.float16 else stack
        if op == "max":
            value = stack.max(axis=0)
        elif op == "min":
            value = stack.min(axis=0)
        else:
            total = wide.sum(axis=0, dtype=wide.dtype)
            value = total / n if op == "mean" else total
            if dtype.kind == "f" or op == "sum":
                value = value.astype(dtype)  # integer means are float64, as TF's x / n
        expected.append(value)
    return expected


def _assert_close(got, want, where):
    assert (got.shape, got.dtype) == (want.shape, want.dtype), f"{where}: {got.dtype}{got.shape}"
    if want.dtype == np.float16:
        np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3, err_msg=where)
    elif want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=where)
    else:
        np.testing.assert_array_equal(got, want, err_msg=where)


@pytest.mark.parametrize("n", [2, 3])
def test_mpi_collectives_match_numpy(run_mpi, n):
    run = run_mpi("collectives.py", n, timeout=90)
    assert run.returncode == 0 and not run.timed_out, run
    for rank, res in run.results.items():
        assert res is not None, run
        assert res["kind"] == "MpiCollective" and (res["rank"], res["size"]) == (rank, n)
        assert res["cluster"] == (n, rank, "worker", rank, rank == 0, "mpi")
        assert res["chief_cluster"] == (n, rank, "chief" if rank == 0 else "worker", max(rank - 1, 0),
                                        rank == 0, "tf_config+mpi")
        assert res["wrong_size"][0] == "ValueError" and f"{n + 2} workers" in res["wrong_size"][1]
        assert f"has {n} processes" in res["wrong_size"][1]
        for op in ("sum", "mean", "max", "min"):
            want = _expected_allreduce(op, n)
            for bucket in (None, 256):
                got = res[("allreduce", bucket, op)]
                assert len(got) == len(want)
                for i, (g, w) in enumerate(zip(got, want)):
                    _assert_close(g, w, f"rank {rank} {op} bucket={bucket} array {i}")
                assert res[("untouched", bucket, op)]
        assert res["empty_list"] == []
        for g, w in zip(res["broadcast"], common.contributions(n - 1, 12, seed=3)):
            assert g.dtype == w.dtype and np.array_equal(g, w)
        assert [a.shape for a in res["allgather"]] == [(r, 3) for r in range(n)]
        assert all(np.all(a == r + 0.5) and a.dtype == np.float32 for r, a in enumerate(res["allgather"]))
        assert [a.tolist() for a in res["allgather_f16"]] == [list(range(r + 1)) for r in range(n)]
        assert [a.tolist() for a in res["allgather_bool"]] == [[r % 2 == 0] * (r + 2) for r in range(n)]
        assert res["bcast_object"] == {"from": 1, "payload": [0, 1, 2, 3]}
        assert res["gather_object"] == [("rank", r, "x" * r) for r in range(n)]
        assert res["device_sum"][0] == "DeviceArray" and res["device_sum"][1].tolist() == [n * (n - 1) / 2] * 3
        assert res["device_bcast"][0] == "DeviceArray" and res["device_bcast"][1].tolist() == [0, 0]
        assert [(t, a.tolist()) for t, a in res["device_gather"]] == [("DeviceArray", [[r, r]]) for r in range(n)]
        assert res["after_close"][0] == "FailedPreconditionError"


def test_mismatched_calls_raise_on_every_rank_naming_the_difference(run_mpi):
    run = run_mpi("collectives.py", 2, timeout=90)
    assert run.returncode == 0, run
    for rank, res in run.results.items():
        for key, needle in [("mismatch_shape", "array 1 is float64(2,) on rank 0 and float64(3,) on rank 1"),
                            ("mismatch_dtype", "float32(4,) on rank 0 and float64(4,) on rank 1"),
                            ("mismatch_op", "allreduce op=sum and rank 1 called allreduce op=max"),
                            ("mismatch_count", "rank 0 passed 1 arrays and rank 1 passed 2"),
                            ("mismatch_kind", "rank 0 called allreduce op=sum and rank 1 called broadcast root=0"),
                            ("mismatch_gather", "float64(?, 1) on rank 0 and float64(?, 2) on rank 1"),
                            ("mismatch_big", "array 0 is float32(300000,) on rank 0 and float32(300001,) on rank 1"),
                            ("mismatch_bucket", "bucket_bytes is 256 on rank 0 and 4096 on rank 1"),
                            ("mismatch_bucket_bcast", "bucket_bytes is 256 on rank 0 and 4096 on rank 1")]:
            kind, message = res[key]
            assert kind == "InvalidArgumentError", (key, message)
            assert needle in message and f"on rank {rank}" in message, (key, message)
        assert res["after_mismatch"].tolist() == [2.0] * 5
        assert res["bad_op"][0] == "ValueError" and "prod" in res["bad_op"][1]
        assert res["bool_sum"][0] == "InvalidArgumentError" and "'max'" in res["bool_sum"][1]


# -- MPI: a peer that dies or hangs ----------------------------------------------------------------

def _hydra(mpiexec):
    try:
        text = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "HYDRA" in text.upper()


def _assert_deadline(res, timeout):
    kind, message = res["error"]
    assert kind == "DeadlineExceededError", message
    for needle in ("MpiCollective.allreduce", "rank 0", f"timeout_seconds={timeout}", "other workers' logs",
                   "CommunicationOptions(timeout_seconds=...)"):
        assert needle in message, (needle, message)
    assert timeout <= res["seconds"] < timeout + 5  # polled: late only by scheduling on a loaded machine
    assert res["later"][0] == "UnavailableError" and "Restart the job" in res["later"][1]


def test_abort_waits_until_the_launcher_has_read_the_output():
    """MPI_Abort stops the launcher relaying output: the error printed just before must leave the
    pipe first. A reader that takes it after 0.2 s ends the wait; a reader that never does, the limit."""
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"DeadlineExceededError: ...\n")
        threading.Timer(0.2, os.read, (read_end, 100)).start()
        start = time.monotonic()
        mpi_collective._wait_for_output_to_drain(5.0, fds=(write_end,))
        assert 0.2 <= time.monotonic() - start < 2.0
        os.write(write_end, b"unread")
        start = time.monotonic()
        mpi_collective._wait_for_output_to_drain(0.3, fds=(write_end,))
        assert 0.3 <= time.monotonic() - start < 2.0
    finally:
        os.close(read_end)
        os.close(write_end)


def test_dead_peer_ends_the_job_with_an_error(run_mpi):
    """mpiexec (hydra) ends the job when a rank dies: the user sees a non-zero exit, not a hang."""
    run = run_mpi("failures.py", 2, "die", 5, timeout=60)
    assert not run.timed_out and run.returncode != 0, run
    assert run.seconds < 30, run
    if run.results[0] is not None:  # a launcher that leaves the survivors running: our timeout fired
        _assert_deadline(run.results[0], 5)


def test_dead_peer_times_out_when_the_launcher_keeps_survivors(run_mpi):
    if not _hydra(run_mpi.mpiexec):
        pytest.skip("needs MPICH's hydra mpiexec for -disable-auto-cleanup")
    run = run_mpi("failures.py", 3, "die", 2, timeout=60, mpiexec_args=("-disable-auto-cleanup",))
    assert not run.timed_out and run.returncode != 0, run
    _assert_deadline(run.results[0], 2)  # rank 2 waits longer and is ended by rank 0's abort
    assert "DeadlineExceededError" in run.output and run.seconds < 30


def test_hung_peer_times_out_and_the_job_ends(run_mpi):
    run = run_mpi("failures.py", 2, "hang", 2, timeout=60)
    assert not run.timed_out and run.returncode != 0, run
    _assert_deadline(run.results[0], 2)
    assert "DeadlineExceededError" in run.output
    assert run.seconds < 30, run  # the timed-out rank aborts the job at exit: the sleeper does not linger


# -- NCCL (GPU machines) ----------------------------------------------------------------------------

@pytest.mark.gpu
def test_nccl_collectives_on_one_gpu(run_mpi):
    run = run_mpi("nccl.py", 1, timeout=300, env={"MINITF_DEVICE": "gpu"})
    assert run.returncode == 0 and not run.timed_out, run
    res = run.results[0]
    assert res["kind"] == "NcclCollective" and res["size"] == 1
    for op in ("sum", "mean", "max", "min"):
        per_rank = common.contributions(0, 30, with_bool=op in ("max", "min")) + [common.big_array(0)]
        for bucket in (None, 256):
            got = res[("allreduce", bucket, op)]
            for i, ((module, g), w) in enumerate(zip(got, per_rank)):
                assert module == "cupy", (op, i, module)
                w = w.astype(np.float64) if op == "mean" and w.dtype.kind in "iu" else w
                _assert_close(g, w, f"nccl {op} bucket={bucket} array {i}")
    assert all(m == "cupy" and np.array_equal(g, w) for (m, g), w in
               zip(res["broadcast"], common.contributions(0, 12, seed=3)))
    assert [(m, a.tolist()) for m, a in res["allgather"]] == [("cupy", [[0.5] * 3])]
    assert [(m, a.tolist()) for m, a in res["numpy_allreduce"]] == [("numpy", [1.0] * 3)]
    assert res["objects"] == ({"r": 0}, [0])
