"""Run folders, the workers' job with its progress bar, report.json, plots and the terminal summary every lab writes."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from labs.core import launch
from labs.core.events import read_events

console = Console()
T = TypeVar("T")


def new_run_dir(lab: str, out: str) -> Path:
    """`out` if given, else runs/<lab>/<timestamp>/ (a suffix keeps two runs in one second apart)."""
    if out:
        path = Path(out)
    else:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = Path("runs") / lab / stamp
        n = 1
        while path.exists():
            path, n = Path("runs") / lab / f"{stamp}-{n}", n + 1
    path.mkdir(parents=True, exist_ok=True)
    return path


def open_run(lab: str, cfg: T) -> tuple[T, Path]:
    """Create the run folder and return `cfg` pointing at it (its `out`), so the workers write there too."""
    run_dir = new_run_dir(lab, cfg.out)  # type: ignore[attr-defined]
    return dataclasses.replace(cfg, out=str(run_dir)), run_dir  # type: ignore[type-var]


def write_json(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str), encoding="utf-8")


def progress(description: str) -> Progress:
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.fields[status]}"), TimeElapsedColumn(), console=console)


def run_workers(lab: str, cfg: Any, job_dir: Path, total: int,
                count: Callable[[list[dict[str, Any]]], tuple[int, str]]) -> launch.JobResult:
    """Print the workers' torchrun command and run it under a progress bar; `count(rank 0's events)` gives
    the bar's (done, status). The workers write `job_dir`/events and `job_dir`/logs."""
    cmd = launch.worker_command(lab, cfg, 0, job_dir / "logs")
    console.print(f"[dim]workers:[/] {launch.printable(cmd)}")
    path, size = job_dir / "events" / "rank-0.jsonl", [-1]
    with progress(lab) as bar:
        task = bar.add_task(lab, total=total, status="starting")

        def poll() -> None:  # parse only when rank 0 wrote: this process shares the cores the workers time
            now = path.stat().st_size if path.exists() else 0
            if now != size[0]:
                size[0] = now
                done, status = count(read_events(job_dir / "events", rank=0))
                bar.update(task, completed=done, status=status)

        return launch.run_job(cmd, job_dir / "logs" / "agent.log", cfg.timeout_s, poll=poll)


def counter(ev: str, status: Callable[[dict[str, Any]], str]) -> Callable[[list[dict[str, Any]]], tuple[int, str]]:
    """run_workers' `count`: how many `ev` events rank 0 wrote, and `status` of the last one."""
    def count(events: list[dict[str, Any]]) -> tuple[int, str]:
        done = [e for e in events if e["ev"] == ev]
        return len(done), status(done[-1]) if done else ""
    return count


def verdict_rows(result: dict[str, Any], keep: Callable[[str], bool] = lambda key: True) -> list[tuple[str, Any]]:
    """The summary's first rows: passed, then each check that `keep` selects and every failed one."""
    return [("passed", result["passed"])] + [(f"check: {k}", v) for k, v in result["checks"].items()
                                             if not v or keep(k)]


def summary_table(title: str, rows: list[tuple[str, Any]]) -> Table:
    table = Table(title=title, show_header=False)
    table.add_column("figure", style="bold")
    table.add_column("value")
    for name, value in rows:
        table.add_row(name, _fmt(value))
    return table


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "[green]yes[/]" if value else "[red]no[/]"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend: labs draw PNGs from workers and headless CI, never a window."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save_figure(fig: Any, path: Path) -> None:
    """Lay out, write at the labs' one resolution, and free the figure (pyplot keeps every open one)."""
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    pyplot().close(fig)


def plot_loss(path: Path, reference: dict[int, float], attempts: list[dict[str, Any]],
              faults: list[dict[str, Any]], title: str) -> None:
    """Loss per step: the reference as a line, each attempt of the faulted run on top, faults and
    resume points marked."""
    fig, ax = pyplot().subplots(figsize=(8, 4.5))
    steps = sorted(reference)
    ax.plot(steps, [reference[s] for s in steps], color="0.6", lw=4, alpha=0.6, label="uninterrupted reference")
    for a in attempts:
        xs = sorted(a["losses"])
        ax.plot(xs, [a["losses"][s] for s in xs], marker="o", ms=3, lw=1.2, label=f"attempt {a['attempt']}")
        if a.get("resumed_from"):
            ax.axvline(a["resumed_from"] + 0.5, color="green", ls=":", lw=1)
            ax.annotate(f"resume from step {a['resumed_from']}", (a["resumed_from"] + 0.5, ax.get_ylim()[1]),
                        color="green", fontsize=8, va="top", rotation=90)
    for f in faults:
        ax.axvline(f["step"], color="red", ls="--", lw=1)
        ax.annotate(f"{f['kind']} (rank {f['rank']})", (f["step"], ax.get_ylim()[1]), color="red",
                    fontsize=8, va="top", ha="right", rotation=90)
    ax.set_xlabel("step")
    ax.set_ylabel("training loss")
    ax.set_title(title)
    ax.legend(fontsize=8)
    save_figure(fig, path)
