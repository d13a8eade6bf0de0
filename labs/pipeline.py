"""pipeline: GPipe, 1F1B and interleaved 1F1B with torch.distributed.pipelining; measured bubble vs theory.

Run it (2 CPU processes = 2 pipeline stages, gloo; NCCL on GPUs with no change):
    python -m labs.run pipeline                                   # gpipe, 1f1b, interleaved; m = 2, 4, 8
    python -m labs.run pipeline --schedules gpipe,1f1b --microbatches 2,4,8,16
    python -m labs.run pipeline --width 16 --microbatch-size 1    # compute too small: overhead wins, fails
The workers, as the lab prints them:
    TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 torchrun --nnodes=1 --nproc-per-node=2 --max-restarts=0 \
        --rdzv-backend=c10d --rdzv-endpoint=localhost:0 -m labs.core.worker pipeline --out runs/p

What happens: a deep MLP (--layers Linear+GELU blocks of --width) is cut into p equal stages, one per rank
(interleaved: 2 chunks per rank, stage ids r and r + p). For each schedule and micro-batch count m the
workers run --repeats timed steps of --microbatch-size samples per micro-batch and record, per rank, the
start and end of every forward and backward chunk (the schedule's calls to forward_one_chunk and
backward_one_chunk), on a clock zeroed by a barrier at the start of the step. A rank's bubble is the share
of the step (first action of any rank to last action of any rank) it spends outside those actions, i.e.
waiting for a neighbour or communicating; the lab averages the ranks and compares with
labs.core.theory.pipeline_bubble_fraction(p, m, v). It also replays each step with the measured chunk durations
and free communication (reported: uneven chunk durations move it either way; measured minus replayed is
the transfers' share), and once more with every forward costing 1 and every backward 2: that replay of the
recorded order must give the formula exactly, which proves the schedule ran the textbook order.
A saved_tensors_hooks meter counts the activation bytes autograd keeps for backward (weights excluded,
shared tensors once; per micro-batch 2 fp32 tensors of micro-batch x width per layer, checked): GPipe holds
all m micro-batches before its first backward, 1F1B at most p - stage.
The gradients and losses of every schedule are checked against the same model run unpipelined on the
whole batch. No optimizer step: every repetition computes the same gradients.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe, ScheduleInterleaved1F1B

from labs.core import launch, report
from labs.core.config import LaunchConfig, Problem
from labs.core.events import EventLog, read_events
from labs.core.theory import pipeline_bubble_fraction
from labs.core.worker import Context

DESCRIPTION = "GPipe vs 1F1B with torch.distributed.pipelining: measured bubble vs (p-1)/(m+p-1), Gantt chart"
SCHEDULES = {"gpipe": ScheduleGPipe, "1f1b": Schedule1F1B, "interleaved": ScheduleInterleaved1F1B}
VIRTUAL = {"gpipe": 1, "1f1b": 1, "interleaved": 2}


@dataclass
class Config(LaunchConfig):
    schedules: str = "gpipe,1f1b,interleaved"
    """Comma list of schedules: gpipe, 1f1b, interleaved (ScheduleInterleaved1F1B, 2 chunks per rank)."""
    microbatches: str = "2,4,8"
    """Comma list of micro-batch counts m to measure."""
    microbatch_size: int = 64
    """Samples per micro-batch, fixed: a step's batch is m times this, so compute per micro-batch is constant."""
    width: int = 1024
    """Width of every Linear layer (the activation sent between stages is micro-batch x width floats)."""
    layers: int = 64
    """Linear+GELU blocks in the whole model (must divide by p x 2 for the interleaved schedule). Deep rather
    than wide: each chunk's compute must dwarf what the schedule does between chunks (~1 ms of P2P issue and
    wake-ups, twice as many per step when interleaved): at 32 layers interleaved sat 0.02-0.05 above theory."""
    warmup: int = 1
    """Untimed steps per schedule and m (the first one also infers the shapes sent between stages)."""
    repeats: int = 3
    """Timed steps per schedule and m; the lab checks the median bubble (CPU noise moves single steps both
    ways: a stalled neighbour adds idle time, a stalled action adds busy time)."""
    bubble_share: float = 0.9
    """The bubble check allows |median measured - theory| up to this share of half the gap between the case's
    theory and its nearest neighbour's (neighbouring_cases): below 1, a pass means the measurement is nearer
    its own case than any neighbour. The allowance has to hold the transfers and gloo's wake-ups (~1 ms per
    chunk, reported as measured - replayed) and uneven chunk durations; for p = 2 it is 0.023 at m = 8."""
    pin_cores: bool = True
    """Pin each rank's compute thread to a core of its own when there are enough (CPU only), so the two
    stages do not steal each other's core; gloo's threads stay free to run on any core."""
    grad_tol: float = 1e-4
    """Allowed max |grad - reference| / max |reference|, per rank: summation order differs, and the float32
    difference grows with depth (1.0-1.7e-5 at 64 layers). A dropped or doubled micro-batch is off by 1/m."""
    gantt_m: int = 4
    """Micro-batch count drawn in timeline.png."""


def int_list(text: str) -> list[int]:
    return [int(s) for s in text.split(",") if s.strip()]


def names(cfg: Config) -> list[str]:
    return [s.strip() for s in cfg.schedules.split(",") if s.strip()]


def build_model(cfg: Config) -> nn.Sequential:
    torch.manual_seed(cfg.seed)  # every rank builds the same full model and keeps only its stages
    return nn.Sequential(*[nn.Sequential(nn.Linear(cfg.width, cfg.width), nn.GELU()) for _ in range(cfg.layers)])


def batch(cfg: Config, m: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(cfg.seed + m)
    x = torch.randn(m * cfg.microbatch_size, cfg.width, generator=g)
    return x.to(device), torch.randn(x.shape, generator=g).to(device)


# ---- measuring a stage: action timeline and saved-activation bytes ------------------------------------
class Meter:
    """Live bytes autograd saved for backward, counted per tensor (data_ptr, size): micro-batches are views
    of one input, so storages would overcount. Parameters are saved too, but they are not activations."""

    def __init__(self, params: list[nn.Parameter]) -> None:
        self.params = {p.data_ptr() for p in params}
        self.refs: dict[tuple[int, int], int] = {}
        self.live = self.peak = 0

    def pack(self, t: torch.Tensor) -> Any:
        return t if t.data_ptr() in self.params else _Saved(t, self)

    @staticmethod
    def unpack(obj: Any) -> torch.Tensor:
        return obj.t if isinstance(obj, _Saved) else obj

    def add(self, key: tuple[int, int]) -> None:
        self.refs[key] = self.refs.get(key, 0) + 1
        if self.refs[key] == 1:
            self.live += key[1]
            self.peak = max(self.peak, self.live)

    def drop(self, key: tuple[int, int]) -> None:
        self.refs[key] -= 1
        if not self.refs[key]:
            del self.refs[key]
            self.live -= key[1]


class _Saved:
    """What autograd holds instead of a saved tensor: freed with the graph after backward, which drops the count."""

    def __init__(self, t: torch.Tensor, meter: Meter) -> None:
        self.t, self.meter, self.key = t, meter, (t.data_ptr(), t.nbytes)
        meter.add(self.key)

    def __del__(self) -> None:
        self.meter.drop(self.key)


def instrument(stage: PipelineStage, meter: Meter, actions: list[list[Any]], device: torch.device) -> None:
    """Wrap the two calls every schedule makes per chunk: forward_one_chunk (under the meter's saved-tensor
    hooks) and backward_one_chunk. Each appends [kind, stage, micro-batch, start, end, live bytes after]."""
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    forward, backward = stage.forward_one_chunk, stage.backward_one_chunk

    def timed(kind: str, fn: Any, mb: int, *args: Any, **kwargs: Any) -> Any:
        sync()
        start = time.perf_counter()
        if kind == "F":
            with torch.autograd.graph.saved_tensors_hooks(meter.pack, meter.unpack):
                out = fn(mb, *args, **kwargs)
        else:
            out = fn(mb, *args, **kwargs)
        sync()
        actions.append([kind, stage.stage_index, mb, start, time.perf_counter(), meter.live])
        return out

    stage.forward_one_chunk = lambda mb, *a, **k: timed("F", forward, mb, *a, **k)
    stage.backward_one_chunk = lambda mb, *a, **k: timed("B", backward, mb, *a, **k)


# ---- the workers (run by torchrun on every rank) ------------------------------------------------------
def worker(cfg: Config, ctx: Context) -> None:
    log = EventLog(Path(cfg.out) / "events", ctx.rank, ctx.attempt)
    cores = sorted(os.sched_getaffinity(0))
    if cfg.pin_cores and ctx.device.type == "cpu" and len(cores) >= int(os.environ.get("LOCAL_WORLD_SIZE", 1)):
        os.sched_setaffinity(0, {cores[ctx.local_rank % len(cores)]})  # this thread only: gloo's already run
    log.log("start", world=ctx.world, backend=ctx.backend, cores=sorted(os.sched_getaffinity(0)))
    reference = build_model(cfg).to(ctx.device)
    for m in int_list(cfg.microbatches):
        x, y = batch(cfg, m, ctx.device)
        expected = reference_step(reference, x, y)
        for name in names(cfg):
            run_schedule(cfg, ctx, name, m, reference, x, y, expected, log)
    log.log("done")


def reference_step(model: nn.Sequential, x: torch.Tensor, y: torch.Tensor) -> tuple[float, list[torch.Tensor]]:
    """The same model unpipelined on the whole batch: the loss and every layer's gradients."""
    model.zero_grad(set_to_none=True)
    loss = F.mse_loss(model(x), y)
    loss.backward()
    return loss.item(), [p.grad.clone() for p in model.parameters()]


def run_schedule(cfg: Config, ctx: Context, name: str, m: int, reference: nn.Sequential, x: torch.Tensor,
                 y: torch.Tensor, expected: tuple[float, list[torch.Tensor]], log: EventLog) -> None:
    p, v = ctx.world, VIRTUAL[name]
    per_chunk = cfg.layers // (p * v)
    ids = [ctx.rank + k * p for k in range(v)]  # Megatron's looping placement: rank r holds stages r, r+p, ...
    chunks = [copy.deepcopy(reference[i * per_chunk:(i + 1) * per_chunk]) for i in ids]
    stages = [PipelineStage(c, i, p * v, ctx.device) for c, i in zip(chunks, ids, strict=True)]
    params = [q for c in chunks for q in c.parameters()]
    meter, actions = Meter(params), []
    for stage in stages:
        instrument(stage, meter, actions, ctx.device)
    schedule = (SCHEDULES[name](stages, m, loss_fn=F.mse_loss) if v > 1
                else SCHEDULES[name](stages[0], m, loss_fn=F.mse_loss))
    first, last = 0 in ids, p * v - 1 in ids
    for rep in range(cfg.warmup + cfg.repeats):
        for c in chunks:  # zeroed in place, not set to None: fresh gradient buffers are page-faulted inside the
            c.zero_grad(set_to_none=False)  # first timed backward of each chunk (245 ms vs 160 ms for the rest)
        actions.clear()
        meter.peak = meter.live
        losses: list[torch.Tensor] = []
        dist.barrier()
        t0 = time.perf_counter()
        schedule.step(*((x,) if first else ()), **({"target": y, "losses": losses} if last else {}))
        if rep == 0:
            log.log("check", schedule=name, m=m, **compare(chunks, ids, per_chunk, expected, losses))
        if rep >= cfg.warmup:
            log.log("timeline", schedule=name, m=m, rep=rep - cfg.warmup, peak=meter.peak,
                    actions=[[k, s, mb, a - t0, b - t0, live] for k, s, mb, a, b, live in actions])
    dist.barrier()


def compare(chunks: list[nn.Sequential], ids: list[int], per_chunk: int, expected: tuple[float, list[torch.Tensor]],
            losses: list[torch.Tensor]) -> dict[str, Any]:
    """This rank's gradients (and, on the last stage, the loss) against the unpipelined run."""
    ref_loss, ref_grads = expected
    per_layer = 2  # weight and bias of one Linear
    worst = 0.0
    for chunk, i in zip(chunks, ids, strict=True):
        mine = [q.grad for q in chunk.parameters()]
        theirs = ref_grads[i * per_chunk * per_layer:(i + 1) * per_chunk * per_layer]
        for a, b in zip(mine, theirs, strict=True):
            worst = max(worst, ((a - b).abs().max() / b.abs().max()).item())
    out: dict[str, Any] = {"grad_rel_err": worst}
    if losses:  # the last stage: the schedule's micro-batch losses, averaged, against the whole-batch loss
        out["loss"], out["ref_loss"] = torch.stack(losses).mean().item(), ref_loss
    return out


# ---- the orchestrator (python -m labs.run pipeline) ---------------------------------------------------
def check_config(cfg: Config) -> str:
    p = cfg.world_size
    unknown = [s for s in names(cfg) if s not in SCHEDULES]
    if unknown or not names(cfg):
        return Problem(f"--schedules takes a comma list of {list(SCHEDULES)}, got {cfg.schedules!r}",
                       f"--schedules 接受由 {list(SCHEDULES)} 组成的逗号分隔列表，收到的是 {cfg.schedules!r}")
    for s in names(cfg):
        if cfg.layers % (p * VIRTUAL[s]):
            return Problem(f"--layers {cfg.layers} must divide by {p * VIRTUAL[s]} stages for {s}",
                           f"--layers {cfg.layers} 必须能被 {s} 的 {p * VIRTUAL[s]} 个 stage 整除")
    if not 0 < cfg.bubble_share < 1:
        return Problem(f"--bubble-share must be in (0, 1) to tell neighbouring cases apart, got {cfg.bubble_share}",
                       f"--bubble-share 必须在 (0, 1) 之内才能区分相邻的情形，收到的是 {cfg.bubble_share}")
    if not int_list(cfg.microbatches) or min(int_list(cfg.microbatches)) < 1:
        return Problem("--microbatches needs positive counts", "--microbatches 需要正的 micro-batch 数")
    if "interleaved" in names(cfg) and any(m % p for m in int_list(cfg.microbatches)):
        return Problem(f"the interleaved schedule needs every m to divide by p={p}",
                       f"interleaved 调度要求每个 m 都能被 p={p} 整除")
    return ""


def main(cfg: Config) -> int:
    cfg, run_dir = report.open_run("pipeline", cfg)
    report.console.print(f"[bold]pipeline[/]: {cfg.schedules}, m = {cfg.microbatches}, run folder {run_dir}")
    total = len(names(cfg)) * len(int_list(cfg.microbatches)) * cfg.repeats
    job = report.run_workers("pipeline", cfg, run_dir, total,
                             report.counter("timeline", lambda e: f"{e['schedule']} m={e['m']}"))
    result = analyse(cfg, run_dir, job)
    report.write_json(run_dir / "report.json", result)
    show(result, run_dir)
    return 0 if result["passed"] else 1


def bubble(timelines: list[dict[str, Any]]) -> float:
    """One step's bubble: each rank's time outside its actions over the whole step's span, averaged."""
    spans = [a for t in timelines for a in t["actions"]]
    window = max(a[4] for a in spans) - min(a[3] for a in spans)
    return sum(1 - sum(a[4] - a[3] for a in t["actions"]) / window for t in timelines) / len(timelines)


def replayed_bubble(timelines: list[dict[str, Any]], cost: dict[str, float] | None = None) -> float:
    """The same step with free communication: every chunk keeps its rank's order and its measured duration
    (or `cost[kind]`), and starts as soon as its rank is free and its input is ready: a forward needs the
    previous stage's forward of that micro-batch, a backward the next stage's backward (on the last stage,
    its own forward). Only each rank's own clock orders its actions: no clocks are compared across ranks."""
    queues = {t["rank"]: sorted(t["actions"], key=lambda a: a[3]) for t in timelines}
    last = max(a[1] for q in queues.values() for a in q)
    done: dict[tuple[str, int, int], float] = {}
    free, busy = dict.fromkeys(queues, 0.0), dict.fromkeys(queues, 0.0)
    while any(queues.values()):
        progress = False
        for rank, queue in queues.items():
            while queue:
                kind, stage, mb, start, end, _ = queue[0]
                needs = ("F", stage - 1, mb) if kind == "F" else ("B", stage + 1, mb) if stage < last else None
                if needs and needs[1] >= 0 and needs not in done:
                    break  # waits for another rank
                duration = cost[kind] if cost else end - start
                done[kind, stage, mb] = free[rank] = max(free[rank], done.get(needs, 0.0)) + duration
                busy[rank] += duration
                queue.pop(0)
                progress = True
        if not progress:
            raise RuntimeError("recorded actions wait on each other: not a pipeline schedule")
    window = max(free.values())
    return sum(1 - b / window for b in busy.values()) / len(busy)


def neighbouring_cases(name: str, m: int, ms: list[int]) -> list[tuple[str, int]]:
    """The cases a measurement of (name, m) must not be mistaken for: the other interleaving at the same m
    (interleaved vs 1F1B), and the same schedule at the next smaller and next larger m of the run. GPipe
    and 1F1B share one formula: they are told apart by activation memory, not by bubble."""
    other = "1f1b" if VIRTUAL[name] > 1 else "interleaved"
    ms = sorted(set(ms))
    i = ms.index(m)
    return [(other, m)] + [(name, ms[j]) for j in (i - 1, i + 1) if 0 <= j < len(ms)]


def bubble_of(p: int, name: str, m: int) -> float:
    return pipeline_bubble_fraction(p, m, VIRTUAL[name])


def bubble_tolerance(p: int, name: str, m: int, ms: list[int], share: float) -> float:
    """`share` of half the distance from (name, m)'s theory to the nearest neighbouring case's."""
    own = bubble_of(p, name, m)
    return share * min(abs(own - bubble_of(p, n, k)) for n, k in neighbouring_cases(name, m, ms)) / 2


def bubble_ok(measured: float, p: int, name: str, m: int, tol: float) -> bool:
    """The check: `measured` within `tol` of the theory of (name, m)."""
    return abs(measured - bubble_of(p, name, m)) <= tol


def figures(cfg: Config, events: list[dict[str, Any]], p: int, name: str, m: int) -> dict[str, Any]:
    tl = [e for e in events if e["ev"] == "timeline" and e["schedule"] == name and e["m"] == m]
    checks = [e for e in events if e["ev"] == "check" and e["schedule"] == name and e["m"] == m]
    reps = sorted({e["rep"] for e in tl})
    bubbles = [bubble([e for e in tl if e["rep"] == r]) for r in reps]
    replayed = median(replayed_bubble([e for e in tl if e["rep"] == r]) for r in reps) if reps else float("nan")
    # the recorded order with textbook costs (backward = 2 forwards): the formula's own assumptions
    ideal = replayed_bubble([e for e in tl if e["rep"] == reps[0]], {"F": 1.0, "B": 2.0}) if reps else float("nan")
    # bytes one forward chunk saves: the live count right after a rank's first forward of the step
    per_mb = max(next(a[5] for a in e["actions"] if a[0] == "F") for e in tl) if tl else 0
    peak = max((e["peak"] for e in tl), default=0)
    # each Linear saves its input and each GELU its input: 2 fp32 tensors of micro-batch x width per layer
    per_mb_theory = 2 * cfg.layers // (p * VIRTUAL[name]) * cfg.microbatch_size * cfg.width * 4
    theory = bubble_of(p, name, m)
    ms = int_list(cfg.microbatches)
    tol = bubble_tolerance(p, name, m, ms, cfg.bubble_share)
    measured = median(bubbles) if bubbles else float("nan")
    last = next((c for c in checks if "loss" in c), {})
    return {"schedule": name, "m": m, "p": p, "v": VIRTUAL[name], "bubble_theory": theory,
            "bubble_measured": measured, "bubble_all_reps": bubbles, "ratio": measured / theory,
            "bubble_tol": tol, "bubble_ok": bubble_ok(measured, p, name, m, tol),
            "neighbours": {f"{n}_m{k}": bubble_of(p, n, k) for n, k in neighbouring_cases(name, m, ms)},
            "bubble_replayed": replayed,
            "communication_share": measured - replayed, "bubble_of_order": ideal,
            "peak_activation_bytes": peak, "activation_bytes_per_microbatch": per_mb,
            "activation_bytes_per_microbatch_theory": per_mb_theory,
            "peak_in_microbatches": peak / per_mb if per_mb else None,
            "grad_rel_err": max((c["grad_rel_err"] for c in checks), default=None),
            "loss": last.get("loss"), "ref_loss": last.get("ref_loss"),
            "step_s": median(max(a[4] for e in tl if e["rep"] == r for a in e["actions"]) for r in reps)
            if reps else None}


def analyse(cfg: Config, run_dir: Path, job: launch.JobResult) -> dict[str, Any]:
    events = read_events(run_dir / "events")
    p = cfg.world_size
    ms = int_list(cfg.microbatches)
    rows = [figures(cfg, events, p, s, m) for s in names(cfg) for m in ms]
    by = {(r["schedule"], r["m"]): r for r in rows}
    checks: dict[str, bool] = {"job_exit_clean": job.returncode == 0,
                               "all_measured": all(r["bubble_all_reps"] for r in rows)}
    for r in rows:
        key = f"{r['schedule']}_m{r['m']}"
        checks[f"{key}_bubble_within_tol"] = r["bubble_ok"]
        checks[f"{key}_order_is_textbook"] = abs(r["bubble_of_order"] - r["bubble_theory"]) < 1e-9
        checks[f"{key}_activation_bytes_per_microbatch"] = (r["activation_bytes_per_microbatch"] ==
                                                           r["activation_bytes_per_microbatch_theory"])
        checks[f"{key}_grads_match_reference"] = r["grad_rel_err"] is not None and r["grad_rel_err"] <= cfg.grad_tol
        checks[f"{key}_loss_matches_reference"] = (r["loss"] is not None and
                                                   abs(r["loss"] - r["ref_loss"]) <= 1e-5 * abs(r["ref_loss"]))
    for name in names(cfg):
        if len(ms) > 1:
            bubbles = [by[name, m]["bubble_measured"] for m in sorted(ms)]
            checks[f"{name}_bubble_falls_with_m"] = all(a > b for a, b in zip(bubbles, bubbles[1:], strict=False))
    if "gpipe" in names(cfg):  # GPipe keeps all m micro-batches alive before its first backward
        checks["gpipe_peak_is_m_microbatches"] = all(abs(by["gpipe", m]["peak_in_microbatches"] - m) < 0.05
                                                     for m in ms)
    if "1f1b" in names(cfg):  # 1F1B: at most p in flight, whatever m
        checks["1f1b_peak_at_most_p_microbatches"] = all(
            by["1f1b", m]["peak_in_microbatches"] <= min(m, p) + 0.05 for m in ms)
        if "gpipe" in names(cfg):
            checks["1f1b_peak_le_gpipe_for_m_gt_p"] = all(by["1f1b", m]["peak_activation_bytes"] <=
                                                          by["gpipe", m]["peak_activation_bytes"] for m in ms if m > p)
    return {"lab": "pipeline", "passed": all(checks.values()), "checks": checks, "config": dataclasses.asdict(cfg),
            "stages": p, "rows": rows, "job_seconds": round(job.ended - job.started, 2),
            "torchrun_command": launch.printable(job.command), "plots": ["timeline.png", "bubble.png"]}


def show(result: dict[str, Any], run_dir: Path) -> None:
    from rich.table import Table

    table = Table(title=f"pipeline, p={result['stages']}: bubble (idle share of a step, median of "
                        f"{result['config']['repeats']}; replay = free communication) and peak saved activations "
                        f"per rank; interleaved v=2")
    table.add_column("schedule", min_width=11)
    for col in ("m", "theory", "± tol", "replay", "meas.", "ratio", "ok", "act MB", "act/mb"):
        table.add_column(col, justify="right")
    for r in result["rows"]:
        table.add_row(r["schedule"], str(r["m"]), f"{r['bubble_theory']:.3f}", f"{r['bubble_tol']:.3f}",
                      f"{r['bubble_replayed']:.3f}", f"{r['bubble_measured']:.3f}", f"{r['ratio']:.2f}",
                      "[green]yes[/]" if r["bubble_ok"] else "[red]no[/]",
                      f"{r['peak_activation_bytes'] / 1e6:.1f}", f"{r['peak_in_microbatches'] or 0:.2f}")
    report.console.print(table)
    rows = report.verdict_rows(result, lambda k: not re.search(r"_m\d+_", k))
    rows.append(("checks passed", f"{sum(result['checks'].values())} of {len(result['checks'])}"))
    rows.append(("max grad rel err vs reference", max(r["grad_rel_err"] or 0 for r in result["rows"])))
    rows.append(("job s", result["job_seconds"]))
    report.console.print(report.summary_table("pipeline", rows))
    events = read_events(run_dir / "events")
    plot_timeline(run_dir / "timeline.png", result, events)
    plot_bubble(run_dir / "bubble.png", result)
    report.console.print(f"report: {run_dir / 'report.json'}  plots: {run_dir / 'timeline.png'}, "
                         f"{run_dir / 'bubble.png'}")


def plot_timeline(path: Path, result: dict[str, Any], events: list[dict[str, Any]]) -> None:
    """A Gantt chart per schedule: one row per rank, forward chunks blue, backward orange (darker: the
    rank's second chunk when interleaved), each labelled with its micro-batch; grey is the bubble."""
    plt = report.pyplot()
    cfg = result["config"]
    m = cfg["gantt_m"] if cfg["gantt_m"] in int_list(cfg["microbatches"]) else int_list(cfg["microbatches"])[-1]
    schedules = [s.strip() for s in cfg["schedules"].split(",") if s.strip()]
    fig, axes = plt.subplots(len(schedules), 1, figsize=(11, 1.2 + 1.3 * len(schedules)), squeeze=False)
    colors = {"F": ["#6baed6", "#2171b5"], "B": ["#fdae6b", "#d94801"]}
    for ax, name in zip(axes[:, 0], schedules, strict=True):
        tl = [e for e in events if e["ev"] == "timeline" and e["schedule"] == name and e["m"] == m and e["rep"] == 0]
        for e in tl:
            ax.barh(e["rank"], max(a[4] for t in tl for a in t["actions"]), color="0.92", height=0.7)
            for kind, stage, mb, start, end, _ in e["actions"]:
                ax.barh(e["rank"], end - start, left=start, height=0.7, edgecolor="black", lw=0.4,
                        color=colors[kind][stage // result["stages"]])
                ax.text((start + end) / 2, e["rank"], f"{kind}{mb}", ha="center", va="center", fontsize=6)
        row = next(r for r in result["rows"] if r["schedule"] == name and r["m"] == m)
        ax.set_title(f"{name}, m={m}: bubble {row['bubble_measured']:.3f} measured, "
                     f"{row['bubble_theory']:.3f} theory", fontsize=9)
        ax.set_yticks(range(result["stages"]), [f"rank {r}" for r in range(result["stages"])])
        ax.invert_yaxis()
    axes[-1, 0].set_xlabel("seconds since the step's barrier")
    report.save_figure(fig, path)


def plot_bubble(path: Path, result: dict[str, Any]) -> None:
    """Left: bubble vs m, measured points on the theory curves. Right: peak saved activations vs m."""
    plt = report.pyplot()
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for name in dict.fromkeys(r["schedule"] for r in result["rows"]):
        rows = [r for r in result["rows"] if r["schedule"] == name]
        ms = [r["m"] for r in rows]
        line = ax.plot(ms, [r["bubble_theory"] for r in rows], "--", label=f"{name} theory")[0]
        ax.plot(ms, [r["bubble_measured"] for r in rows], "o", color=line.get_color(), label=f"{name} measured")
        ax.plot(ms, [r["bubble_replayed"] for r in rows], "x", color=line.get_color(),
                label=f"{name} replayed, free communication")
        ax2.plot(ms, [r["peak_activation_bytes"] / 1e6 for r in rows], "o-", label=name)
    ms = sorted({r["m"] for r in result["rows"]})
    for a in (ax, ax2):
        a.set_xscale("log", base=2)
        a.set_xticks(ms, [str(m) for m in ms])
        a.set_xlabel("micro-batches m")
        a.legend(fontsize=7)
    ax.set_ylabel("bubble fraction (theory lines of gpipe and 1f1b coincide)")
    ax2.set_ylabel("peak saved activations per rank, MB")
    report.save_figure(fig, path)


if __name__ == "__main__":
    sys.exit("run it with: python -m labs.run pipeline")
