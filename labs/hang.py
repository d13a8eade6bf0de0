r"""hang: one rank stalls before a collective; the others must not wait forever.

Run it:
    python -m labs.run hang                          # our watchdog (5 s) fires first, names rank 1
    python -m labs.run hang --watchdog-s 0 --pg-timeout-s 15   # only gloo's process-group timeout
The workers, as printed by the lab:
    TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 torchrun --nnodes=1 --nproc-per-node=2 --max-restarts=3 ... \
        -m labs.core.worker hang --out runs/x

At step 12, rank 1 stops before its step's collectives (as a rank stuck in a data loader or in I/O would).
Rank 0 issues the step's first DDP gradient all-reduce and waits. Two detectors race: our watchdog
(labs/core/watchdog.py: every collective call takes a sequence number, published with the rank's heartbeat
in the job's c10d store; a rank waiting longer than --watchdog-s reads every heartbeat, names the collective
and its number and the ranks that never issued it, asks gloo's monitored_barrier for a second opinion, and
exits) and the process-group timeout (--pg-timeout-s; gloo raises, and the rank logs the same diagnosis).
Either way the job fails fast, torchrun restarts it from the last checkpoint, and the lab checks the
diagnosis (right rank; the gradient all-reduce whose number is one past the stalled rank's last), the
detection time against the configured limit, and that the resumed run is bit-exact with an uninterrupted one.
`--controls` reruns the fault with phase-level markers (one marker set before backward, as an older
watchdog did): the collective check must then fail.

Watch the recovery time: torchrun stops the stalled rank with SIGTERM, but our graceful-preemption handler
only sets a flag for the next step boundary, which a stalled rank never reaches. Without a deadline the
agent would wait its fixed 30 s before SIGKILL; with --stop-grace-s (5 s) the rank leaves on its own.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from labs import fault_resume
from labs.core import report
from labs.core.events import read_events
from labs.fault_resume import check_config, worker  # noqa: F401  (labs.run checks, torchrun runs)

DESCRIPTION = "One rank stalls before a collective: timeout/watchdog names the rank and op, torchrun restarts"


@dataclass
class Config(fault_resume.Config):
    CHOICES: ClassVar[dict[str, list[str]]] = {**fault_resume.Config.CHOICES, "fault": ["hang", "none"]}

    fault: str = "hang"
    """The fault this lab injects: a rank that stalls before the step's collectives."""
    watchdog_s: float = 5.0
    """Our watchdog's limit: a rank waiting this long inside one collective ends the job (0: off)."""
    pg_timeout_s: float = 30.0
    """Process-group timeout (gloo raises after it); the watchdog should fire first."""


def hang_figures(cfg: Config, run_dir: Path, job: str) -> dict[str, Any]:
    events = read_events(run_dir / job / "events")
    fault = next((e for e in events if e["ev"] == "fault"), None)
    found = [e for e in events if e["ev"] in ("hang", "collective_error") and e.get("stalled_ranks")]
    if not fault or not found:
        return {"detected": False}
    first = min(found, key=lambda e: e["t"])
    limit = cfg.watchdog_s if first["ev"] == "hang" else cfg.pg_timeout_s
    detection = first["t"] - fault["t"]
    return {"detected": True, "detector": "watchdog" if first["ev"] == "hang" else "process-group timeout",
            "detection_s": detection, "configured_limit_s": limit, "detection_over_limit": detection / limit,
            "diagnosis": first["summary"], "stalled_ranks": first["stalled_ranks"],
            "collective": first["collective"], "collective_seq": first.get("collective_seq"),
            "stalled_issued": first.get("stalled_issued", {}), "waiting_ranks": first["waiting_ranks"],
            "monitored_barrier": first.get("monitored_barrier")}


def hang_checks(cfg: Config, hang: dict[str, Any]) -> dict[str, bool]:
    """The diagnosis must name the stalled rank, and the collective it never issued: the first gradient
    all-reduce of the step (the hang strikes before the forward pass), with the sequence number one past the
    last collective the stalled rank issued. Detection within the limit plus heartbeat and scheduling slack,
    never before it: a watchdog that fires early would kill healthy jobs."""
    if not hang["detected"]:
        return {"hang_detected": False}
    issued = hang["stalled_issued"].get(str(cfg.fault_rank))
    return {
        "hang_detected": True,
        "stalled_rank_named": hang["stalled_ranks"] == [cfg.fault_rank],
        "collective_named": (hang["collective"] or "").startswith("all_reduce (DDP gradient bucket")
        and issued is not None and issued >= 0 and hang["collective_seq"] == issued + 1,
        "detected_within_limit": 1.0 <= hang["detection_over_limit"] <= 1.5,
    }


def main(cfg: Config) -> int:
    run_dir, result = fault_resume.execute(cfg, "hang")
    hang = hang_figures(cfg, run_dir, cfg.job)
    result["hang"] = hang
    result["checks"] |= hang_checks(cfg, hang)
    if cfg.controls:  # phase-level markers (the old watchdog) cannot name the collective: the check must fail
        control = dataclasses.replace(cfg, out=str(run_dir), job="control-phase-markers", watchdog_markers="phase",
                                      controls=False)
        report.console.print("[bold]control[/] phase-markers: one marker per phase cannot name the collective")
        fault_resume.run_job(control, "hang")
        c_checks = hang_checks(control, hang_figures(control, run_dir, control.job))
        result["controls"] = [{"name": "phase-markers", "why": "a phase marker names no collective and no sequence",
                               "must_fail": ["collective_named"], "must_hold": ["hang_detected"],
                               "failed_checks": sorted(k for k, v in c_checks.items() if not v),
                               "failed_as_designed": c_checks["hang_detected"] and not c_checks.get(
                                   "collective_named", True)}]
        result["checks"]["controls_fail_as_designed"] = result["controls"][0]["failed_as_designed"]
    result["passed"] = all(result["checks"].values())
    report.write_json(run_dir / "report.json", result)
    extra = [(k, hang.get(k)) for k in ("detector", "detection_s", "configured_limit_s", "diagnosis",
                                        "monitored_barrier")]
    fault_resume.show(result, run_dir, extra)
    return 0 if result["passed"] else 1
