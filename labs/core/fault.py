"""Fault injection: real process deaths, exceptions, preemption signals, hangs and torn checkpoints.

A fault fires once: on the first attempt (TORCHELASTIC_RESTART_COUNT == 0) of the first launch, and only
if no earlier attempt left the `fault_fired.json` marker, so the restarted job runs clean.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

from labs.core.checkpoint import Checkpointer, committed_steps
from labs.core.events import EventLog

KINDS = ["none", "kill", "exception", "preempt", "corrupt", "hang", "torn", "noop"]
# `noop` is the negative control: it logs that it fired and does nothing, so a verdict that does not check
# for the failure's effects (a worker exit, a restart, a resume) would pass it.
# When each fault strikes: at the start of its step (before the step's collectives), inside the step's
# checkpoint write, or (the default) after the step and before its checkpoint.
MOMENT = {"hang": "start", "torn": "checkpoint"}


class InjectedFault(RuntimeError):
    """Raised by the `exception` fault: an ordinary Python error on one rank."""


class Fault:
    def __init__(self, kind: str, rank: int, step: int, marker: Path, restart_count: int, launch: int,
                 cycles: int = 1) -> None:
        self.kind, self.rank, self.step, self.marker = kind, rank, step, marker
        self.restart_count, self.launch, self.cycles = restart_count, launch, cycles

    def due(self, rank: int, step: int, first_step: int, when: str = "end") -> bool:
        """True when this rank must fail now (`when`: start, end or checkpoint). With `cycles` > 1 (the soak)
        the kill fires again on each of the first `cycles` attempts, two steps after wherever it resumed."""
        if self.kind == "none" or rank != self.rank or self.launch > 0 or when != MOMENT.get(self.kind, "end"):
            return False
        if self.cycles > 1:
            return self.restart_count < self.cycles and step == first_step + 2
        return step == self.step and self.restart_count == 0 and not self.marker.exists()

    def _mark(self, step: int, log: EventLog, **extra: Any) -> None:
        self.marker.write_text(json.dumps({"kind": self.kind, "step": step, "t": time.time()}))
        log.log("fault", kind=self.kind, step=step, **extra)

    def fire(self, step: int, log: EventLog, ckpt: Checkpointer) -> None:
        if self.kind == "corrupt":
            ckpt.wait()
            self._mark(step, log, corrupted=_truncate_newest(ckpt.root))
            os.kill(os.getpid(), signal.SIGKILL)
        self._mark(step, log)
        if self.kind == "kill":
            os.kill(os.getpid(), signal.SIGKILL)  # no cleanup, no exception: as when the OOM killer strikes
        if self.kind == "exception":
            raise InjectedFault(f"injected exception on rank {self.rank} at step {step}")
        if self.kind == "preempt":
            # The scheduler's SIGTERM reaches torchrun's agent (our parent), which forwards it to every worker.
            os.kill(os.getppid(), signal.SIGTERM)
        if self.kind == "hang":
            while True:  # stuck before the step's collectives, like a data loader that never returns
                time.sleep(1)

    def tear(self, step: int, path: Path, log: EventLog) -> None:
        """The `torn` fault, inside a checkpoint save, before its commit: only half of this rank's shard file
        is on disk (the rest cut off and fsynced, as a death mid-write leaves it), then the process dies."""
        size = path.stat().st_size
        self._mark(step, log, torn=f"{path.parent.name}/{path.name}", bytes_written=size // 2, bytes_total=size)
        with open(path, "r+b") as f:
            f.truncate(size // 2)
            f.flush()
            os.fsync(f.fileno())
        os.kill(os.getpid(), signal.SIGKILL)


def _truncate_newest(root: Path, wait_s: float = 30.0) -> str:
    """Cut the newest committed checkpoint's biggest shard file in half, as a torn write would."""
    deadline = time.monotonic() + wait_s  # until rank 0 committed every save in flight (async: its own thread)
    while (not committed_steps(root) or list(root.glob("step-*.tmp"))) and time.monotonic() < deadline:
        time.sleep(0.05)
    newest = committed_steps(root)[-1]
    target = max(newest.glob("*.distcp"), key=lambda p: p.stat().st_size)
    size = target.stat().st_size
    with open(target, "r+b") as f:
        f.truncate(size // 2)
    return f"{newest.name}/{target.name}"
