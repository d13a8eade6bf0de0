"""What torchrun's agent saw, and where a recovery's seconds went: parsed from agent.log and the event logs.

The agent (run with LOGLEVEL=INFO by labs/core/launch.py) logs, with a timestamp, each worker exit it
detects ("failed (exitcode: -9) local_rank: 1"), when it stops the worker group, when it starts a
rendezvous and when it starts the new workers. The workers log their own process start, process-group
init time, checkpoint load and first step (labs/core/train.py). Together they split a recovery into:

    detection   fault -> the agent notices a worker exit          (monitor interval, peers' error path)
    teardown    -> the agent has stopped the other workers         (SIGTERM, their grace period)
    rendezvous  -> the agents agree on the new membership          (c10d store, last-call timeout)
    spawn       -> the new worker processes exist                  (fork/exec)
    imports     -> they enter main                                 (Python and torch imports, config)
    pg_init     -> init_process_group returns                      (store rendezvous, gloo/NCCL connections)
    build_load  -> model built and checkpoint loaded and verified  (DCP read, checksums of this rank's share)
    first_step  -> the first step after the resume is done
A cold start has the same phases from `spawn` on, plus the rendezvous, so the two can be compared.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from labs.core.watchdog import HANG_EXIT_CODE

GLOG = re.compile(r"^[IWE](\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2}(?:\.\d+)?) +\d+ [^\]]*\] (.*)$")
EXIT = re.compile(r"failed \(exitcode: (-?\d+)\) local_rank: (\d+)")
MARKS = {"rendezvous": "Rendezvous'ing worker group", "start": "Starting worker group"}


def agent_lines(log: Path) -> list[tuple[float, str]]:
    """(wall-clock time, message) of every glog line of an agent log; the year is taken from the file."""
    if not log.exists():
        return []
    year = time.localtime(log.stat().st_mtime).tm_year
    out = []
    for line in log.read_text(errors="replace").splitlines():
        m = GLOG.match(line)
        if m:
            month, day, hour, minute, sec, msg = m.groups()
            whole = time.mktime((year, int(month), int(day), int(hour), int(minute), 0, 0, 0, -1))
            out.append((whole + float(sec), msg))
    return out


def worker_exits(lines: list[tuple[float, str]]) -> list[dict[str, Any]]:
    """Worker exits the agent detected: when, which local rank (the first it noticed), which exit code."""
    found = []
    for t, msg in lines:
        m = EXIT.search(msg)
        if m:
            found.append({"t": t, "exitcode": int(m.group(1)), "local_rank": int(m.group(2))})
    return found


def exit_causes(logs: Path, exits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each reported exit with the first line of the error file its worker wrote (torchelastic's @record), if
    any. The agent reports one failure per attempt, the earliest by timestamp, and a worker that wrote an error
    file is timed by it: when a rank is SIGKILLed while its peer waits in a collective, the peer's "Connection
    closed by peer" is often recorded before the agent polls the killed rank, so the agent names the peer (torn
    down: -15) and the cause is only in the peer's error file."""
    out = []
    for attempt, e in enumerate(exits):
        files = sorted(logs.glob(f"*/attempt_{attempt}/{e['local_rank']}/error.json"))
        cause = ""
        if files:
            try:
                msg = json.loads(files[0].read_text())["message"]
                cause = (msg.get("message", "") if isinstance(msg, dict) else str(msg)).splitlines()[0][:300]
            except (OSError, ValueError, KeyError, IndexError, AttributeError):
                cause = "unreadable error file"
        out.append({**e, "error": cause})
    return out


# What a worker's error says when the rank it was exchanging with died: gloo ("Connection closed by peer",
# "Connection reset by peer", "Broken pipe"), NCCL ("remote process exited", a communicator aborted), the
# store's socket. A pattern for the kind of message, not one backend's wording.
LOST_PEER = re.compile(r"by peer|broken pipe|connection (?:closed|reset|refused|lost)|remote (?:process|worker)"
                       r"|aborted|socket", re.I)
# How the fault's own worker ends, as the agent reports it: SIGKILL, or an uncaught Python exception. A hang
# ends with the watchdog's exit code, on whichever rank's watchdog fired first (the ranks left waiting).
FAULT_EXIT = {"kill": -9, "corrupt": -9, "torn": -9, "exception": 1}


def fault_exit(e: dict[str, Any], fault: str, local_rank: int) -> str:
    """How an exit the agent reported shows the fault: "own" (the faulty worker, with the exit code its fault
    causes), "peer" (another worker, torn down after losing its connection to the faulty one, which its error
    file says), or "" (neither: a clean stop, another failure, or no error file to tell)."""
    if e["exitcode"] == FAULT_EXIT.get(fault) and e["local_rank"] == local_rank:
        return "own"
    if fault == "hang" and e["exitcode"] == HANG_EXIT_CODE:
        return "own"
    if e["exitcode"] != 0 and e["local_rank"] != local_rank and LOST_PEER.search(e.get("error", "")):
        return "peer"
    return ""


def _after(lines: list[tuple[float, str]], t: float, mark: str) -> float | None:
    return next((lt for lt, msg in lines if lt >= t and MARKS[mark] in msg), None)


def _span(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else max(0.0, b - a)


def worker_phases(start: dict[str, Any], ready: dict[str, Any] | None, first_step_t: float | None,
                  since: float | None) -> dict[str, float | None]:
    """From `since` (the agent starting the workers) to the first step, from rank 0's `start` and `ready`."""
    main_t = start["t"] - start.get("pg_init_s", 0.0)
    ready_t = ready["t"] if ready else None
    return {"spawn": _span(since, start.get("launched_t")), "imports": _span(start.get("launched_t"), main_t),
            "pg_init": start.get("pg_init_s"), "build_load": _span(start["t"], ready_t),
            "checkpoint_load": ready.get("load_s") if ready else None, "first_step": _span(ready_t, first_step_t)}


def recovery_phases(fault_t: float, lines: list[tuple[float, str]], start: dict[str, Any],
                    ready: dict[str, Any] | None, first_step_t: float | None) -> dict[str, Any]:
    """One recovery split into phases (seconds); `total` is fault to first resumed step."""
    exits = [e for e in worker_exits(lines) if e["t"] >= fault_t - 1.0]  # glog rounds to microseconds
    detected = exits[0]["t"] if exits else None
    rdzv = _after(lines, detected, "rendezvous") if detected else None
    started = _after(lines, rdzv, "start") if rdzv else None
    phases = {"detection": _span(fault_t, detected), "teardown": _span(detected, rdzv),
              "rendezvous": _span(rdzv, started), **worker_phases(start, ready, first_step_t, started)}
    return {"phases": phases, "total": _span(fault_t, first_step_t)}


def cold_start_phases(launched_t: float, lines: list[tuple[float, str]], start: dict[str, Any],
                      ready: dict[str, Any] | None, first_step_t: float | None) -> dict[str, Any]:
    """A first launch split the same way: agent start and rendezvous, then the workers' phases."""
    rdzv = _after(lines, launched_t, "rendezvous")
    started = _after(lines, rdzv, "start") if rdzv else None
    phases = {"agent_start": _span(launched_t, rdzv), "rendezvous": _span(rdzv, started),
              **worker_phases(start, ready, first_step_t, started)}
    return {"phases": phases, "total": _span(launched_t, first_step_t)}
