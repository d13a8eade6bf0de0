"""ddp: N ranks with DistributedDataParallel train the same model as one process on the N-times batch.

Run it (2 CPU processes, gloo; NCCL on GPUs with no change):
    python -m labs.run ddp                               # equivalence, buckets, no_sync, comm share
    python -m labs.run ddp --bucket-cap-mb 0.05          # smaller buckets: more, smaller all-reduces
    python -m labs.run ddp --accum sync_each             # all-reduce every micro-batch: k times the calls, fails
    python -m labs.run ddp --dropout 0.1                 # ranks draw other masks than one process: fails
The workers, as the lab prints them:
    TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 torchrun --nnodes=1 --nproc-per-node=2 --max-restarts=0 \
        --rdzv-backend=c10d --rdzv-endpoint=localhost:0 -m labs.core.worker ddp --out runs/x

What happens, in one torchrun job:
1. plain: DDP trains --steps steps; each rank takes its contiguous share of the global batch. A comm hook
   (labs/core/collectives.py: BucketWatch, DDP's default averaging all-reduce, wrapped) writes down every
   gradient bucket it is handed. Step 1 has one bucket: DDP cannot know the order gradients arrive in
   before one backward has run; from step 2 on it uses the rebuilt buckets, which must match our
   prediction: parameters in reverse registration order (the order backward produces their gradients),
   a bucket closed once it holds >= --bucket-cap-mb MiB.
2. accum: the same, but each rank splits its share into --micro-batches k micro-batches, runs the first
   k-1 backwards under `no_sync()` (gradients accumulate locally) and all-reduces once on the last: one
   all-reduce per bucket per step, not per micro-batch.
3. reference: each rank, alone and without DDP, trains a fresh copy on the whole global batch. Both DDP
   runs must match it parameter by parameter within --tolerance: the mean of the ranks' mean losses is
   the mean over the global batch, so the averaged gradients are the big-batch gradient, up to float
   rounding order. Why dropout defaults to 0: a rank draws masks for its B/N samples, one process draws
   them for all B at once; the two consume the RNG differently, no seeding makes their masks equal, and
   the comparison would not be defined (--dropout 0.1 shows the difference: ~1e-3, and a failed check).
4. timing: steps alternate between the real all-reduce hook and a hook that skips communication; the
   share of step time spent in communication is reported twice: exposed (1 - step without / step with)
   and in flight (time from each bucket's hook call to its all-reduce finishing, over the step time).
"""

from __future__ import annotations

import dataclasses
import sys
import time
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any, ClassVar

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from labs.core import launch, report, theory
from labs.core.collectives import BucketWatch
from labs.core.config import LaunchConfig, ModelConfig, Problem
from labs.core.data import ByteWindows, Sampler
from labs.core.events import EventLog, read_events
from labs.core.model import GPT, build_gpt
from labs.core.verify import flat_params, replica_spread
from labs.core.worker import Context

DESCRIPTION = "DDP on N ranks equals one process on the N-times batch; bucketing, no_sync accumulation, comm share"
MIB = 2**20  # DDP's bucket_cap_mb is in MiB


@dataclass
class Config(ModelConfig):
    CHOICES: ClassVar[dict[str, list[str]]] = {**LaunchConfig.CHOICES, "optimizer": ["sgd", "adamw"],
                                               "accum": ["no_sync", "sync_each"]}

    steps: int = 6
    """Optimizer steps of each training phase (plain, accum, reference)."""
    global_batch: int = 16
    """Samples per step across all ranks: must divide by world size × --micro-batches."""
    micro_batches: int = 4
    """k: micro-batches per rank and step in the accumulation phase."""
    accum: str = "no_sync"
    """no_sync: the first k-1 backwards skip the all-reduce; sync_each: every backward all-reduces (k× calls)."""
    bucket_cap_mb: float = 0.1
    """DDP bucket_cap_mb (MiB). The tiny GPT has ~0.55 MB of fp32 gradients: 0.1 gives several buckets."""
    optimizer: str = "sgd"
    """sgd (momentum 0.9) keeps float rounding differences as small as they are; adamw divides each
    gradient by its own running magnitude, which can blow a rounding difference in a near-zero gradient
    up to a full lr-sized step (about 1e-4 here at --lr 0.003), so it needs a looser --tolerance."""
    lr: float = 0.05
    """Learning rate."""
    dropout: float = 0.0
    """Dropout of the model: 0 makes one process on the big batch comparable (see the module docstring)."""
    tolerance: float = 1e-5
    """Largest allowed max |DDP parameter - single-process parameter|."""
    timing_steps: int = 12
    """Steps of the timing phase (alternating with and without communication; the first two are warm-up)."""


# ---- theory: where DDP's bucket boundaries fall ---------------------------------------------------
def predicted_buckets(model: torch.nn.Module, cap_bytes: int) -> list[int]:
    """Bucket sizes in bytes by DDP's rule: parameters in reverse registration order (the order backward
    produces their gradients), a bucket closed as soon as it holds at least `cap_bytes`."""
    sizes, size = [], 0
    for p in reversed(list(model.parameters())):
        size += p.numel() * p.element_size()
        if size >= cap_bytes:
            sizes.append(size)
            size = 0
    return sizes + ([size] if size else [])


# ---- the workers (run by torchrun on every rank) ------------------------------------------------------
def new_model(cfg: Config, device: torch.device) -> tuple[GPT, torch.optim.Optimizer]:
    model = build_gpt(cfg, device, dropout=cfg.dropout)  # the same init in every phase and on every rank
    if cfg.optimizer == "sgd":
        return model, torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=0.9)
    return model, torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.1)


def wrap(cfg: Config, ctx: Context) -> tuple[DDP, torch.optim.Optimizer, BucketWatch]:
    model, opt = new_model(cfg, ctx.device)
    ddp = DDP(model, device_ids=[ctx.local_rank] if ctx.device.type == "cuda" else None,
              bucket_cap_mb=cfg.bucket_cap_mb)
    watch = BucketWatch()
    ddp.register_comm_hook(None, watch.hook)
    return ddp, opt, watch


def train_ddp(cfg: Config, ctx: Context, windows: ByteWindows, k: int, log: EventLog, phase: str) -> dict:
    """DDP training with k micro-batches per rank and step; returns the final parameters and the bucket log."""
    ddp, opt, watch = wrap(cfg, ctx)
    sampler = Sampler(windows.num_samples, cfg.global_batch, cfg.seed)
    for step in range(1, cfg.steps + 1):
        ids = sampler.next_for_rank(ctx.rank, ctx.world)
        per = len(ids) // k
        opt.zero_grad(set_to_none=True)
        for m in range(k):
            watch.step, watch.micro = step, m
            x, y = (t.to(ctx.device) for t in windows.batch(ids[m * per:(m + 1) * per]))
            skip_sync = cfg.accum == "no_sync" and m < k - 1
            with ddp.no_sync() if skip_sync else nullcontext():
                (ddp(x, y) / k).backward()  # mean of k micro-batch means = mean over the rank's share
        opt.step()
        log.log("step", phase=phase, step=step)
    return {"params": flat_params(ddp.module), "calls": watch.calls}


def train_single(cfg: Config, windows: ByteWindows, device: torch.device, log: EventLog) -> torch.Tensor:
    """The reference: one process, no DDP, the whole global batch in one forward/backward. Every rank runs
    it (no rank idles in a collective meanwhile, whatever its length), on the device DDP used; rank 0 reports."""
    model, opt = new_model(cfg, device)
    sampler = Sampler(windows.num_samples, cfg.global_batch, cfg.seed)
    for step in range(1, cfg.steps + 1):
        x, y = (t.to(device) for t in windows.batch(sampler.next_global_batch()))
        opt.zero_grad(set_to_none=True)
        model(x, y).backward()
        opt.step()
        log.log("step", phase="reference", step=step)
    return flat_params(model)


def timing(cfg: Config, ctx: Context, windows: ByteWindows, log: EventLog) -> list[dict[str, Any]]:
    """Steps alternating between communicating and not; per step its time and its buckets' comm intervals."""
    ddp, opt, watch = wrap(cfg, ctx)
    sampler = Sampler(windows.num_samples, cfg.global_batch, cfg.seed)
    rows = []
    for step in range(1, cfg.timing_steps + 1):
        watch.step, watch.communicate = step, step % 2 == 0  # the same decision on every rank
        x, y = (t.to(ctx.device) for t in windows.batch(sampler.next_for_rank(ctx.rank, ctx.world)))
        dist.barrier()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        ddp(x, y).backward()
        opt.step()
        if ctx.device.type == "cuda":
            torch.cuda.synchronize(ctx.device)
        step_s = time.perf_counter() - t0
        comm = [(c["t0"], c["t1"]) for c in watch.calls if c["step"] == step and c["t1"] is not None]
        rows.append({"step": step, "communicate": watch.communicate, "step_s": step_s,
                     "comm_in_flight_s": union_length(comm)})
        log.log("step", phase="timing", step=step)
    return rows


def union_length(intervals: list[tuple[float, float]]) -> float:
    total, end = 0.0, float("-inf")
    for a, b in sorted(intervals):
        total += max(0.0, b - max(a, end))
        end = max(end, b)
    return total


def worker(cfg: Config, ctx: Context) -> None:
    log = EventLog(Path(cfg.out) / "events", ctx.rank, ctx.attempt)
    log.log("start", world=ctx.world, backend=ctx.backend)
    windows = ByteWindows(cfg.block)
    plain = train_ddp(cfg, ctx, windows, 1, log, "plain")
    accum = train_ddp(cfg, ctx, windows, cfg.micro_batches, log, "accum")
    runs = {"plain": plain, "accum": accum}
    spread = {name: replica_spread(run["params"]) for name, run in runs.items()}
    ref = train_single(cfg, windows, ctx.device, log)
    if ctx.rank == 0:
        cap = int(cfg.bucket_cap_mb * MIB)
        log.log("result", max_abs_diff={name: (run["params"] - ref).abs().max().item()
                                        for name, run in runs.items()},
                replica_spread=spread, num_params=ref.numel(), param_bytes=ref.numel() * ref.element_size(),
                predicted_buckets=predicted_buckets(new_model(cfg, torch.device("cpu"))[0], cap), cap_bytes=cap,
                calls={name: [{k: v for k, v in c.items() if k not in ("t0", "t1")} for c in run["calls"]]
                       for name, run in runs.items()})
    rows = timing(cfg, ctx, windows, log)
    if ctx.rank == 0:
        log.log("timing", rows=rows)
    log.log("done")


# ---- the orchestrator (python -m labs.run ddp) -------------------------------------------------------
def check_config(cfg: Config) -> str:
    world = cfg.world_size
    if cfg.global_batch % (world * cfg.micro_batches):
        return Problem(f"--global-batch {cfg.global_batch} must divide by world size × --micro-batches = "
                       f"{world * cfg.micro_batches}",
                       f"--global-batch {cfg.global_batch} 必须能被 world size × --micro-batches = "
                       f"{world * cfg.micro_batches} 整除")
    if cfg.steps < 2 or cfg.timing_steps < 4:
        return Problem("need --steps >= 2 (buckets are rebuilt after step 1) and --timing-steps >= 4",
                       "需要 --steps >= 2（桶在第 1 步之后会重建）且 --timing-steps >= 4")
    return ""


def main(cfg: Config) -> int:
    cfg, run_dir = report.open_run("ddp", cfg)
    report.console.print(f"[bold]ddp[/]: {cfg.nproc} ranks vs one process, run folder {run_dir}")
    job = report.run_workers("ddp", cfg, run_dir, 3 * cfg.steps + cfg.timing_steps,
                             report.counter("step", lambda e: e["phase"]))
    result = analyse(cfg, job, read_events(run_dir / "events", rank=0))
    report.write_json(run_dir / "report.json", result)
    show(result, run_dir)
    return 0 if result["passed"] else 1


def bucket_sizes(calls: list[dict[str, Any]], step: int) -> list[int]:
    """The sizes of the buckets all-reduced in `step`, by bucket index (each index once)."""
    by_index = {c["index"]: c["bytes"] for c in calls if c["step"] == step}
    return [by_index[i] for i in sorted(by_index)]


def analyse(cfg: Config, job: launch.JobResult, events: list[dict[str, Any]]) -> dict[str, Any]:
    res = next((e for e in events if e["ev"] == "result"), None)
    rows = next((e["rows"] for e in events if e["ev"] == "timing"), [])
    n = next((e["world"] for e in events if e["ev"] == "start"), cfg.nproc)
    checks = {"job_completed": job.returncode == 0 and any(e["ev"] == "done" for e in events)}
    out: dict[str, Any] = {"lab": "ddp", "config": dataclasses.asdict(cfg), "world_size": n,
                           "torchrun_command": launch.printable(job.command), "plot": "ddp.png"}
    if res:
        plain, accum = res["calls"]["plain"], res["calls"]["accum"]
        rebuilt = bucket_sizes(plain, 2)
        steps_after = range(2, cfg.steps + 1)
        calls_per_step = [sum(1 for c in accum if c["step"] == s) for s in steps_after]
        synced_micro = [len({c["micro"] for c in accum if c["step"] == s}) for s in range(1, cfg.steps + 1)]
        out |= {
            "max_abs_diff": res["max_abs_diff"], "tolerance": cfg.tolerance, "replica_spread": res["replica_spread"],
            "num_params": res["num_params"], "param_bytes": res["param_bytes"],
            "buckets": {"cap_bytes": res["cap_bytes"], "step1_sizes": bucket_sizes(plain, 1),
                        "measured_sizes": rebuilt, "predicted_sizes": res["predicted_buckets"],
                        "measured_count": len(rebuilt), "predicted_count": len(res["predicted_buckets"]),
                        "bytes_per_step": sum(rebuilt),
                        "ring_bytes_per_rank_per_step": theory.ring_allreduce_bytes_per_rank(sum(rebuilt), n)},
            "no_sync": {"mode": cfg.accum, "micro_batches": cfg.micro_batches,
                        "allreduce_calls_per_step": calls_per_step, "expected_calls_per_step": len(rebuilt),
                        "synced_micro_batches_per_step": synced_micro, "expected_synced_micro_batches": 1},
        }
        checks |= {
            "plain_matches_single_process": res["max_abs_diff"]["plain"] <= cfg.tolerance,
            "accum_matches_single_process": res["max_abs_diff"]["accum"] <= cfg.tolerance,
            "replicas_identical": max(res["replica_spread"].values()) == 0.0,
            "buckets_match_prediction": rebuilt == res["predicted_buckets"],
            "bucket_bytes_equal_param_bytes": sum(rebuilt) == res["param_bytes"],
            "one_allreduce_per_bucket_per_step": all(c == len(rebuilt) for c in calls_per_step),
            "one_synced_micro_batch_per_step": all(m == 1 for m in synced_micro),
        }
    timed = rows[2:]  # the first two steps warm up allocator and connections
    with_comm = [r for r in timed if r["communicate"]]
    without = [r for r in timed if not r["communicate"]]
    if with_comm and without:
        t_with, t_without = median(r["step_s"] for r in with_comm), median(r["step_s"] for r in without)
        in_flight = median(r["comm_in_flight_s"] for r in with_comm)
        out["timing"] = {"step_with_comm_s": t_with, "step_without_comm_s": t_without,
                         "comm_in_flight_s": in_flight, "exposed_comm_share": 1 - t_without / t_with,
                         "in_flight_comm_share": in_flight / t_with, "rows": rows}
        checks["comm_share_measured"] = 0 < in_flight / t_with <= 1
    out["passed"] = all(checks.values()) and len(checks) > 1
    out["checks"] = checks
    return out


def plot(path: Path, result: dict[str, Any]) -> None:
    plt = report.pyplot()
    b, t = result["buckets"], result.get("timing")
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
    idx = range(max(len(b["measured_sizes"]), len(b["predicted_sizes"])))

    def pad(xs: list[int]) -> list[float]:
        return [xs[i] / 1e3 if i < len(xs) else 0 for i in idx]

    ax.bar([i - 0.2 for i in idx], pad(b["measured_sizes"]), 0.4, label="measured (comm hook, step 2+)")
    ax.bar([i + 0.2 for i in idx], pad(b["predicted_sizes"]), 0.4, label="predicted (reverse order, greedy)")
    cap_mb = result["config"]["bucket_cap_mb"]
    ax.axhline(b["cap_bytes"] / 1e3, color="red", ls="--", lw=1, label=f"bucket_cap_mb = {cap_mb:g} MiB")
    ax.set_ylim(0, 1.4 * max(pad(b["measured_sizes"]) + pad(b["predicted_sizes"])))
    ax.set_xticks(list(idx))
    ax.set(xlabel="bucket index (0 = all-reduced first)", ylabel="bucket size (kB)",
           title=f"{b['measured_count']} buckets; step 1 had {len(b['step1_sizes'])}")
    ax.legend(fontsize=8)
    if t:
        bars = {"step without comm": t["step_without_comm_s"], "step with comm": t["step_with_comm_s"],
                "comm in flight": t["comm_in_flight_s"]}
        bx.bar(list(bars), [v * 1e3 for v in bars.values()], color=["tab:green", "tab:blue", "tab:orange"])
        bx.set(ylabel="ms (median)", title=f"comm share: exposed {100 * t['exposed_comm_share']:.0f}%, "
               f"in flight {100 * t['in_flight_comm_share']:.0f}%")
    report.save_figure(fig, path)


def show(result: dict[str, Any], run_dir: Path) -> None:
    rows = report.verdict_rows(result)
    if "buckets" in result:
        b, ns, d = result["buckets"], result["no_sync"], result["max_abs_diff"]
        rows += [("max |DDP - single| plain", f"{d['plain']:.3g} (tolerance {result['tolerance']:g})"),
                 (f"max |DDP - single| {ns['mode']} k={ns['micro_batches']}", f"{d['accum']:.3g}"),
                 ("buckets measured / predicted", f"{b['measured_count']} / {b['predicted_count']}"),
                 ("bucket kB measured", " ".join(f"{s / 1e3:.1f}" for s in b["measured_sizes"])),
                 ("bucket kB predicted", " ".join(f"{s / 1e3:.1f}" for s in b["predicted_sizes"])),
                 ("bucket bytes / param bytes", f"{b['bytes_per_step']} / {result['param_bytes']} = "
                                                f"{b['bytes_per_step'] / result['param_bytes']:.3f}"),
                 ("all-reduces per step measured / expected",
                  f"{median(ns['allreduce_calls_per_step']):g} / {ns['expected_calls_per_step']} "
                  f"(ratio {median(ns['allreduce_calls_per_step']) / ns['expected_calls_per_step']:.2f})")]
    if "timing" in result:
        t = result["timing"]
        rows += [("step ms with / without comm", f"{t['step_with_comm_s'] * 1e3:.2f} / "
                                                 f"{t['step_without_comm_s'] * 1e3:.2f}"),
                 ("comm share exposed / in flight", f"{100 * t['exposed_comm_share']:.1f}% / "
                                                    f"{100 * t['in_flight_comm_share']:.1f}%")]
    if "buckets" in result:
        plot(run_dir / "ddp.png", result)
    report.console.print(report.summary_table("ddp", rows))
    report.console.print(f"report: {run_dir / 'report.json'}  plot: {run_dir / 'ddp.png'}")


if __name__ == "__main__":
    sys.exit("run it with: python -m labs.run ddp")
