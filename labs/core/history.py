"""Lab runs on disk, for a front end: past runs under runs/<lab>/<stamp>/, their reports and plots, and how far a
running lab has got. Read-only, and imports no torch, so listing runs stays fast.
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from labs.core.events import read_events
from labs.registry import LABS

REPORT = "report.json"
# Report fields that are not figures: identity, plumbing, or too long for a summary table.
NOT_FIGURES = frozenset({"lab", "passed", "plot", "torchrun_command"})


@dataclass(frozen=True)
class Run:
    lab: str
    path: Path
    report: dict[str, Any] | None  # None while the run is going, or when it died before writing one

    @property
    def stamp(self) -> str:
        return self.path.name

    @property
    def passed(self) -> bool | None:
        return None if self.report is None else bool(self.report.get("passed"))


def available() -> dict[str, str]:
    """The registry's labs whose module exists (the registry also names labs still to be written)."""
    return {name: desc for name, desc in LABS.items() if importlib.util.find_spec(f"labs.{name}") is not None}


def read_report(run_dir: Path) -> dict[str, Any] | None:
    """The run's report.json, or None when it is missing or half written."""
    try:
        data = json.loads((Path(run_dir) / REPORT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def list_runs(root: Path, lab: str | None = None, limit: int | None = None) -> list[Run]:
    """Runs under `root` (runs/), newest first; only folders of known labs."""
    labs = [lab] if lab else list(LABS)
    folders = [p for name in labs if (root / name).is_dir() for p in (root / name).iterdir() if p.is_dir()]
    folders.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    return [Run(p.parent.name, p, read_report(p)) for p in folders[:limit]]


def plots(run_dir: Path) -> list[Path]:
    return sorted(Path(run_dir).glob("*.png"))


def figures(report: dict[str, Any]) -> dict[str, Any]:
    """The report's top-level numbers, booleans and short strings: what a summary table can show."""
    out: dict[str, Any] = {}
    for key, value in report.items():
        if key in NOT_FIGURES:
            continue
        if isinstance(value, bool | int | float) or (isinstance(value, str) and len(value) <= 80):
            out[key] = value
    return out


def progress(run_dir: Path) -> dict[str, int]:
    """Job folder -> the last step rank 0 logged, for every job of a run that has logged an event yet
    (fault_resume runs `faulted/` then `reference/`)."""
    out: dict[str, int] = {}
    for events in sorted(Path(run_dir).glob("*/events")):
        steps = [e["step"] for e in read_events(events, rank=0) if e.get("ev") == "step"]
        out[events.parent.name] = steps[-1] if steps else 0
    return out


def tail(path: Path, lines: int = 40) -> str:
    """The last lines of a log, '' when it does not exist yet."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])
