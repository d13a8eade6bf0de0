"""Per-rank event logs (JSON lines): what each worker did and when, read back by the orchestrator.

One file per rank and job folder; attempts append to the same file, so a restart shows up as a new
`start` event followed by the steps it recomputed. Lines are flushed at once: a SIGKILLed rank keeps
everything it logged before dying.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any


class EventLog:
    def __init__(self, folder: Path, rank: int, attempt: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.rank, self.attempt = rank, attempt
        self._file = open(folder / f"rank-{rank}.jsonl", "a", encoding="utf-8")
        self._lock = threading.Lock()  # async checkpoint threads log too

    def log(self, ev: str, **fields: Any) -> None:
        record = {"ev": ev, "t": time.time(), "rank": self.rank, "attempt": self.attempt, **fields}
        with self._lock:
            self._file.write(json.dumps(record) + "\n")
            self._file.flush()


def read_events(folder: Path, rank: int | None = None) -> list[dict[str, Any]]:
    """All events of one rank (or of every rank), in file order; a torn last line is ignored."""
    files = [folder / f"rank-{rank}.jsonl"] if rank is not None else sorted(folder.glob("rank-*.jsonl"))
    out: list[dict[str, Any]] = []
    for file in files:
        if not file.exists():
            continue
        for line in file.read_text(encoding="utf-8").splitlines():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return out
