"""cluster_sim: the simulated goodput against Young/Daly and the first-order waste formula (labs.core.theory).

Each test runs the lab as a user would (`python -m labs.run cluster_sim ...`, in-process numpy, about a
second) and asserts on the report it wrote. One test shows the verification failing where the first-order
theory does not hold (checkpoint and restart costs not small against the job's MTBF).
"""

import json
import math
import subprocess
import sys

import pytest

from conftest import ROOT, env
from labs.core import theory


def run_lab(tmp_path, *args: str, cwd=ROOT) -> tuple[subprocess.CompletedProcess, dict]:
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "labs.run", "cluster_sim", "--out", str(out), *args],
                          cwd=cwd, env=env(), capture_output=True, text=True, timeout=120)
    report = json.loads((out / "report.json").read_text()) if (out / "report.json").exists() else {}
    return proc, report


def test_default_sweep_passes_against_young_daly(tmp_path):
    proc, rep = run_lab(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert rep["passed"] and all(rep["checks"].values()) and len(rep["checks"]) == 15
    assert [j["gpus"] for j in rep["jobs"]] == [1024, 4096, 16384]
    src = rep["failure_rate_source"]
    assert src["source"] == "https://arxiv.org/abs/2407.21783" and "2407.21783" in proc.stdout
    assert abs(src["job_mtbf_h"] - 3.09) < 0.01 and abs(rep["config"]["gpu_mtbf_h"] - 50_677) < 1
    for j in rep["jobs"]:
        m = theory.job_mtbf_hours(rep["config"]["gpu_mtbf_h"], j["gpus"]) * 3600
        assert j["young_daly_s"] == pytest.approx(theory.young_daly_interval(60.0, m))
        assert 0.7 < j["best_over_young_daly"] < 1.3
        g = j["goodput_at_young_daly"]
        assert g["simulated"] >= j["goodput_best_simulated"] - 0.005       # the curve is flat at the optimum
        assert abs(g["simulated"] - g["first_order"]) < 0.02
        assert j["failures"] > 90_000
    assert (tmp_path / "run" / "goodput.png").stat().st_size > 20_000
    assert "sweep" in proc.stdout and "Young/Daly" in proc.stdout


def test_goodput_matches_the_closed_form_when_costs_are_small(tmp_path):
    """C, R << M: every interval near the optimum agrees with 1 - expected_waste_fraction to 0.5%."""
    proc, rep = run_lab(tmp_path, "--gpus", "1024", "--ckpt-cost-s", "30", "--restart-cost-s", "60")
    assert proc.returncode == 0
    (job,) = rep["jobs"]
    m, yd = job["job_mtbf_h"]["theory"] * 3600, job["young_daly_s"]
    near = [s for s in job["sweep"] if yd / 2 <= s["interval_s"] <= 2 * yd]
    assert len(near) >= 5
    for s in near:
        closed = 1 - theory.expected_waste_fraction(s["interval_s"], 30.0, 60.0, m)
        assert s["goodput"] == pytest.approx(closed, abs=0.005)
    for s in job["sweep"]:                     # and everywhere with this model's exact expectation
        assert abs(s["goodput"] - s["renewal"]) <= 4 * s["se"] + 1e-9


def test_doubling_gpus_halves_mtbf_and_shortens_the_interval_by_sqrt2(tmp_path):
    proc, rep = run_lab(tmp_path, "--gpus", "4096,8192")
    assert proc.returncode == 0
    (s,) = rep["scaling"]
    assert s["job_mtbf_ratio"] == pytest.approx(2.0, rel=0.02)
    assert s["best_interval_ratio"] == pytest.approx(math.sqrt(2), rel=0.1)
    a, b = rep["jobs"]
    assert a["young_daly_s"] / b["young_daly_s"] == pytest.approx(math.sqrt(2))


def test_first_order_theory_fails_when_costs_are_not_small(tmp_path):
    """C = R = 50 min against a 3.1 h MTBF: Young/Daly's first order no longer predicts the goodput."""
    proc, rep = run_lab(tmp_path, "--gpus", "16384", "--ckpt-cost-s", "3000", "--restart-cost-s", "3000")
    assert proc.returncode == 1 and not rep["passed"]
    assert not rep["checks"]["16384 GPUs: goodput_matches_first_order"]
    assert rep["checks"]["16384 GPUs: goodput_matches_renewal_model"]   # the simulator itself is still right
    assert rep["jobs"][0]["max_abs_error_first_order_near_yd"] > 0.1


@pytest.mark.parametrize("args, message", [
    (["--ckpt-cost-s", "-5"], "--ckpt-cost-s > 0"),
    (["--restart-cost-s", "-1"], "--restart-cost-s >= 0"),
    (["--intervals", "600,0,1200"], "--intervals must all be > 0"),
    (["--intervals", "-300"], "--intervals must all be > 0"),
    (["--gpus", "0"], "--gpus must be positive"),
    (["--gpus", "1k"], "--gpus takes integers"),
    (["--gpu-mtbf-h", "0"], "--gpu-mtbf-h must be > 0"),
])
def test_bad_config_is_a_clear_error(tmp_path, args, message):
    proc, rep = run_lab(tmp_path, *args)
    assert proc.returncode == 2 and rep == {}
    assert message in proc.stdout


def test_without_out_it_writes_a_timestamped_run_folder(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "labs.run", "cluster_sim", "--gpus", "2048",
                           "--failures", "5000", "--points", "15"], cwd=tmp_path, env=env(),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (run,) = (tmp_path / "runs" / "cluster_sim").iterdir()
    assert (run / "report.json").exists() and (run / "goodput.png").exists()
