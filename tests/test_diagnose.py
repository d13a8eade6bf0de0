"""diagnose on the failure zoo: logs our labs wrote (tests/data/logs/<case>/) and hand-written samples of the
failures a CPU cannot produce (tests/data/logs/samples/, see the README there). Each runs the lab as a user
would, `python -m labs.run diagnose LOG`, and checks the category, the evidence and the exit code."""

import json
import subprocess
import sys

import pytest

from conftest import ROOT, env

LOGS = ROOT / "tests" / "data" / "logs"


def diagnose(tmp_path, *args: str) -> tuple[subprocess.CompletedProcess, dict]:
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "labs.run", "diagnose", *args, "--out", str(out), "--json"],
                          cwd=ROOT, env=env(), capture_output=True, text=True, timeout=60)
    report = json.loads((out / "report.json").read_text()) if (out / "report.json").exists() else {}
    return proc, report


@pytest.mark.parametrize("case, category, cause", [
    ("kill", "signal", "signal"),
    ("exception", "python_exception", "python_exception"),
    ("preempt", "signal", "signal"),
    ("restarts_exhausted", "restarts_exhausted", "python_exception"),
    ("hang_timeout", "timeout", "timeout"),
    ("samples/cuda_oom", "oom", "oom"),
    ("samples/nccl_timeout", "timeout", "timeout"),
    ("samples/xid_ecc", "hardware", "hardware"),
    ("samples/illegal_memory_access", "cuda_error", "cuda_error"),
    ("samples/device_assert", "cuda_error", "cuda_error"),
    ("samples/host_oom", "oom", "oom"),
])
def test_each_log_gets_its_category(tmp_path, case, category, cause):
    proc, rep = diagnose(tmp_path, str(LOGS / case))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert rep["category"] == category and rep["cause"]["category"] == cause
    assert rep["passed"] and rep["checks"] == {"log_found": True, "classified": True}
    assert rep["evidence"] and all(e["line"] >= 1 for e in rep["evidence"])
    assert set(rep["next_steps"]) == {"collect", "classify", "isolate", "recover"}
    assert json.loads(proc.stdout)["category"] == category       # --json prints the same report


def test_kill_names_the_killed_rank_not_the_bystander(tmp_path):
    _, rep = diagnose(tmp_path, str(LOGS / "kill"))
    assert "SIGKILL" in rep["cause"]["kind"]
    assert rep["origin"]["file"] == "agent.log" and rep["origin"]["rank"] == 1
    assert rep["origin"]["rank_log"]["bytes"] == 0          # a SIGKILLed rank leaves no traceback
    bystander = [e for e in rep["evidence"] if e["category"] == "peer_lost"]
    assert bystander and bystander[0]["rank"] == 0 and "Connection reset by peer" in bystander[0]["text"]


def test_exception_gives_type_innermost_frame_and_first_file(tmp_path):
    _, rep = diagnose(tmp_path, str(LOGS / "exception"))
    assert rep["cause"]["exception"] == "labs.fault.InjectedFault"
    assert rep["cause"]["frame"].endswith("labs/fault.py:51 in fire")
    assert rep["origin"]["file"].endswith("attempt_0/1/stderr.log")
    assert rep["origin"]["attempt"] == 0 and rep["origin"]["rank"] == 1


def test_restarts_exhausted_trusts_torchruns_root_cause_section(tmp_path):
    _, rep = diagnose(tmp_path, str(LOGS / "restarts_exhausted"))
    assert rep["cause"]["exception"] == "labs.fault.InjectedFault" and rep["origin"]["rank"] == 1
    top = rep["evidence"][0]
    assert top["root_cause"] and top["file"] == "agent.log"
    assert rep["next_steps_for_cause"]["isolate"]                  # the cause underneath gets its steps too


def test_preempt_is_sigterm_not_the_agent_stopping_workers(tmp_path):
    _, rep = diagnose(tmp_path, str(LOGS / "preempt"))
    assert "SIGTERM" in rep["cause"]["kind"] and "death signal" in rep["cause"]["line"]
    assert not any("closing signal" in e["text"] for e in rep["evidence"])


def test_timeouts_name_the_silent_rank(tmp_path):
    _, rep = diagnose(tmp_path, str(LOGS / "samples/nccl_timeout"))
    assert rep["cause"]["ranks"] == {"reporting": [0, 1, 3], "silent": [2]}
    collect = rep["next_steps"]["collect"]
    assert "py-spy dump" in collect and "TORCH_NCCL_TRACE_BUFFER_SIZE" in collect
    _, rep = diagnose(tmp_path, str(LOGS / "hang_timeout"))
    assert rep["cause"]["ranks"] == {"reporting": [0], "silent": [1]}   # world size known from the rank folders


def test_xid_codes_are_explained_and_the_node_drained(tmp_path):
    _, rep = diagnose(tmp_path, str(LOGS / "samples/xid_ecc" / "dmesg.log"))
    assert set(rep["cause"]["xid"]) == {"48", "63", "79", "94"}
    assert rep["cause"]["xid"]["79"] == "GPU has fallen off the bus"
    assert "dcgmi diag" in rep["next_steps"]["isolate"] and "drain" in rep["next_steps"]["isolate"]


def test_oom_kinds(tmp_path):
    _, rep = diagnose(tmp_path, str(LOGS / "samples/cuda_oom"))
    assert rep["cause"]["kind"] == "CUDA out of memory" and rep["origin"]["rank"] == 3
    assert rep["cause"]["frame"] == "/opt/train/model.py:97 in forward"
    _, rep = diagnose(tmp_path, str(LOGS / "samples/host_oom"))
    assert "OOM killer" in rep["cause"]["kind"]      # outweighs the plain `exitcode: -9` in agent.log


def test_unknown_log_is_unclassified_with_a_hint(tmp_path):
    proc, rep = diagnose(tmp_path, str(LOGS / "samples/unknown"))
    assert proc.returncode == 1
    assert rep["category"] == "unclassified" and not rep["passed"] and rep["evidence"] == []
    assert "NCCL_DEBUG=INFO" in rep["hint"] and "RULES" in rep["hint"]


def test_table_output_and_the_log_flag(tmp_path):
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "labs.run", "diagnose", "--log", str(LOGS / "exception"),
                           "--out", str(out)], cwd=ROOT, env=env(), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    for text in ("python_exception", "InjectedFault", "evidence", "collect", "recover", "report.json"):
        assert text in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "labs.run", "diagnose", str(LOGS / "samples/unknown"),
                           "--out", str(out)], cwd=ROOT, env=env(), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "unclassified" in proc.stdout


@pytest.mark.parametrize("args", [["no/such/file.log"], []])
def test_missing_log_is_a_clear_error(tmp_path, args):
    proc, rep = diagnose(tmp_path, *args)
    assert proc.returncode == 2 and rep == {}
    assert "no such log" in proc.stdout


def test_a_run_writes_its_report_and_evidence_plot(tmp_path):
    import subprocess
    import sys

    from conftest import ROOT, env

    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "labs.run", "diagnose", str(ROOT / "tests/data/logs/kill"), "--out",
                           str(out)], cwd=ROOT, env=env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (out / "evidence.png").stat().st_size > 5_000
    assert __import__("json").loads((out / "report.json").read_text())["category"] == "signal"
