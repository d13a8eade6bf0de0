r"""fault_resume: kill, crash, preempt or corrupt a DDP training job, let it resume, prove the resume exact.

Run it (2 CPU processes, gloo; NCCL on GPUs with no change):
    python -m labs.run fault_resume --fault kill --fault-rank 1 --fault-step 12
    python -m labs.run fault_resume --fault preempt         # SIGTERM: emergency checkpoint, zero lost steps
    python -m labs.run fault_resume --fault corrupt         # newest checkpoint torn: falls back to the previous
    python -m labs.run fault_resume --skip-state rng        # drop RNG from checkpoints: verification fails
The workers of one job, as the lab prints them (what torchrun runs on each node):
    TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 torchrun --nnodes=1 --nproc-per-node=2 --max-restarts=3 \
        --rdzv-backend=c10d --rdzv-endpoint=localhost:0 -m labs.core.worker fault_resume --out runs/x --fault kill
Two nodes: run on both, with the same rendezvous endpoint and an --out on a shared filesystem:
    python -m labs.run fault_resume --nnodes 2 --nproc 8 --rdzv-endpoint node0:29500 --out /shared/fr1

What happens: job `faulted/` trains with checkpoints; the fault fires once; torchrun's elastic agent
restarts the workers (or, for preempt, the job is launched again as a scheduler would), and they resume
from the newest checkpoint that passes its checksums. Job `reference/` then trains the same config without
a fault (using the other checkpoint mode, so sync and async blocking times are both measured). The lab
passes only if the final model and optimizer are bit-identical, every step's loss is identical, every
step consumed the same sample ids, and the recomputed steps stay within the checkpoint interval.
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from labs.core import launch, report
from labs.core.events import read_events
from labs.core.fault import KINDS, Fault
from labs.core.train import TrainConfig, train
from labs.core.verify import (
    attempts,
    checkpoint_figures,
    compare_final,
    consumed_exactly_once,
    reconnect_errors,
    recovery_times,
    samples_by_step,
)
from labs.core.worker import Context

DESCRIPTION = "Kill, crash, preempt or corrupt a DDP job mid-run, resume it, and prove the resume bit-exact"


@dataclass
class Config(TrainConfig):
    CHOICES: ClassVar[dict[str, list[str]]] = {**TrainConfig.CHOICES, "fault": KINDS,
                                               "ckpt_mode": ["sync", "async"]}

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
    """Comma list of checkpoint parts to leave out on purpose (rng, data): shows what breaks exact resume."""
    kill_cycles: int = 0
    """Soak: with --fault kill, kill the rank again on each of the first N attempts (N restarts)."""
    job: str = "faulted"
    """Job folder inside --out that the workers write (set by the lab: faulted, reference)."""


# ---- the workers (run by torchrun on every rank) ------------------------------------------------------
def worker(cfg: Config, ctx: Context) -> None:
    job_dir = Path(cfg.out) / cfg.job
    fault = Fault(cfg.fault, cfg.fault_rank, cfg.fault_step, job_dir / "fault_fired.json", ctx.restart_count,
                  ctx.launch, cycles=cfg.kill_cycles)
    train(cfg, ctx, job_dir, fault, skip=_skip(cfg))


def _skip(cfg: Config) -> set[str]:
    return {s.strip() for s in cfg.skip_state.split(",") if s.strip()}


# ---- the orchestrator (python -m labs.run fault_resume) ----------------------------------------------
def check_config(cfg: Config) -> str:
    """A clear message for a config that cannot work, else ''."""
    world = cfg.nproc * int(cfg.nnodes.split(":")[-1])
    if cfg.global_batch % world:
        return f"--global-batch {cfg.global_batch} must divide by the world size {world}"
    if not 1 <= cfg.fault_step < cfg.steps:
        return f"--fault-step must be in 1..{cfg.steps - 1} (--steps {cfg.steps})"
    if not 0 <= cfg.fault_rank < world:
        return f"--fault-rank must be in 0..{world - 1}"
    if cfg.fault == "corrupt" and cfg.fault_step < 2 * cfg.ckpt_every:
        return "--fault corrupt needs --fault-step >= 2 * --ckpt-every (a previous good checkpoint must exist)"
    if _skip(cfg) - {"rng", "data"}:
        return f"--skip-state takes rng and/or data, not {sorted(_skip(cfg) - {'rng', 'data'})}"
    if cfg.kill_cycles and cfg.fault != "kill":
        return "--kill-cycles needs --fault kill"
    if cfg.fault == "torn" and (cfg.fault_step % cfg.ckpt_every or cfg.fault_step < 2 * cfg.ckpt_every):
        return "--fault torn needs --fault-step on a checkpoint step after the first (a multiple of --ckpt-every)"
    if cfg.fault == "hang" and not cfg.watchdog_s and cfg.pg_timeout_s > 120:
        return "--fault hang needs --watchdog-s or a --pg-timeout-s of at most 120 s, or the lab waits for long"
    return ""


def main(cfg: Config) -> int:
    run_dir, result = execute(cfg, "fault_resume")
    report.write_json(run_dir / "report.json", result)
    show(result, run_dir)
    return 0 if result["passed"] else 1


def execute(cfg: Config, lab: str) -> tuple[Path, dict[str, Any]]:
    """Run the faulted job and the reference job, and compare them. Labs built on this one (hang,
    torn_checkpoint) call it with their own fault and add their own checks."""
    cfg, run_dir = report.open_run(lab, cfg)
    if cfg.kill_cycles:
        cfg = dataclasses.replace(cfg, max_restarts=cfg.kill_cycles + 1)
    other = "sync" if cfg.ckpt_mode == "async" else "async"
    ref_cfg = dataclasses.replace(cfg, fault="none", job="reference", ckpt_mode=other, kill_cycles=0)
    report.console.print(f"[bold]{lab}[/]: {cfg.fault} on rank {cfg.fault_rank} at step "
                         f"{cfg.fault_step}, run folder {run_dir}")
    faulted = run_job(cfg, lab)
    reference = run_job(ref_cfg, lab)
    return run_dir, analyse(cfg, run_dir, faulted, reference) | {"lab": lab}


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


def lost_steps_bound(cfg: Config) -> int:
    """Recomputed steps allowed per failure: one interval; two when the newest checkpoint is torn."""
    return {"none": 0, "preempt": 0, "corrupt": 2 * cfg.ckpt_every}.get(cfg.fault, cfg.ckpt_every)


def analyse(cfg: Config, run_dir: Path, faulted: list[launch.JobResult],
            reference: list[launch.JobResult]) -> dict[str, Any]:
    fdir, rdir = run_dir / "faulted", run_dir / "reference"
    f_all, r_all = read_events(fdir / "events"), read_events(rdir / "events")
    f0 = [e for e in f_all if e["rank"] == 0]
    r0 = [e for e in r_all if e["rank"] == 0]
    att, ref_att = attempts(f0), attempts(r0)
    ref_losses = ref_att[0]["losses"] if ref_att else {}
    final_losses = {s: loss for a in att for s, loss in a["losses"].items()}
    pairs = zip(att, att[1:], strict=False)
    lost_each = [max(0, max(p["losses"]) - n["resumed_from"]) for p, n in pairs if p["losses"]]
    lost = sum(lost_each)
    recomputed = {s: [a["losses"][s] for a in att if s in a["losses"]] for s in final_losses}
    recomputed = {s: v for s, v in recomputed.items() if len(v) > 1}
    faults = [e for e in f_all if e["ev"] == "fault"]
    recovery = recovery_times(att, faults)
    f_samples, r_samples = samples_by_step(f_all), samples_by_step(r_all)
    final = compare_final(fdir, rdir)
    reconnects = reconnect_errors(fdir / "logs")
    cold_start = (ref_att[0]["first_step_t"] - reference[0].started) if ref_att else None
    skipped = [s for a in att for s in a["skipped"]]
    done_ranks = {e["rank"] for e in f_all if e["ev"] == "done"}
    checks = {
        "fault_fired": cfg.fault == "none" or bool(faults),
        "job_completed": len(done_ranks) == cfg.nproc * int(cfg.nnodes.split(":")[-1]),
        "bit_exact": final["bit_exact"],
        "losses_identical": bool(ref_losses) and final_losses == ref_losses,
        "recomputed_steps_identical": all(len(set(v)) == 1 for v in recomputed.values()),
        "samples_identical": bool(r_samples) and f_samples == r_samples,
        "samples_exactly_once": consumed_exactly_once(f_all, r_samples, f_samples, recomputed),
        "lost_steps_within_bound": max(lost_each, default=0) <= lost_steps_bound(cfg),
        "no_reconnect_errors": not reconnects,
    }
    if cfg.fault == "corrupt":
        checks["corrupt_checkpoint_skipped"] = bool(skipped)
    step_events = [e for e in f0 if e["ev"] == "step"]
    ref_steps = [e for e in r0 if e["ev"] == "step"]
    return {
        "lab": "fault_resume",
        "passed": all(checks.values()),
        "checks": checks,
        "config": dataclasses.asdict(cfg),
        "torchrun_command": launch.printable(faulted[0].command),
        "fault": faults,
        "restarts": len(att) - 1,
        "launches": len(faulted),
        "bit_exact": final["bit_exact"],
        "tensors_compared": final["tensors_compared"],
        "mismatches": final["mismatches"],
        "lost_steps": lost,
        "lost_steps_per_failure": lost_each,
        "lost_steps_bound": lost_steps_bound(cfg),
        "reconnect_errors": reconnects,
        "recomputed_steps": sorted(recomputed),
        "recovery_seconds": recovery[0] if recovery else None,
        "recovery_seconds_all": recovery,
        "cold_start_seconds": cold_start,
        "recovery_over_cold_start": (recovery[0] / cold_start) if recovery and cold_start else None,
        "skipped_checkpoints": skipped,
        "attempts": [{k: v for k, v in a.items() if k != "losses"} | {"steps": sorted(a["losses"])}
                     for a in att],
        "checkpoint": {cfg.ckpt_mode: checkpoint_figures(f_all, step_events),
                       ("sync" if cfg.ckpt_mode == "async" else "async"): checkpoint_figures(r_all, ref_steps)},
        "losses": {"faulted": final_losses, "reference": ref_losses},
        "samples_per_step": f_samples,
        "plot": "loss.png",
    }


def show(result: dict[str, Any], run_dir: Path, extra: list[tuple[str, Any]] | None = None) -> None:
    faults = [{"step": f["step"], "kind": f["kind"], "rank": f["rank"]} for f in result["fault"]]
    f_events = read_events(run_dir / "faulted" / "events", rank=0)
    per_attempt = attempts(f_events)
    report.plot_loss(run_dir / "loss.png", {int(k): v for k, v in result["losses"]["reference"].items()},
                     per_attempt, faults, f"{result['lab']}: {result['config']['fault']}")
    ck = result["checkpoint"]
    rows = [("passed", result["passed"])] + [(f"check: {k}", v) for k, v in result["checks"].items()]
    rows += [("restarts", result["restarts"]), ("lost steps", f"{result['lost_steps']} "
             f"(per failure <= {result['lost_steps_bound']})"), ("tensors compared", result["tensors_compared"]),
             ("recovery s", result["recovery_seconds"]), ("cold start s", result["cold_start_seconds"])]
    rows += extra or []
    for mode, fig in ck.items():
        if fig:
            rows.append((f"{mode} ckpt blocking ms", f"{1000 * fig['blocking_s_mean']:.2f} "
                         f"({100 * fig['blocking_over_step']:.1f}% of a step)"))
            rows.append((f"{mode} ckpt MB/s", fig["mb_per_s"]))
    report.console.print(report.summary_table(result["lab"], rows))
    for m in result["mismatches"][:5]:
        report.console.print(f"[red]mismatch[/] {m}")
    report.console.print(f"report: {run_dir / 'report.json'}  plot: {run_dir / 'loss.png'}")


if __name__ == "__main__":
    sys.exit("run it with: python -m labs.run fault_resume")
