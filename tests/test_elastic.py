"""elastic: three torchrun agents stand in for three nodes; one dies for good and the job shrinks to two."""

import json
import subprocess
import sys

from conftest import ROOT, env


def test_job_shrinks_reshards_and_keeps_the_global_batch(tmp_path):
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "labs.run", "elastic", "--out", str(out)], cwd=ROOT, env=env(),
                          capture_output=True, text=True, timeout=300)
    rep = json.loads((out / "report.json").read_text())
    assert proc.returncode == 0, rep["checks"]
    assert [a["world"] for a in rep["attempts"]] == [3, 2]
    assert [a["accum"] for a in rep["attempts"]] == [2, 3]
    assert rep["attempts"][1]["checkpoint_world"] == 3           # a 3-rank DCP checkpoint loaded by 2 ranks
    assert rep["agent_exit_codes"][2] == -9 and rep["lost_steps"] == 3
    assert rep["loss_max_rel_diff"] < 1e-4


def test_a_batch_that_cannot_stay_constant_is_refused(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "labs.run", "elastic", "--global-batch", "10", "--out",
                           str(tmp_path / "r")], cwd=ROOT, env=env(), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "must divide by --micro-batch x world" in proc.stdout
