"""Our watchdog for gloo, which (unlike NCCL's) has none: heartbeats, hang detection and a diagnosis.

Every rank keeps a heartbeat file saying what it is doing (`compute` or the collective it is inside,
at which step, since when). A thread refreshes it and, when this rank has waited inside one collective
longer than `limit_s`, reads every rank's heartbeat, names the ranks that never entered the collective,
logs the diagnosis and ends the process, so that torchrun restarts the job from its last checkpoint
instead of everyone waiting for the process-group timeout (gloo's default: 30 minutes).
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from labs.core.events import EventLog

HANG_EXIT_CODE = 3


class Watchdog:
    def __init__(self, folder: Path, rank: int, world: int, limit_s: float, log: EventLog,
                 beat_s: float = 0.25) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder, self.rank, self.world, self.limit_s, self.log = folder, rank, world, limit_s, log
        self.state: dict[str, Any] = {"rank": rank, "op": "compute", "step": 0, "since": time.time()}
        self._lock = threading.Lock()
        self._beat()
        threading.Thread(target=self._run, args=(beat_s,), daemon=True).start()

    def enter(self, op: str, step: int) -> None:
        """Mark that this rank is about to wait in collective `op` (or, for op='compute', working)."""
        with self._lock:
            self.state = {"rank": self.rank, "op": op, "step": step, "since": time.time()}
        self._beat()

    def _beat(self) -> None:
        path = self.folder / f"rank-{self.rank}.json"
        tmp = path.with_suffix(".tmp")
        with self._lock:  # the training thread and the watchdog thread both beat
            tmp.write_text(json.dumps({**self.state, "beat": time.time(), "pid": os.getpid()}))
            os.replace(tmp, path)  # readers never see a half-written heartbeat

    def _run(self, beat_s: float) -> None:
        while True:
            time.sleep(beat_s)
            self._beat()
            with self._lock:
                op, waited = self.state["op"], time.time() - self.state["since"]
            if self.limit_s > 0 and op != "compute" and waited > self.limit_s:
                diagnosis = diagnose(self.folder, self.world)
                self.log.log("hang", detector="watchdog", waited_s=waited, limit_s=self.limit_s, **diagnosis)
                os._exit(HANG_EXIT_CODE)  # from a thread: the main thread is stuck inside the collective


def read_heartbeats(folder: Path, world: int) -> list[dict[str, Any]]:
    beats = []
    for r in range(world):
        try:
            beats.append(json.loads((folder / f"rank-{r}.json").read_text()))
        except (FileNotFoundError, json.JSONDecodeError):
            beats.append({"rank": r, "op": "unknown", "step": -1, "since": 0.0, "beat": 0.0})
    return beats


def diagnose(folder: Path, world: int, now: float | None = None) -> dict[str, Any]:
    """Which collective the group is stuck in, who waits in it, and who never arrived (and why, if known)."""
    now = now or time.time()
    beats = read_heartbeats(folder, world)
    waiting = [b for b in beats if b["op"] not in ("compute", "unknown")]
    if not waiting:
        return {"collective": None, "collective_step": None, "waiting_ranks": [], "stalled_ranks": [],
                "summary": "no rank waits in a collective"}
    step = max(b["step"] for b in waiting)
    op = next(b["op"] for b in waiting if b["step"] == step)
    inside = [b["rank"] for b in waiting if b["step"] == step and b["op"] == op]
    stalled = [b for b in beats if b["rank"] not in inside]
    details = [f"rank {b['rank']}: last in {b['op']!r} at step {b['step']}, "
               f"{'alive' if now - b['beat'] < 2 else 'no heartbeat'} ({now - b['beat']:.1f}s since last beat)"
               for b in stalled]
    return {"collective": op, "collective_step": step, "waiting_ranks": inside,
            "stalled_ranks": [b["rank"] for b in stalled],
            "summary": f"ranks {inside} wait in {op} at step {step}; never arrived: " + "; ".join(details)}
