"""Start a lab in the background, exactly as `python -m labs.run NAME --out DIR [flags]` runs in a terminal, and
watch it: a front end (the app's Labs page) polls `LabProcess` and reads the run folder with `labs.core.history`.

The command is an argument list, never a shell string, so no option value can inject a command.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from labs.core.config import to_argv

ROOT = Path(__file__).resolve().parents[2]
LOG = "lab.log"  # the lab's own stdout and stderr, in its run folder


@dataclass
class LabProcess:
    lab: str
    out: Path
    argv: list[str]
    proc: subprocess.Popen = field(repr=False)
    started: float = field(default_factory=time.time)

    @property
    def log(self) -> Path:
        return self.out / LOG

    def poll(self) -> int | None:
        """The exit code, or None while it runs (0: the lab's verification passed)."""
        return self.proc.poll()

    def stop(self) -> None:
        """End the lab and its torchrun workers: they share the process group the lab leads."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass  # it ended meanwhile


def command(lab: str, flags: list[str]) -> list[str]:
    return [sys.executable, "-m", "labs.run", lab, *flags]


def new_run_folder(root: Path, lab: str) -> Path:
    """root/<lab>/<timestamp>/, the layout `labs.core.report.new_run_dir` gives runs without --out."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path, n = root / lab / stamp, 1
    while path.exists():
        path, n = root / lab / f"{stamp}-{n}", n + 1
    path.mkdir(parents=True)
    return path


def start(lab: str, cfg: object, runs_root: Path) -> LabProcess:
    """Launch `lab` with config `cfg` (an instance of the lab's Config) into a new folder under `runs_root`."""
    out = new_run_folder(Path(runs_root).resolve(), lab)
    cfg = dataclasses.replace(cfg, out=str(out)) if hasattr(cfg, "out") else cfg  # type: ignore[type-var]
    argv = command(lab, to_argv(cfg))
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path, "COLUMNS": "120"}  # rich wraps its tables at 80 columns in a file
    with open(out / LOG, "wb") as log:
        proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
    return LabProcess(lab, out, argv, proc)
