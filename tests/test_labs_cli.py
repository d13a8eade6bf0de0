"""The lab runner's command line: listing, help, and clear errors with exit code 2."""

import subprocess
import sys

from conftest import ROOT, env
from labs.registry import LABS


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "labs.run", *args], cwd=ROOT, env=env(),
                          capture_output=True, text=True, timeout=120)


def test_list_names_every_lab_with_a_description():
    out = run("--list")
    assert out.returncode == 0
    for name, desc in LABS.items():
        assert name in out.stdout and desc in out.stdout


def test_lab_help_shows_its_documented_options():
    out = run("fault_resume", "--help")
    assert out.returncode == 0
    assert "--fault {none,kill,exception,preempt,corrupt,hang,torn,noop}" in out.stdout
    assert "SIGKILL one rank" in out.stdout          # field docstrings become the help text
    assert "--rdzv-endpoint" in out.stdout and "--nproc" in out.stdout


def test_unknown_lab_exits_2_and_lists_labs():
    out = run("no_such_lab")
    assert out.returncode == 2
    assert "unknown lab 'no_such_lab'" in out.stderr and "fault_resume" in out.stderr


def test_bad_option_exits_2_with_message():
    out = run("fault_resume", "--fault", "meteor")
    assert out.returncode == 2
    assert "invalid choice: 'meteor'" in out.stderr
    out = run("fault_resume", "--steps", "many")
    assert out.returncode == 2 and "invalid int value" in out.stderr


def test_impossible_config_exits_2_before_launching(tmp_path):
    out = run("fault_resume", "--fault", "corrupt", "--fault-step", "6", "--out", str(tmp_path / "r"))
    assert out.returncode == 2
    assert "needs --fault-step >= 2 * --ckpt-every" in out.stdout
