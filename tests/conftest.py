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
