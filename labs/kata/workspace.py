"""The user's kata files: one `<name>.py` per kata under `<data dir>/katas/`, written from the stub once.

Starting a kata never overwrites the user's work unless asked to (`force`), and then keeps the old file
beside it as `<name>.py.bak`.
"""

from __future__ import annotations

from pathlib import Path

from labs.kata.catalog import Kata


def folder(data_dir: Path) -> Path:
    return data_dir / "katas"


def solution_path(data_dir: Path, kata: Kata) -> Path:
    return folder(data_dir) / f"{kata.name}.py"


def start(data_dir: Path, kata: Kata, force: bool = False) -> tuple[Path, bool]:
    """Write the stub to the user's file; returns (path, written). An existing file is kept unless `force`."""
    path = solution_path(data_dir, kata)
    if path.exists() and not force:
        return path, False
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.replace(path.with_suffix(".py.bak"))
    path.write_text(kata.stub(), encoding="utf-8")
    return path, True


def save(data_dir: Path, kata: Kata, code: str) -> Path:
    """The app's editor writes the user's code here before a check (the file the CLI would judge too)."""
    path = solution_path(data_dir, kata)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(code, encoding="utf-8")
    return path
