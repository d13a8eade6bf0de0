"""Run folders, report.json, the loss plot and the terminal summary every lab writes."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import Any, TypeVar

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

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


def plot_loss(path: Path, reference: dict[int, float], attempts: list[dict[str, Any]],
              faults: list[dict[str, Any]], title: str) -> None:
    """Loss per step: the reference as a line, each attempt of the faulted run on top, faults and
    resume points marked."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
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
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
