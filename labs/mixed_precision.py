"""mixed_precision: bf16 autocast and fp16 loss scaling under DDP: an overflow skipped, the scale adapting.

Run it (2 CPU processes, gloo; NCCL on GPUs with no change):
    python -m labs.run mixed_precision
    python -m labs.run mixed_precision --init-scale 65536 --growth-interval 3   # start below the overflow
    python -m labs.run mixed_precision --backoff-check 0.25       # expect the wrong backoff: verification fails
    python -m labs.run mixed_precision --no-align-skips           # fp32/bf16 keep the updates fp16 lost
The workers, as the lab prints them:
    TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 torchrun --nnodes=1 --nproc-per-node=2 --max-restarts=0 \
        --rdzv-backend=c10d --rdzv-endpoint=localhost:0 -m labs.core.worker mixed_precision --out runs/x

What happens: the tiny GPT trains the same steps on the same batches three times under DDP: with fp16
autocast plus torch.amp.GradScaler, in fp32, and with bf16 autocast. On CPU, torch 2.13 runs both autocast
dtypes (the lab records the dtype the model's last matmul actually produced); fp16 matmuls are slow on
CPU, on GPUs they are the fast path. The fp16 run starts with --init-scale above this model's overflow
threshold (about 2^20 for its fp16 gradients at init), so its first steps overflow; at --inject-step,
rank --inject-rank alone multiplies its loss by --inject-factor, so its fp16 gradients overflow, and the
all-reduce carries the inf to every rank. For each fp16 step the lab looks at the real tensors: were the
gradients finite (after the all-reduce), did the parameters change at all (torch.equal before and after
scaler.step), what is scaler.get_scale(). It passes when every overflowed step left the parameters
bit-identical on every rank and halved the scale, every clean step changed them, the scale followed
GradScaler's rule step by step (x0.5 on overflow, x2 after --growth-interval clean steps in a row;
predicted from the overflow flags alone), and the bf16 and fp16 final losses (mean of the last --tail
steps) are within --loss-tolerance of fp32. So that the three runs differ only in precision, dropout is 0
and the fp32 and bf16 runs skip the optimizer step at the steps fp16 skipped (--no-align-skips: they
don't, and fp16 lags by its lost updates).
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import mean
from typing import Any

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from labs.core import launch, report
from labs.core.config import ModelConfig, Problem
from labs.core.data import ByteWindows, Sampler
from labs.core.events import EventLog, read_events
from labs.core.model import build_gpt
from labs.core.verify import flat_params, replica_spread
from labs.core.worker import Context

DESCRIPTION = "bf16 autocast and fp16 loss scaling: an overflow skipped, the scale adapting, loss vs fp32"
MODES = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}


@dataclass
class Config(ModelConfig):
    steps: int = 30
    """Optimizer steps of each of the three runs (fp32, bf16, fp16)."""
    global_batch: int = 8
    init_scale: float = 2.0**22
    """GradScaler's first scale: above the overflow threshold, so the first fp16 steps overflow and back off."""
    growth_interval: int = 4
    """Clean steps in a row after which GradScaler doubles the scale (PyTorch's default is 2000)."""
    inject_step: int = 18
    """The fp16 step at which one rank's loss is blown up (0: none)."""
    inject_rank: int = 1
    """The rank whose loss is blown up."""
    inject_factor: float = 1e6
    """Factor on that rank's loss: its gradients overflow fp16 (65504) but not fp32."""
    backoff_check: float = 0.5
    """The scale factor the lab expects on overflow (GradScaler's backoff_factor is 0.5; another value
    makes the verification fail, to show it checks the real scale)."""
    tail: int = 5
    """Final loss = mean loss of the last N steps."""
    align_skips: bool = True
    """fp32 and bf16 skip the optimizer step wherever fp16 overflowed, so all three runs apply the same
    updates and differ only in precision; --no-align-skips lets them train on and fp16 lag behind."""
    loss_tolerance: float = 0.01
    """Largest allowed |final loss - fp32 final loss| / fp32 final loss for bf16 and fp16."""


# ---- the workers (run by torchrun on every rank) ------------------------------------------------------
def grads_finite(model: torch.nn.Module) -> bool:
    return all(torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None)


def train(cfg: Config, ctx: Context, mode: str, windows: ByteWindows, log: EventLog, skip: set[int]) -> set[int]:
    """One run in `mode`; returns the steps whose update was skipped (overflow, or listed in `skip`)."""
    model = build_gpt(cfg, ctx.device, dropout=0.0)  # the same init, batches and order in all three runs
    seen: dict[str, str] = {}

    def note_dtype(module: torch.nn.Module, inputs: Any, out: torch.Tensor) -> None:
        seen.setdefault("dtype", str(out.dtype))  # what autocast really ran the last matmul in

    model.head.register_forward_hook(note_dtype)
    ddp = DDP(model, device_ids=[ctx.local_rank] if ctx.device.type == "cuda" else None)
    opt = torch.optim.AdamW(ddp.parameters(), lr=cfg.lr, weight_decay=0.1)
    fp16 = mode == "fp16"
    scaler = torch.amp.GradScaler(ctx.device.type, init_scale=cfg.init_scale, growth_interval=cfg.growth_interval,
                                  enabled=fp16)
    sampler = Sampler(windows.num_samples, cfg.global_batch, cfg.seed)
    skipped: set[int] = set()
    for step in range(1, cfg.steps + 1):
        t0 = time.perf_counter()
        x, y = (t.to(ctx.device) for t in windows.batch(sampler.next_for_rank(ctx.rank, ctx.world)))
        with torch.autocast(ctx.device.type, dtype=MODES[mode] or torch.bfloat16, enabled=mode != "fp32"):
            loss = ddp(x, y)
        injected = fp16 and step == cfg.inject_step and ctx.rank == cfg.inject_rank
        opt.zero_grad(set_to_none=True)
        if step in skip:  # the step fp16 lost to an overflow: same batch, same loss, no update
            skipped.add(step)
            log_step(log, mode, step, loss, ctx.world, t0, scale_before=1.0, scale_after=1.0, grads_finite=True,
                     params_changed=False, injected=False, aligned_skip=True)
            continue
        scale_before = scaler.get_scale() if fp16 else 1.0
        scaler.scale(loss * cfg.inject_factor if injected else loss).backward()
        finite = grads_finite(model)  # after the all-reduce: one rank's inf is now everyone's
        before = flat_params(model)
        scaler.step(opt)
        scaler.update()
        changed = not torch.equal(before, flat_params(model))
        if not finite:
            skipped.add(step)
        log_step(log, mode, step, loss, ctx.world, t0, scale_before=scale_before,
                 scale_after=scaler.get_scale() if fp16 else 1.0, grads_finite=finite, params_changed=changed,
                 injected=injected, aligned_skip=False)
    log.log("run", mode=mode, matmul_dtype=seen.get("dtype"), replica_spread=replica_spread(flat_params(model)))
    return skipped


def log_step(log: EventLog, mode: str, step: int, loss: torch.Tensor, world: int, t0: float, **fields: Any) -> None:
    mean_loss = loss.detach().float().reshape(1)
    dist.all_reduce(mean_loss)
    log.log("step", mode=mode, step=step, loss=mean_loss.item() / world, step_s=time.perf_counter() - t0, **fields)


def worker(cfg: Config, ctx: Context) -> None:
    log = EventLog(Path(cfg.out) / "events", ctx.rank, ctx.attempt)
    log.log("start", world=ctx.world, backend=ctx.backend)
    windows = ByteWindows(cfg.block)
    fp16_skipped = train(cfg, ctx, "fp16", windows, log, set())  # first: its overflows decide the skips
    for mode in ("fp32", "bf16"):
        train(cfg, ctx, mode, windows, log, fp16_skipped if cfg.align_skips else set())
    log.log("done")


# ---- the orchestrator (python -m labs.run mixed_precision) -------------------------------------------
def check_config(cfg: Config) -> str:
    world = cfg.world_size
    if cfg.global_batch % world:
        return Problem(f"--global-batch {cfg.global_batch} must divide by the world size {world}",
                       f"--global-batch {cfg.global_batch} 必须能被 world size {world} 整除")
    if not 0 <= cfg.inject_rank < world or not 0 <= cfg.inject_step <= cfg.steps:
        return Problem(f"--inject-rank must be in 0..{world - 1} and --inject-step in 0..{cfg.steps}",
                       f"--inject-rank 必须在 0..{world - 1} 之间，--inject-step 必须在 0..{cfg.steps} 之间")
    if not 1 <= cfg.tail <= cfg.steps:
        return Problem("--tail must be in 1..--steps", "--tail 必须在 1..--steps 之间")
    return ""


def main(cfg: Config) -> int:
    cfg, run_dir = report.open_run("mixed_precision", cfg)
    report.console.print(f"[bold]mixed_precision[/]: fp32, bf16, fp16+GradScaler, run folder {run_dir}")
    job = report.run_workers("mixed_precision", cfg, run_dir, len(MODES) * cfg.steps,
                             report.counter("step", lambda e: e["mode"]))
    result = analyse(cfg, job, read_events(run_dir / "events"))
    report.write_json(run_dir / "report.json", result)
    show(result, run_dir)
    return 0 if result["passed"] else 1


def predicted_scales(init: float, overflow: list[bool], interval: int, backoff: float = 0.5,
                     growth: float = 2.0) -> list[float]:
    """GradScaler's rule from the overflow flags alone: the scale after each step."""
    scale, clean, out = init, 0, []
    for inf in overflow:
        if inf:
            scale, clean = scale * backoff, 0
        else:
            clean += 1
            if clean == interval:
                scale, clean = scale * growth, 0
        out.append(scale)
    return out


def analyse(cfg: Config, job: launch.JobResult, events: list[dict[str, Any]]) -> dict[str, Any]:
    steps = [e for e in events if e["ev"] == "step"]
    runs = {e["mode"]: e for e in events if e["ev"] == "run" and e["rank"] == 0}
    runs = {m: runs[m] for m in MODES if m in runs}
    n = next((e["world"] for e in events if e["ev"] == "start"), cfg.nproc)
    losses = {m: {e["step"]: e["loss"] for e in steps if e["mode"] == m and e["rank"] == 0} for m in MODES}
    fp16 = {r: [e for e in steps if e["mode"] == "fp16" and e["rank"] == r] for r in range(n)}
    f0 = fp16.get(0, [])
    overflow = [not e["grads_finite"] for e in f0]
    predicted = predicted_scales(cfg.init_scale, overflow, cfg.growth_interval, cfg.backoff_check)
    measured = [e["scale_after"] for e in f0]
    skipped = [e["step"] for e in f0 if not e["grads_finite"]]
    final = {m: mean(v[s] for s in sorted(v)[-cfg.tail:]) for m, v in losses.items() if v}
    rel = {m: abs(final[m] - final["fp32"]) / final["fp32"] for m in ("bf16", "fp16") if m in final and "fp32" in final}
    every_rank = [e for r in fp16.values() for e in r]
    checks = {
        "job_completed": job.returncode == 0 and any(e["ev"] == "done" for e in events),
        "autocast_engaged": runs.get("bf16", {}).get("matmul_dtype") == "torch.bfloat16"
                            and runs.get("fp16", {}).get("matmul_dtype") == "torch.float16",
        "overflow_happened": bool(skipped),
        "injected_overflow_skipped": cfg.inject_step == 0 or cfg.inject_step in skipped,
        "skipped_steps_left_params_unchanged": bool(skipped) and all(not e["params_changed"] for e in every_rank
                                                                     if not e["grads_finite"]),
        "clean_steps_changed_params": bool(f0) and all(e["params_changed"] for e in every_rank if e["grads_finite"]),
        "all_ranks_skipped_together": len({tuple(e["grads_finite"] for e in r) for r in fp16.values()}) == 1,
        "scale_backed_off_on_overflow": bool(skipped) and all(e["scale_after"] == e["scale_before"] * cfg.backoff_check
                                            for e in f0 if not e["grads_finite"]),
        "scale_follows_rule": bool(measured) and measured == predicted,
        "scale_grew": any(e["scale_after"] > e["scale_before"] for e in f0),
        "replicas_identical": all(r["replica_spread"] == 0.0 for r in runs.values()) and len(runs) == len(MODES),
        "bf16_loss_matches_fp32": rel.get("bf16", 1.0) <= cfg.loss_tolerance,
        "fp16_loss_matches_fp32": rel.get("fp16", 1.0) <= cfg.loss_tolerance,
    }
    step_s = {m: mean(e["step_s"] for e in steps if e["mode"] == m and e["rank"] == 0 and e["step"] > 1
                      and not e["aligned_skip"])
              for m in MODES if losses[m]}
    return {
        "lab": "mixed_precision",
        "passed": all(checks.values()),
        "checks": checks,
        "config": dataclasses.asdict(cfg),
        "torchrun_command": launch.printable(job.command),
        "world_size": n,
        "device_type": "cuda" if next((e["backend"] for e in events if e["ev"] == "start"), "") == "nccl" else "cpu",
        "matmul_dtype": {m: r["matmul_dtype"] for m, r in runs.items()},
        "final_loss": final,
        "final_loss_rel_diff_vs_fp32": rel,
        "max_step_rel_diff_vs_fp32": {m: max(abs(losses[m][s] - losses["fp32"][s]) / losses["fp32"][s]
                                             for s in losses[m]) for m in ("bf16", "fp16") if losses[m]},
        "skipped_steps": skipped,
        "injected_step": cfg.inject_step,
        "scale": {"measured": measured, "predicted": predicted, "init": cfg.init_scale,
                  "growth_interval": cfg.growth_interval},
        "step_s_mean": step_s,
        "step_s_over_fp32": {m: t / step_s["fp32"] for m, t in step_s.items()} if "fp32" in step_s else {},
        "losses": losses,
        "plot": "mixed_precision.png",
    }


def plot(path: Path, result: dict[str, Any]) -> None:
    plt = report.pyplot()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.5))
    for mode, curve in result["losses"].items():
        xs = sorted(curve, key=int)
        ax.plot([int(s) for s in xs], [curve[s] for s in xs], marker="o", ms=3, label=mode)
    for s in result["skipped_steps"]:
        ax.axvline(s, color="red", alpha=0.25, lw=3)
    ax.set(xlabel="step", ylabel="training loss", title="loss; red: fp16 steps skipped (overflow)")
    ax.legend()
    sc = result["scale"]
    xs = range(1, len(sc["measured"]) + 1)
    bx.step(xs, sc["predicted"], where="post", color="0.6", lw=4, alpha=0.6, label="GradScaler rule (predicted)")
    bx.plot(xs, sc["measured"], "o", ms=4, label="scaler.get_scale() (measured)")
    bx.plot(result["skipped_steps"], [sc["measured"][s - 1] for s in result["skipped_steps"]], "rx", ms=9,
            label="overflow: step skipped")
    if result["injected_step"]:
        bx.annotate("injected", (result["injected_step"], sc["measured"][result["injected_step"] - 1]),
                    textcoords="offset points", xytext=(5, -15), color="red", fontsize=8)
    bx.set_yscale("log", base=2)
    bx.set(xlabel="step", ylabel="loss scale after the step", title=f"growth_interval = {sc['growth_interval']}")
    bx.legend(fontsize=8)
    report.save_figure(fig, path)


def show(result: dict[str, Any], run_dir: Path) -> None:
    rows = report.verdict_rows(result)
    fin, rel, sc = result["final_loss"], result["final_loss_rel_diff_vs_fp32"], result["scale"]
    same = sum(a == b for a, b in zip(sc["measured"], sc["predicted"], strict=False))
    for m in fin:
        extra = f" ({100 * rel[m]:.2g}% vs fp32, tolerance {100 * result['config']['loss_tolerance']:g}%)" \
            if m in rel else ""
        rows.append((f"final loss {m}", f"{fin[m]:.4f}{extra}"))
    rows += [("matmul dtype", ", ".join(f"{m}: {d}" for m, d in result["matmul_dtype"].items())),
             ("fp16 skipped steps", result["skipped_steps"]),
             ("scale after each step", " ".join(f"2^{math.log2(s):g}" for s in sc["measured"])),
             ("scale measured == GradScaler rule", f"{same}/{len(sc['predicted'])} steps"),
             ("step ms (x fp32)", ", ".join(f"{m}: {1e3 * s:.1f} ({s / result['step_s_mean']['fp32']:.2f}x)"
                                            for m, s in result["step_s_mean"].items()))]
    if result["losses"].get("fp32"):
        plot(run_dir / "mixed_precision.png", result)
    report.console.print(report.summary_table("mixed_precision", rows))
    report.console.print(f"report: {run_dir / 'report.json'}  plot: {run_dir / 'mixed_precision.png'}")


if __name__ == "__main__":
    sys.exit("run it with: python -m labs.run mixed_precision")
