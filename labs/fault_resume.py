r"""fault_resume: kill, crash, preempt or corrupt a DDP training job, let it resume, prove the resume exact.

Run it (2 CPU processes, gloo; NCCL on GPUs with no change):
    python -m labs.run fault_resume --fault kill --fault-rank 1 --fault-step 12
    python -m labs.run fault_resume --fault preempt         # SIGTERM: emergency checkpoint, zero lost steps
    python -m labs.run fault_resume --fault corrupt         # newest checkpoint torn: falls back to the previous
    python -m labs.run fault_resume --skip-state rng        # do not restore RNG streams: verification fails
    python -m labs.run fault_resume --controls              # the run, then every negative control (must fail)
The workers of one job, as the lab prints them (what torchrun runs on each node):
    TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 torchrun --nnodes=1 --nproc-per-node=2 --max-restarts=3 \
        --rdzv-backend=c10d --rdzv-endpoint=localhost:0 -m labs.core.worker fault_resume --out runs/x --fault kill
Two nodes: run on both, with the same rendezvous endpoint and an --out on a shared filesystem:
    python -m labs.run fault_resume --nnodes 2 --nproc 8 --rdzv-endpoint node0:29500 --out /shared/fr1

What happens: job `faulted/` trains with checkpoints; the fault fires once; torchrun's elastic agent
restarts the workers (or, for preempt, the job is launched again as a scheduler would), and they resume
from the newest checkpoint that passes its checksums. Job `reference/` then trains the same config without
a fault (using the other checkpoint mode, so sync and async blocking times are both measured).

The verdict needs evidence that the fault happened and was recovered as designed, not only a good ending:
the agent saw a worker exit, the restarts match the faults fired, the resume came from the newest checkpoint
committed before the restart (never a corrupted or torn one), and the steps lost are exactly the steps run
after that checkpoint. Then every rank's final model, optimizer, scheduler, RNG streams and data position
must be bit-identical with the reference, every step's loss and sample ids identical.

`--controls` then runs the mutations this verdict exists to catch, each against the same reference: restore
without the optimizer, RNG, data position or scheduler; an async snapshot that aliases the live weights
and is written after the next step; a fault that does nothing; a torn write without the atomic commit.
The run passes only if every control fails, on the checks named for it, while the checks that show it ran
still hold.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from labs.core import launch, report
from labs.core.checkpoint import MUTATIONS
from labs.core.config import Problem
from labs.core.events import read_events
from labs.core.fault import KINDS, Fault
from labs.core.recovery import (
    agent_lines,
    cold_start_phases,
    exit_causes,
    fault_exit,
    recovery_phases,
    worker_exits,
)
from labs.core.train import RESTORABLE, TrainConfig, train
from labs.core.verify import (
    attempts,
    checkpoint_figures,
    compare_final,
    consumed_exactly_once,
    reconnect_errors,
    samples_by_step,
)
from labs.core.worker import Context

DESCRIPTION = "Kill, crash, preempt or corrupt a DDP job mid-run, resume it, and prove the resume bit-exact"


@dataclass
class Config(TrainConfig):
    CHOICES: ClassVar[dict[str, list[str]]] = {**TrainConfig.CHOICES, "fault": KINDS,
                                               "ckpt_mode": ["sync", "async"], "mutation": list(MUTATIONS),
                                               "watchdog_markers": ["collective", "phase"]}

    fault: str = "kill"
    """kill: SIGKILL one rank; exception: one rank raises; preempt: SIGTERM to the job (emergency
    checkpoint, clean exit, relaunch); corrupt: truncate the newest checkpoint, then kill; hang: stall before
    the step's collectives (see labs.hang); torn: die halfway through a checkpoint write (labs.torn_checkpoint)."""
    fault_rank: int = 1
    """The rank that fails."""
    fault_step: int = 12
    """The step after which the fault fires (before that step's checkpoint, if any)."""
    max_restarts: int = 3
    """torchrun --max-restarts for the faulted job."""
    skip_state: str = ""
    """Comma list of checkpoint parts not to restore on resume, on purpose (optimizer, scheduler, rng, data):
    shows what breaks an exact resume."""
    mutation: str = ""
    """Break the checkpointer on purpose (a control): alias (async snapshot without a copy, written after the
    next step) or naive (no staging folder, no manifest, loads without checking)."""
    controls: bool = False
    """After the run, run every negative control against the same reference; pass only if each fails as
    designed."""
    kill_cycles: int = 0
    """Soak: with --fault kill, kill the rank again on each of the first N attempts (N restarts)."""
    job: str = "faulted"
    """Job folder inside --out that the workers write (set by the lab: faulted, reference)."""


# ---- the workers (run by torchrun on every rank) ------------------------------------------------------
def worker(cfg: Config, ctx: Context) -> None:
    job_dir = Path(cfg.out) / cfg.job
    fault = Fault(cfg.fault, cfg.fault_rank, cfg.fault_step, job_dir / "fault_fired.json", ctx.restart_count,
                  ctx.launch, cycles=cfg.kill_cycles)
    train(cfg, ctx, job_dir, fault, skip=_skip(cfg), mutation=cfg.mutation)


def _skip(cfg: Config) -> set[str]:
    return {s.strip() for s in cfg.skip_state.split(",") if s.strip()}


# ---- the orchestrator (python -m labs.run fault_resume) ----------------------------------------------
def check_config(cfg: Config) -> str:
    """A clear message for a config that cannot work, else ''."""
    world = cfg.world_size
    if cfg.global_batch % world:
        return Problem(f"--global-batch {cfg.global_batch} must divide by the world size {world}",
                       f"--global-batch {cfg.global_batch} 必须能被 world size {world} 整除")
    if not 1 <= cfg.fault_step < cfg.steps:
        return Problem(f"--fault-step must be in 1..{cfg.steps - 1} (--steps {cfg.steps})",
                       f"--fault-step 必须在 1..{cfg.steps - 1} 之间（--steps {cfg.steps}）")
    if not 0 <= cfg.fault_rank < world:
        return Problem(f"--fault-rank must be in 0..{world - 1}", f"--fault-rank 必须在 0..{world - 1} 之间")
    if cfg.ckpt_every < 0 or (cfg.ckpt_every == 0 and cfg.fault not in ("none", "noop")):
        return Problem("--ckpt-every 0 (no checkpoints) only makes sense with --fault none: nothing to resume from",
                       "--ckpt-every 0（不存 checkpoint）只有配合 --fault none 才有意义：否则没有可恢复的 checkpoint")
    if cfg.fault == "corrupt" and cfg.fault_step < 2 * cfg.ckpt_every:
        return Problem("--fault corrupt needs --fault-step >= 2 * --ckpt-every (a previous good checkpoint must exist)",
                       "--fault corrupt 需要 --fault-step >= 2 * --ckpt-every（必须存在一个更早的完好 checkpoint）")
    if _skip(cfg) - set(RESTORABLE):
        return Problem(f"--skip-state takes {', '.join(RESTORABLE)}, not {sorted(_skip(cfg) - set(RESTORABLE))}",
                       f"--skip-state 只接受 {', '.join(RESTORABLE)}，而不是 {sorted(_skip(cfg) - set(RESTORABLE))}")
    if cfg.mutation == "alias" and cfg.ckpt_mode != "async":
        return Problem("--mutation alias needs --ckpt-mode async (a sync save has no snapshot to alias)",
                       "--mutation alias 需要 --ckpt-mode async（同步保存没有可供别名引用的快照）")
    if cfg.kill_cycles and cfg.fault != "kill":
        return Problem("--kill-cycles needs --fault kill", "--kill-cycles 需要 --fault kill")
    if cfg.fault == "torn" and (cfg.fault_step % cfg.ckpt_every or cfg.fault_step < 2 * cfg.ckpt_every):
        return Problem("--fault torn needs --fault-step on a checkpoint step after the first (a multiple of "
                       "--ckpt-every)",
                       "--fault torn 需要 --fault-step 落在第一个之后的某个 checkpoint 步上（--ckpt-every 的倍数）")
    if cfg.fault == "hang" and not cfg.watchdog_s and cfg.pg_timeout_s > 120:
        return Problem("--fault hang needs --watchdog-s or a --pg-timeout-s of at most 120 s, or the lab waits for "
                       "long",
                       "--fault hang 需要设置 --watchdog-s，或把 --pg-timeout-s 设为至多 120 秒，否则 lab 会等很久")
    return ""


def main(cfg: Config) -> int:
    run_dir, result = execute(cfg, "fault_resume")
    if cfg.controls:
        result["controls"] = run_controls(cfg, run_dir)
        result["checks"]["controls_fail_as_designed"] = all(c["failed_as_designed"] for c in result["controls"])
        result["passed"] = all(result["checks"].values())
    report.write_json(run_dir / "report.json", result)
    show(result, run_dir)
    return 0 if result["passed"] else 1


def execute(cfg: Config, lab: str) -> tuple[Path, dict[str, Any]]:
    """Run the faulted job and the reference job, and compare them. Labs built on this one (hang,
    torn_checkpoint) call it with their own fault and add their own checks."""
    cfg, run_dir = report.open_run(lab, cfg)
    if cfg.kill_cycles:
        cfg = dataclasses.replace(cfg, max_restarts=cfg.kill_cycles + 1)
    report.console.print(f"[bold]{lab}[/]: {cfg.fault} on rank {cfg.fault_rank} at step "
                         f"{cfg.fault_step}, run folder {run_dir}")
    faulted = run_job(cfg, lab)
    reference = run_job(reference_config(cfg), lab)
    return run_dir, analyse(cfg, run_dir, faulted, reference) | {"lab": lab}


def reference_config(cfg: Config) -> Config:
    """The same job without a fault, in the other checkpoint mode (so both modes' costs are measured)."""
    other = "sync" if cfg.ckpt_mode == "async" else "async"
    return dataclasses.replace(cfg, fault="none", job="reference", ckpt_mode=other, kill_cycles=0, skip_state="",
                               mutation="", controls=False)


def run_job(cfg: Config, lab: str) -> list[launch.JobResult]:
    """One torchrun job; a preempted job is launched again, as a cluster scheduler would."""
    job_dir = Path(cfg.out) / cfg.job
    cmd = launch.worker_command(lab, cfg, cfg.max_restarts, job_dir / "logs")
    report.console.print(f"[dim]{cfg.job}:[/] {launch.printable(cmd)}")
    results: list[launch.JobResult] = []
    with report.progress(cfg.job) as bar:
        task = bar.add_task(cfg.job, total=cfg.steps, status="")

        def poll() -> None:
            events = read_events(job_dir / "events", rank=0)
            steps = [e["step"] for e in events if e["ev"] == "step"]
            attempts = len({e["attempt"] for e in events if e["ev"] == "start"})
            bar.update(task, completed=steps[-1] if steps else 0, status=f"attempts {attempts}")

        for n in range(3):
            results.append(launch.run_job(cmd, job_dir / "logs" / "agent.log", cfg.timeout_s,
                                          {"KGP_LAUNCH": str(n)}, poll))
            events = read_events(job_dir / "events", rank=0)
            preempted = any(e["ev"] == "preempted" for e in events)
            if not preempted or any(e["ev"] == "done" for e in events):
                break
    return results


# ---- the verdict -------------------------------------------------------------------------------------
def lost_steps_bound(cfg: Config) -> int:
    """Recomputed steps allowed per failure: one interval, one more when the newest checkpoint is torn, or,
    in async mode, may still be in flight when the fault strikes (it is not a checkpoint until committed)."""
    intervals = 1 + (cfg.fault == "corrupt") + (cfg.ckpt_mode == "async")
    return {"none": 0, "noop": 0, "preempt": 0}.get(cfg.fault, intervals * cfg.ckpt_every)


def newest_good(commits: list[dict[str, Any]], before: float, bad: set[int]) -> int:
    """The newest step rank 0 committed before `before` that no fault damaged (0: none, a fresh start)."""
    return max((c["step"] for c in commits if c["t"] < before and c["step"] not in bad), default=0)


def fault_evidence(cfg: Config, fdir: Path, f_all: list[dict[str, Any]], att: list[dict[str, Any]],
                   launches: int) -> dict[str, Any]:
    """What shows that the fault took effect and was recovered as designed, from the agent's log and the
    workers' events: a worker exit, restarts = faults, each resume from the newest good checkpoint, and
    exactly the steps after it lost."""
    faults = [e for e in f_all if e["ev"] == "fault"]
    exits = exit_causes(fdir / "logs", worker_exits(agent_lines(fdir / "logs" / "agent.log")))
    commits = [e for e in f_all if e["ev"] == "ckpt" and e["rank"] == 0]
    bad = {int(e["corrupted"].split("/")[0].split("-")[1]) for e in faults if e.get("corrupted")}
    resumes = att[1:]
    expected = [newest_good(commits, a["start_t"], bad) for a in resumes]
    # The steps the failing rank finished before its fault fired (its own log, so the order is exact): the
    # fault's step, the one before for a hang at the start of a step, later ones for a torn async write.
    last_done = [max((e["step"] for e in f_all if e["ev"] == "step" and e["rank"] == f["rank"]
                      and e["attempt"] == f["attempt"] and e["t"] <= f["t"]), default=0) for f in faults]
    implied = [max(0, d - e) for d, e in zip(last_done, expected, strict=False)]  # preempt: saved past it
    lost_each = [max(0, max(p["losses"]) - n["resumed_from"]) for p, n in zip(att, att[1:], strict=False)
                 if p["losses"]]
    wants = 0 if cfg.fault == "none" else (cfg.kill_cycles or 1)
    if cfg.fault == "preempt":  # the scheduler's signal: a clean exit, then a second launch of the job
        exit_seen = launches >= 2 and any(e["ev"] == "preempted" for e in f_all)
        restarts_ok = launches == 2 and len(resumes) == 1
    else:
        # each fault shows as an exit the agent reported after it: the faulty worker's own code, or a peer it broke
        local = cfg.fault_rank % cfg.nproc
        shown = [e for e in exits if fault_exit(e, cfg.fault, local)]
        exit_seen = bool(faults) and all(any(e["t"] >= f["t"] - 1.0 for e in shown) for f in faults)
        restarts_ok = len(resumes) == (0 if cfg.fault == "none" else len(faults))
    return {
        "checks": {
            "fault_fired": len(faults) == wants,
            "worker_exit_seen": cfg.fault == "none" or exit_seen,
            "restarts_match_faults": restarts_ok,
            "resumed_from_newest_good": [a["resumed_from"] for a in resumes] == expected,
            "lost_steps_as_implied": cfg.fault == "none" or (bool(resumes) and lost_each == implied),
        },
        "faults": faults, "worker_exits": exits, "expected_resume_steps": expected, "implied_lost_steps": implied,
        "lost_each": lost_each,
    }


def live_writers(events: list[dict[str, Any]], wait_s: float = 5.0) -> list[int]:
    """Async checkpoint writer processes still running after their job ended (a killed rank's writer must
    not be left behind waiting for requests: about 270 MB each, forever). Zombies count as gone."""
    pids = {e["writer_pid"] for e in events if e["ev"] == "ckpt" and e.get("writer_pid")}
    deadline = time.monotonic() + wait_s  # an orphan notices its parent is gone within half a second
    while True:
        alive = sorted(p for p in pids if _running(p))
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.2)


def _running(pid: int) -> bool:
    if not Path("/proc").is_dir():  # macOS: no process table to read; a zombie would count as running
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def analyse(cfg: Config, run_dir: Path, faulted: list[launch.JobResult],
            reference: list[launch.JobResult]) -> dict[str, Any]:
    fdir, rdir = run_dir / cfg.job, run_dir / "reference"
    world = cfg.world_size
    f_all, r_all = read_events(fdir / "events"), read_events(rdir / "events")
    f0 = [e for e in f_all if e["rank"] == 0]
    r0 = [e for e in r_all if e["rank"] == 0]
    att, ref_att = attempts(f0), attempts(r0)
    ev = fault_evidence(cfg, fdir, f_all, att, len(faulted))
    ref_losses = ref_att[0]["losses"] if ref_att else {}
    final_losses = {s: loss for a in att for s, loss in a["losses"].items()}
    recomputed = {s: [a["losses"][s] for a in att if s in a["losses"]] for s in final_losses}
    recomputed = {s: v for s, v in recomputed.items() if len(v) > 1}
    f_samples, r_samples = samples_by_step(f_all), samples_by_step(r_all)
    final = compare_final(fdir, rdir, world)
    reconnects = reconnect_errors(fdir / "logs")
    skipped = [s for a in att for s in a["skipped"]]
    done_ranks = {e["rank"] for e in f_all if e["ev"] == "done"}
    checks = ev["checks"] | {
        "job_completed": len(done_ranks) == world,
        "checkpoint_loads_clean": not any(e["ev"] == "load_failed" for e in f_all),
        "bit_exact": final["bit_exact"],
        "losses_identical": bool(ref_losses) and final_losses == ref_losses,
        "recomputed_steps_identical": all(len(set(v)) == 1 for v in recomputed.values()),
        "samples_identical": bool(r_samples) and f_samples == r_samples,
        "samples_exactly_once": consumed_exactly_once(f_all, r_samples, f_samples, recomputed),
        "lost_steps_within_bound": max(ev["lost_each"], default=0) <= lost_steps_bound(cfg),
        "no_reconnect_errors": not reconnects,
        "writer_processes_exited": not live_writers(f_all + r_all),
    }
    if cfg.fault == "corrupt":
        checks["corrupt_checkpoint_skipped"] = bool(skipped)
    recovery = [recovery_phases(f["t"], agent_lines(fdir / "logs" / "agent.log"), a["start"], a["ready"],
                                a["first_step_t"]) for f, a in zip(ev["faults"], att[1:], strict=False)]
    # Cold start: the same job's first launch (same checkpoint mode, so the same writer start-up as recovery)
    cold = (cold_start_phases(faulted[0].started, agent_lines(fdir / "logs" / "agent.log"), att[0]["start"],
                              att[0]["ready"], att[0]["first_step_t"]) if att and faulted else None)
    rec_s = [r["total"] for r in recovery if r["total"] is not None]
    cold_s = cold["total"] if cold else None
    step_events = [e for e in f0 if e["ev"] == "step"]
    ref_steps = [e for e in r0 if e["ev"] == "step"]
    return {
        "lab": "fault_resume",
        "passed": all(checks.values()),
        "checks": checks,
        "config": dataclasses.asdict(cfg),
        "torchrun_command": launch.printable(faulted[0].command),
        "fault": ev["faults"],
        "worker_exits": ev["worker_exits"],
        "expected_resume_steps": ev["expected_resume_steps"],
        "implied_lost_steps": ev["implied_lost_steps"],
        "restarts": len(att) - 1,
        "launches": len(faulted),
        "bit_exact": final["bit_exact"],
        "tensors_compared": final["tensors_compared"],
        "mismatches": final["mismatches"],
        "parts_differing": final["parts_differing"],
        "lost_steps": sum(ev["lost_each"]),
        "lost_steps_per_failure": ev["lost_each"],
        "lost_steps_bound": lost_steps_bound(cfg),
        "reconnect_errors": reconnects,
        "recomputed_steps": sorted(recomputed),
        "recovery_seconds": rec_s[0] if rec_s else None,
        "recovery_seconds_all": rec_s,
        "recovery_phases": recovery,
        "cold_start_seconds": cold_s,
        "cold_start_phases": cold,
        "recovery_over_cold_start": (rec_s[0] / cold_s) if rec_s and cold_s else None,
        "skipped_checkpoints": skipped,
        "attempts": [{k: v for k, v in a.items() if k not in ("losses", "start", "resumed", "ready")}
                     | {"steps": sorted(a["losses"])} for a in att],
        "checkpoint": {cfg.ckpt_mode: checkpoint_figures(f_all, step_events),
                       ("sync" if cfg.ckpt_mode == "async" else "async"): checkpoint_figures(r_all, ref_steps)},
        "losses": {"faulted": final_losses, "reference": ref_losses},
        "samples_per_step": f_samples,
        "plot": "loss.png",
    }


# ---- negative controls -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Control:
    name: str
    changes: dict[str, Any]
    must_fail: tuple[str, ...]
    """The checks this control exists to trip."""
    must_hold: tuple[str, ...]
    """Checks that show the control itself ran as meant (the fault fired, the job went on)."""
    why: str


RAN = ("fault_fired", "worker_exit_seen", "restarts_match_faults", "job_completed")


def controls(cfg: Config) -> list[Control]:
    every = cfg.ckpt_every
    return [
        Control("skip-optimizer-restore", {"skip_state": "optimizer"}, ("bit_exact", "losses_identical"), RAN,
                "Adam's moments start from zero after the resume: the same weights take other steps"),
        Control("skip-rng-restore", {"skip_state": "rng"}, ("bit_exact", "losses_identical"), RAN,
                "dropout draws other masks after the resume, and the RNG streams end elsewhere"),
        Control("skip-data-restore", {"skip_state": "data"}, ("samples_identical", "bit_exact"), RAN,
                "the sampler starts its epoch again: some samples seen twice, others never"),
        Control("skip-scheduler-restore", {"skip_state": "scheduler"}, ("bit_exact", "losses_identical"), RAN,
                "the learning-rate schedule restarts from its warmup"),
        # The fault a step after the second save: the first save is then committed (the second one waited
        # for it) and holds the weights of a later step, whatever the writer's timing.
        Control("aliased-async-snapshot", {"ckpt_mode": "async", "mutation": "alias", "fault_step": 2 * every + 1},
                ("bit_exact",), RAN,
                "the writer reads the live weights after a later step changed them: the checkpoint is not its step"),
        Control("noop-fault", {"fault": "noop"}, ("worker_exit_seen", "restarts_match_faults"),
                ("fault_fired", "job_completed", "bit_exact"),
                "a fault that does nothing leaves nothing recovered: the verdict must not pass it"),
        Control("torn-write-without-atomic-commit",
                {"fault": "torn", "fault_rank": 1, "fault_step": 2 * every, "mutation": "naive", "max_restarts": 1},
                ("checkpoint_loads_clean", "job_completed"), ("fault_fired", "worker_exit_seen"),
                "written in place, the half-written shard is taken for a checkpoint and the resume cannot load it"),
    ]


def run_controls(cfg: Config, run_dir: Path) -> list[dict[str, Any]]:
    """Each control as a faulted job next to the run's own reference; it must fail for its reason."""
    cfg = dataclasses.replace(cfg, out=str(run_dir), controls=False)
    out = []
    for c in controls(cfg):
        base = {"fault": "kill", "skip_state": "", "mutation": "", "kill_cycles": 0, "max_restarts": cfg.max_restarts}
        ccfg = dataclasses.replace(cfg, job=f"control-{c.name}", **(base | c.changes))
        report.console.print(f"[bold]control[/] {c.name}: {c.why}")
        faulted = run_job(ccfg, "fault_resume")
        result = analyse(ccfg, run_dir, faulted, [])
        failed = sorted(k for k, v in result["checks"].items() if not v)
        ok = all(not result["checks"][k] for k in c.must_fail) and all(result["checks"][k] for k in c.must_hold)
        out.append({"name": c.name, "why": c.why, "changes": c.changes, "must_fail": list(c.must_fail),
                    "must_hold": list(c.must_hold), "failed_checks": failed, "failed_as_designed": ok,
                    "parts_differing": result["parts_differing"], "mismatches": result["mismatches"][:3]})
    return out


def show(result: dict[str, Any], run_dir: Path, extra: list[tuple[str, Any]] | None = None) -> None:
    faults = [{"step": f["step"], "kind": f["kind"], "rank": f["rank"]} for f in result["fault"]]
    f_events = read_events(run_dir / result["config"]["job"] / "events", rank=0)
    per_attempt = attempts(f_events)
    report.plot_loss(run_dir / "loss.png", {int(k): v for k, v in result["losses"]["reference"].items()},
                     per_attempt, faults, f"{result['lab']}: {result['config']['fault']}")
    ck = result["checkpoint"]
    rows = [("passed", result["passed"])] + [(f"check: {k}", v) for k, v in result["checks"].items()]
    exits = [(e["local_rank"], e["exitcode"], e.get("error", "")[:80]) for e in result["worker_exits"]]
    rows += [("restarts", result["restarts"]), ("worker exits seen", exits), ("resumed from / expected",
             f"{[a['resumed_from'] for a in result['attempts'][1:]]} / {result['expected_resume_steps']}"),
             ("lost steps", f"{result['lost_steps_per_failure']} (implied {result['implied_lost_steps']}, "
             f"bound {result['lost_steps_bound']})"), ("tensors compared", result["tensors_compared"]),
             ("recovery s", result["recovery_seconds"]), ("cold start s", result["cold_start_seconds"])]
    for rec in result["recovery_phases"][:1]:
        rows.append(("recovery phases s", _phases(rec)))
    if result["cold_start_phases"]:
        rows.append(("cold start phases s", _phases(result["cold_start_phases"])))
    rows += extra or []
    for mode, fig in ck.items():
        if fig:
            rows.append((f"{mode} ckpt blocking ms", f"{1000 * fig['blocking_s_mean']:.2f} "
                         f"({100 * fig['blocking_over_step']:.1f}% of a step)"))
            rows.append((f"{mode} ckpt MB/s", fig["mb_per_s"]))
    for c in result.get("controls", []):
        verdict = "failed as designed" if c["failed_as_designed"] else "NOT AS DESIGNED"
        rows.append((f"control: {c['name']}", f"{verdict} (failed: {', '.join(c['failed_checks']) or 'nothing'})"))
    report.console.print(report.summary_table(result["lab"], rows))
    for m in result["mismatches"][:5]:
        report.console.print(f"[red]mismatch[/] {m}")
    report.console.print(f"report: {run_dir / 'report.json'}  plot: {run_dir / 'loss.png'}")


def _phases(rec: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v:.2f}" for k, v in rec["phases"].items() if v is not None)


if __name__ == "__main__":
    sys.exit("run it with: python -m labs.run fault_resume")
