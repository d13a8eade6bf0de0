"""fault_resume end to end: real torchrun jobs on 2 CPU processes, one fault kind per test.

Each test runs the lab exactly as a user would (`python -m labs.run fault_resume ...`) and asserts on the
report it wrote. The last tests show that the verification can fail: a checkpoint without RNG state or
data position does not resume bit-exactly, and the lab says so with exit code 1.
"""

import json
import subprocess
import sys

import pytest

import conftest
from conftest import ROOT, env


def run_lab(tmp_path, *args: str, timeout: int = 240) -> tuple[int, dict]:
    return conftest.run_lab(tmp_path, "fault_resume", *args, timeout=timeout)


@pytest.mark.parametrize("fault, bound", [("kill", 5), ("exception", 5), ("corrupt", 10)])
def test_failure_is_recovered_bit_exactly(tmp_path, fault, bound):
    code, rep = run_lab(tmp_path, "--fault", fault, "--fault-step", "12")
    assert code == 0, rep["checks"]
    assert rep["passed"] and all(rep["checks"].values())
    assert rep["restarts"] == 1 and rep["launches"] == 1
    assert rep["bit_exact"] and rep["tensors_compared"] > 50 and rep["mismatches"] == []
    assert 0 < rep["lost_steps"] <= bound
    assert rep["recomputed_steps"] == list(range(12 - rep["lost_steps"] + 1, 13))
    assert rep["recovery_seconds"] > 0 and rep["cold_start_seconds"] > 0
    assert rep["samples_per_step"]["1"] and len(rep["samples_per_step"]) == 24
    for mode in ("sync", "async"):
        ck = rep["checkpoint"][mode]
        assert ck["saves"] >= 3 and ck["mb_per_s"] > 0 and ck["blocking_s_mean"] > 0
    assert (tmp_path / "run" / "loss.png").stat().st_size > 10_000
    assert list((tmp_path / "run" / "faulted" / "logs").rglob("stderr.log"))
    if fault == "corrupt":
        (skipped,) = rep["skipped_checkpoints"]
        assert skipped["path"] == "step-000010"
        assert "checksum" in skipped["reason"] or "bytes" in skipped["reason"]
        assert rep["attempts"][1]["resumed_from"] == 5


def test_preempt_saves_an_emergency_checkpoint_and_loses_nothing(tmp_path):
    code, rep = run_lab(tmp_path, "--fault", "preempt", "--fault-rank", "0", "--fault-step", "9")
    assert code == 0, rep["checks"]
    assert rep["launches"] == 2          # the job exited cleanly and was launched again
    assert rep["lost_steps"] == 0 and rep["recomputed_steps"] == []
    assert rep["attempts"][1]["resumed_from"] >= 9   # stopped at a step all ranks agreed on, not step 5
    assert rep["bit_exact"]


def test_async_blocks_training_less_than_sync(tmp_path):
    code, rep = run_lab(tmp_path, "--fault", "none")
    assert code == 0
    ck = rep["checkpoint"]
    assert ck["async"]["blocking_s_mean"] < ck["sync"]["blocking_s_mean"]


@pytest.mark.parametrize("dropped, failing", [("rng", "losses_identical"), ("data", "samples_identical")])
def test_dropping_state_from_the_checkpoint_breaks_exact_resume(tmp_path, dropped, failing):
    code, rep = run_lab(tmp_path, "--fault", "kill", "--skip-state", dropped)
    assert code == 1 and not rep["passed"]
    assert rep["checks"]["fault_fired"] and rep["checks"]["job_completed"]
    assert not rep["checks"]["bit_exact"] and not rep["checks"][failing]
    assert any("values differ" in m for m in rep["mismatches"])


def test_soak_survives_many_kill_restart_cycles(tmp_path):
    code, rep = run_lab(tmp_path, "--fault", "kill", "--kill-cycles", "6", "--steps", "24", timeout=400)
    assert code == 0, rep["checks"]
    assert rep["restarts"] == 6 and rep["reconnect_errors"] == []
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
