"""fault_resume end to end: real torchrun jobs on 2 CPU processes, one fault kind per test.

Each test runs the lab exactly as a user would (`python -m labs.run fault_resume ...`) and asserts on the
report it wrote, including the evidence that the fault happened (the agent saw the exit, the resume came from
the newest good checkpoint, the lost steps are the implied ones). `--controls` shows the verdict failing on
every broken variant it exists to catch.
"""

import json
import subprocess
import sys

import pytest

import conftest
from conftest import ROOT, env
from labs.core.recovery import fault_exit


def run_lab(tmp_path, *args: str, timeout: int = 240) -> tuple[int, dict]:
    return conftest.run_lab(tmp_path, "fault_resume", *args, timeout=timeout)


def test_an_exit_counts_as_the_fault_only_with_its_code_or_the_peer_it_broke():
    killed = {"exitcode": -9, "local_rank": 1, "error": ""}
    closed = {"exitcode": -15, "local_rank": 0, "error": "RuntimeError: [pair.cc:553] Connection closed by peer"}
    reset = {"exitcode": -15, "local_rank": 0, "error": "RuntimeError: Got the following error when running the "
             "callback: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Read error: Connection reset by peer"}
    nccl = {"exitcode": -6, "local_rank": 0, "error": "DistBackendError: NCCL error: remote process exited or "
            "there was a network error"}
    stopped = {"exitcode": -15, "local_rank": 0, "error": ""}
    other = {"exitcode": 1, "local_rank": 0, "error": "ValueError: shapes (4,) and (8,) not aligned"}
    assert fault_exit(killed, "kill", 1) == "own" and fault_exit(killed, "corrupt", 1) == "own"
    assert all(fault_exit(e, "kill", 1) == "peer" for e in (closed, reset, nccl))
    assert not fault_exit(stopped, "kill", 1) and not fault_exit(other, "kill", 1)
    assert not fault_exit(killed, "exception", 1) and not fault_exit(killed, "kill", 0)
    assert not fault_exit({**closed, "exitcode": 0}, "kill", 1)  # a clean exit is no fault, whatever it logged


@pytest.mark.parametrize("fault", ["kill", "exception", "corrupt"])
def test_failure_is_recovered_bit_exactly_with_evidence(tmp_path, fault):
    code, rep = run_lab(tmp_path, "--fault", fault, "--fault-step", "12")
    assert code == 0, rep["checks"]
    assert rep["passed"] and all(rep["checks"].values())
    assert rep["restarts"] == 1 and rep["launches"] == 1
    assert any(fault_exit(e, fault, 1) for e in rep["worker_exits"])  # its own exit code, or the peer it broke
    resumed = rep["attempts"][1]["resumed_from"]
    assert [resumed] == rep["expected_resume_steps"] and resumed in (0, 5, 10)
    assert rep["lost_steps_per_failure"] == rep["implied_lost_steps"] == [12 - resumed]
    assert rep["bit_exact"] and rep["tensors_compared"] > 100 and rep["mismatches"] == []
    assert rep["recomputed_steps"] == list(range(resumed + 1, 13))
    rec, cold = rep["recovery_phases"][0], rep["cold_start_phases"]
    assert rec["total"] == rep["recovery_seconds"] > 0 and cold["total"] == rep["cold_start_seconds"] > 0
    assert all(rec["phases"][k] is not None for k in ("detection", "rendezvous", "imports", "pg_init", "first_step"))
    assert sum(rec["phases"][k] for k in rec["phases"] if k != "checkpoint_load") <= rec["total"] + 0.5
    for mode in ("sync", "async"):
        ck = rep["checkpoint"][mode]
        assert ck["saves"] >= 3 and ck["mb_per_s"] > 0 and ck["blocking_s_mean"] > 0
    assert (tmp_path / "run" / "loss.png").stat().st_size > 10_000
    if fault == "corrupt":
        (skipped,) = rep["skipped_checkpoints"]
        assert skipped["path"] == "step-000010"
        assert "checksum" in skipped["reason"] or "bytes" in skipped["reason"]
        assert resumed == 5


def test_preempt_saves_an_emergency_checkpoint_and_loses_nothing(tmp_path):
    code, rep = run_lab(tmp_path, "--fault", "preempt", "--fault-rank", "0", "--fault-step", "9")
    assert code == 0, rep["checks"]
    assert rep["launches"] == 2          # the job exited cleanly and was launched again
    assert rep["lost_steps"] == 0 and rep["recomputed_steps"] == []
    assert rep["attempts"][1]["resumed_from"] >= 9   # stopped at a step all ranks agreed on, not step 5
    assert rep["bit_exact"]


def test_async_blocks_training_less_than_sync(tmp_path):
    # Saves far enough apart for the idle-priority writer to finish between them: with the tiny default job's
    # 5 steps (about 0.25 s) each async save can wait for the previous write, and that wait counts as blocking.
    code, rep = run_lab(tmp_path, "--fault", "none", "--ckpt-every", "10", "--steps", "30")
    assert code == 0
    ck = rep["checkpoint"]
    assert ck["async"]["blocking_s_mean"] < ck["sync"]["blocking_s_mean"]


def test_every_negative_control_fails_for_its_reason(tmp_path):
    """The verdict's own evidence: seven broken variants of the run, each of which must fail on the checks
    named for it while the checks showing it ran still hold (see labs/fault_resume.py, `controls`)."""
    # sync saves for the run itself (no writer process to start per attempt: the test is shorter); the aliased
    # snapshot control sets async (and its fault step) for itself; 12 steps with the fault after step 6 still
    # resume from a checkpoint (step 5) and give the torn control its write at step 10, in half the time
    code, rep = run_lab(tmp_path, "--fault", "kill", "--ckpt-mode", "sync", "--controls", "--steps", "12",
                        "--fault-step", "6", timeout=600)
    assert code == 0, [(c["name"], c["failed_checks"]) for c in rep["controls"]]
    by_name = {c["name"]: c for c in rep["controls"]}
    assert len(by_name) == 7 and all(c["failed_as_designed"] for c in by_name.values())
    assert "optimizer" in by_name["skip-optimizer-restore"]["parts_differing"]
    assert "rng" in by_name["skip-rng-restore"]["parts_differing"]
    assert "sampler" in by_name["skip-data-restore"]["parts_differing"]
    assert "scheduler" in by_name["skip-scheduler-restore"]["parts_differing"]
    assert "model" in by_name["aliased-async-snapshot"]["parts_differing"]
    assert {"worker_exit_seen", "restarts_match_faults"} <= set(by_name["noop-fault"]["failed_checks"])
    assert "checkpoint_loads_clean" in by_name["torn-write-without-atomic-commit"]["failed_checks"]


def test_soak_survives_many_kill_restart_cycles(tmp_path):
    code, rep = run_lab(tmp_path, "--fault", "kill", "--kill-cycles", "4", "--steps", "24", timeout=400)
    assert code == 0, rep["checks"]
    assert rep["restarts"] == 4 and rep["reconnect_errors"] == []
    assert rep["bit_exact"]


def test_two_nodes_rendezvous_and_recover_together(tmp_path):
    """Two agents on one machine stand in for two nodes: c10d rendezvous, a rank on node B dies, both
    nodes restart and resume from the shared checkpoint folder."""
    import socket

    with socket.socket() as s:
        s.bind(("localhost", 0))
        port = s.getsockname()[1]
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "labs.run", "fault_resume", "--nnodes", "2", "--nproc", "1",
           "--rdzv-endpoint", f"localhost:{port}", "--out", str(out), "--fault", "kill", "--fault-rank", "1"]
    nodes = [subprocess.Popen(cmd, cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
             for _ in range(2)]
    codes = [n.wait(timeout=240) for n in nodes]
    rep = json.loads((out / "report.json").read_text())
    assert codes == [0, 0], rep["checks"]
    assert rep["restarts"] == 1 and rep["bit_exact"] and rep["checks"]["job_completed"]


def test_a_writer_left_running_is_caught_and_an_exited_one_is_not():
    from labs.fault_resume import live_writers

    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert live_writers([{"ev": "ckpt", "writer_pid": proc.pid}], wait_s=0.5) == [proc.pid]
    finally:
        proc.kill()
        proc.wait()
    assert live_writers([{"ev": "ckpt", "writer_pid": proc.pid}, {"ev": "step", "step": 1}]) == []
