import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _isolated_data(tmp_path, monkeypatch):
    """User data and runs go to temp dirs, never to the developer's home."""
    monkeypatch.setenv("KGP_DATA_DIR", str(tmp_path / "userdata"))


def python() -> str:
    return sys.executable


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def run_lab(tmp_path: Path, lab: str, *args: str, timeout: int = 300) -> tuple[int, dict]:
    """Run `python -m labs.run LAB --out DIR ARGS` as a user would; return its exit code and report.json."""
    import json
    import subprocess

    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "labs.run", lab, "--out", str(out), *args],
                          cwd=ROOT, env=env(), capture_output=True, text=True, timeout=timeout)
    assert (out / "report.json").exists(), proc.stdout + proc.stderr
    return proc.returncode, json.loads((out / "report.json").read_text())


# ---- the Streamlit app (AppTest), for the tests/test_app*.py files ------------------------------------------

APP = Path(__file__).resolve().parents[1] / "app" / "streamlit_app.py"


@pytest.fixture
def at(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The app, run once, offline, with its runs in tmp_path (its data: `_isolated_data`)."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("KGP_RUNS_DIR", str(tmp_path / "runs"))
    for var in ("KGP_LLM_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)  # offline: no test may reach a real LLM
    app = AppTest.from_file(APP, default_timeout=60)
    app.run()
    assert not app.exception
    return app


@pytest.fixture
def conn():
    """The database the app writes (KGP_DATA_DIR: tmp_path/userdata)."""
    from coach.db import connect

    c = connect()
    yield c
    c.close()
