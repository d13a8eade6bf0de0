"""How long a lab takes, from the user's own past runs: a run's folder is named by its start time
(YYYYmmdd-HHMMSS, local time, by labs.core.background and labs.core.report) and its report.json is written
last, so end - start is the run's wall time. The estimate is the median of the latest runs with the same
options, else of the lab's latest runs with any options (and says so)."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Any

from labs.core import history

SAMPLES = 5  # the latest runs the median is taken over
IGNORED = frozenset({"out", "job"})  # where a run wrote, not what it ran


@dataclass(frozen=True)
class Estimate:
    seconds: float
    runs: int
    same_options: bool


def started(run: history.Run) -> float | None:
    try:
        return time.mktime(time.strptime(run.stamp[:15], "%Y%m%d-%H%M%S"))
    except ValueError:
        return None


def wall_seconds(run: history.Run) -> float | None:
    """The run's wall time, or None when it has no report or no readable start."""
    start = started(run)
    if start is None or run.report is None:
        return None
    try:
        end = (run.path / history.REPORT).stat().st_mtime
    except OSError:
        return None
    return end - start if end >= start else None


def options(config: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in config.items() if k not in IGNORED}


def estimate(runs: list[history.Run], config: dict[str, Any]) -> Estimate | None:
    """The median wall time of past runs (newest first, as history.list_runs gives them)."""
    timed = [(r, s) for r in runs if (s := wall_seconds(r)) is not None]
    same = [s for r, s in timed if options((r.report or {}).get("config") or {}) == options(config)]
    if same:
        return Estimate(statistics.median(same[:SAMPLES]), len(same[:SAMPLES]), True)
    if timed:
        return Estimate(statistics.median([s for _, s in timed[:SAMPLES]]), len(timed[:SAMPLES]), False)
    return None
