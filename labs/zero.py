"""zero: DeepSpeed ZeRO stages 0-3 and FSDP2, bytes per rank measured from the tensors vs the 2+2+12 formula.

Run it (2 CPU processes, gloo, DS_ACCELERATOR=cpu; NCCL on GPUs with no change):
    python -m labs.run zero                                   # stages 0,1,2,3 and FSDP2, bf16, resume checks
    python -m labs.run zero --modes 0,3,fsdp2 --dtype fp32
    python -m labs.run zero --modes 3 --persistence-threshold 100000 --no-resume   # DeepSpeed's default: fails
    python -m labs.run zero --controls                        # then resume from tampered checkpoints: refused
The workers of one job, as the lab prints them:
    TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 torchrun --nnodes=1 --nproc-per-node=2 --max-restarts=0 \
        --rdzv-backend=c10d --rdzv-endpoint=localhost:0 -m labs.core.worker zero --out runs/z --job measure

What happens: job `measure/` trains the tiny GPT for --steps under each mode, from the same initial weights
and data. On the last step each rank counts the bytes of the tensors it really holds (storages, so views
into one flat buffer count once and padding counts): low-precision parameters, gradients, and optimizer
state (fp32 master copy + Adam's two moments). The lab puts them next to labs.core.theory.zero_bytes_per_rank
with the byte sizes this config uses:
    bf16: 2 + 2 + 12 bytes per parameter (the ZeRO paper's mixed-precision Adam) for every stage;
    fp32: stage 0 keeps 4 + 4 + 8 (the torch optimizer, no copy); stages 1-3 keep 4 + 4 + 12, because
          DeepSpeed's ZeRO optimizer clones an fp32 master partition even when the model is fp32;
    FSDP2: 4 + 4 + 8, all sharded (its fp32 shard is the master copy).
DeepSpeed is probed twice per measured step, at the end of the autograd pass and before the optimizer step,
and the larger count is kept: stage 1 holds every full gradient until the reduce-scatter that ends backward
(the formula's 2Ψ), then keeps only its partition. Bucket buffers (and ZeRO-3's gathered parameters) are
reported apart. Stage 2 sizes a rank's gradient partition by whole parameters: every parameter that starts
in the rank's equal share, or straddles its start, is held whole. The lab predicts that layout exactly from
the parameter sizes (partition_numels) and checks every rank against its own prediction within --tolerance,
with no other allowance: ZeRO-1's figure labelled as ZeRO-2, or the other way round, fails. In fp32 every
mode must also reproduce the first mode's losses (ZeRO moves bytes, not math).
Stage 3 and FSDP2 also save a sharded checkpoint at --ckpt-step (DeepSpeed's save_checkpoint; DCP for FSDP2;
RNG and data position in a small file per rank) through the labs' one commit path (labs.core.checkpoint): all
ranks write into step-N.tmp/, rank 0 hashes every file into manifest.json, renames and fsyncs. Job `resume/`
is a new torchrun job whose ranks each verify a disjoint share of the files against the manifest (together
reading the checkpoint once), agree, then load it and train to --steps. --controls then flips one byte of
each checkpoint's largest shard and resumes again: every rank must name the file and refuse.
The lab passes only if every figure is within tolerance of theory and the resumed runs match the uninterrupted
ones bit for bit (every loss, every local shard of params, master weights, Adam).
"""

from __future__ import annotations

import dataclasses
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import torch
import torch.distributed as dist

from labs.core import launch, report
from labs.core.checkpoint import commit_folder, read_manifest, verify, verify_agreed
from labs.core.config import LaunchConfig, ModelConfig, Problem
from labs.core.data import ByteWindows, Sampler
from labs.core.events import EventLog, read_events
from labs.core.model import GPT, build_gpt
from labs.core.theory import zero_bytes_per_rank
from labs.core.train import rng_state, seed_all, set_rng_state
from labs.core.verify import compare_states, count_tensors
from labs.core.worker import Context
from labs.core.zero_fsdp import FsdpRun, held_bytes
from labs.core.zero_fsdp import theory_bytes as fsdp_theory_bytes

DESCRIPTION = "DeepSpeed ZeRO 0-3 and FSDP2: bytes per rank measured from the tensors vs the 2+2+12 formula"
ALL_MODES = ["0", "1", "2", "3", "fsdp2"]
RESUMABLE = ["3", "fsdp2"]
PARTS = ["params", "grads", "optim"]


@dataclass
class Config(ModelConfig):
    CHOICES: ClassVar[dict[str, list[str]]] = {**LaunchConfig.CHOICES, "dtype": ["bf16", "fp32"]}

    modes: str = "0,1,2,3,fsdp2"
    """Comma list of what to run: ZeRO stages 0-3 (DeepSpeed) and/or fsdp2 (torch fully_shard)."""
    dtype: str = "bf16"
    """bf16: bf16 params/grads with fp32 master + Adam (2+2+12); fp32: everything fp32."""
    steps: int = 6
    """Optimizer steps per mode; bytes are measured on the last one (Adam's state exists from step 1 on)."""
    ckpt_step: int = 3
    """Stage 3 and FSDP2 save a sharded checkpoint after this step; the resume job starts from it."""
    resume: bool = True
    """Run the resume job (a new torchrun job) for stage 3 and fsdp2 and compare it with the measure job."""
    global_batch: int = 8
    bucket: int = 20000
    """DeepSpeed reduce/all-gather/prefetch bucket size in elements (default 5e8 would dwarf this model)."""
    persistence_threshold: int = 0
    """ZeRO-3 keeps parameters below this many elements whole on every rank. DeepSpeed's default, 100000,
    keeps every parameter of the tiny model unsharded: set it to see the verification fail."""
    tolerance: float = 0.05
    """Allowed |measured / expected - 1| of every rank's figure (alignment padding, Adam's step counters). The
    nearest wrong label is 2x away (ZeRO-1 vs ZeRO-2 gradients, ZeRO-2 vs ZeRO-3 parameters)."""
    loss_tolerance: float = 1e-4
    """fp32 only: every mode's losses must agree with the first mode's within this (ZeRO moves bytes, not
    math). In bf16 the reduction order moves the bf16 loss by a few ulps: reported, not checked."""
    controls: bool = False
    """Negative controls after the run: flip one byte (same size) of each resumable mode's largest committed
    shard and start its resume job again; each must refuse the checkpoint for its checksum, or the lab fails."""
    job: str = "measure"
    """Job folder inside --out that the workers write (set by the lab: measure, resume, control-MODE)."""


def modes(cfg: Config) -> list[str]:
    return [m.strip() for m in cfg.modes.split(",") if m.strip()]


def resume_modes(cfg: Config) -> list[str]:
    return [m for m in modes(cfg) if m in RESUMABLE] if cfg.resume else []


def theory_bytes(mode: str, dtype: str) -> tuple[int, int, int]:
    """(param, grad, optimizer) bytes per parameter that `mode` keeps: see the module docstring."""
    if mode == "fsdp2":
        return fsdp_theory_bytes()
    low = 2 if dtype == "bf16" else 4
    master = 4 if dtype == "bf16" or mode != "0" else 0
    return low, low, 8 + master


# ---- DeepSpeed (its engine, and where each ZeRO stage keeps its tensors) ------------------------------
def ds_config(cfg: Config, stage: int, world: int) -> dict[str, Any]:
    return {
        "train_batch_size": cfg.global_batch, "train_micro_batch_size_per_gpu": cfg.global_batch // world,
        "gradient_accumulation_steps": 1, "steps_per_print": 10**9,
        "bf16": {"enabled": cfg.dtype == "bf16"},
        "zero_optimization": {"stage": stage, "reduce_bucket_size": cfg.bucket, "allgather_bucket_size": cfg.bucket,
                              "stage3_prefetch_bucket_size": cfg.bucket,
                              "stage3_param_persistence_threshold": cfg.persistence_threshold},
    }


def tensors_in(obj: Any) -> list[torch.Tensor]:
    """Every tensor inside nested lists, tuples and dicts (DeepSpeed keeps its buffers in all three)."""
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (list, tuple)):
        return [t for x in obj for t in tensors_in(x)]
    return []


class DeepSpeedRun:
    def __init__(self, model: GPT, cfg: Config, stage: int, world: int) -> None:
        import deepspeed  # imported here: DS_ACCELERATOR must be set first, and --help stays fast

        optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.1)
        self.engine, *_ = deepspeed.initialize(model=model, optimizer=optimizer, config=ds_config(cfg, stage, world))
        self.stage = stage

    def tensors(self) -> dict[str, list[torch.Tensor]]:
        """The tensors this rank holds, by role. Buffers come first: a gradient still sitting in a bucket
        counts as a communication buffer, not as gradient state."""
        opt, params = self.engine.optimizer, list(self.engine.module.parameters())
        inner = getattr(opt, "optimizer", opt)  # the torch AdamW doing the math on DeepSpeed's fp32 copy
        moments = [t for s in inner.state.values() for t in s.values() if torch.is_tensor(t)]
        buffers = [t for b in getattr(opt, "ipg_buckets", {}).values() for t in tensors_in(b.buffer)]
        if self.stage == 3:  # p.data is empty outside forward/backward unless the param is persistent
            low = [p.ds_tensor for p in params] + [p.data for p in params if p.ds_persist]
            buffers += [p.data for p in params if not p.ds_persist]  # gathered for compute, released after use
            grads = tensors_in(opt.grad_partitions_flat_buffer)
            master = tensors_in(opt.fp32_partitioned_groups_flat)
        else:  # stage 0 (bf16: DeepSpeed's wrapper with fp32 copies; fp32: the bare AdamW), stages 1 and 2
            low = [p.data for p in params]
            grads = tensors_in(getattr(opt, "averaged_gradients", None)) + tensors_in(
                getattr(opt, "grads_in_partition", None))
            master = tensors_in(getattr(opt, "single_partition_of_fp32_groups", None)
                                or getattr(opt, "fp32_groups", None))
        grads += [p.grad for p in params if p.grad is not None]
        return {"buffers": buffers, "params": low, "grads": grads, "optim": master + moments}

    def step(self, x: torch.Tensor, y: torch.Tensor, measure: bool) -> tuple[torch.Tensor, dict[str, int]]:
        loss = self.engine(x, y)
        probes: list[dict[str, int]] = []
        if measure:  # a callback queued now runs when autograd finishes, before DeepSpeed's reduction epilogue
            run_at_end = torch.autograd.Variable._execution_engine.queue_callback
            loss.register_hook(lambda _: run_at_end(lambda: probes.append(held_bytes(self.tensors()))))
        self.engine.backward(loss)
        if measure:
            probes.append(held_bytes(self.tensors()))
        self.engine.step()
        return loss, {k: max(p[k] for p in probes) for k in probes[0]} if probes else {}

    def save(self, folder: Path) -> None:
        # Into the staging folder the caller commits; `latest` would name the staging tag, so it is not written.
        self.engine.save_checkpoint(str(folder.parent), tag=folder.name, save_latest=False)

    def load(self, folder: Path) -> None:
        path, _ = self.engine.load_checkpoint(str(folder.parent), tag=folder.name)
        if path is None:
            raise RuntimeError(f"DeepSpeed found no checkpoint in {folder}")

    def final_state(self) -> dict[str, Any]:
        held = self.tensors()
        return {k: [t.detach().clone() for t in held[k]] for k in ("params", "optim")}

    def close(self) -> None:
        self.engine.destroy()  # releases ZeRO-3's hooks and buffers before the next mode or the process ends


# ---- the workers (run by torchrun on every rank) ------------------------------------------------------
def worker(cfg: Config, ctx: Context) -> None:
    os.environ.setdefault("DS_ACCELERATOR", ctx.device.type)  # DeepSpeed reads it at import
    job_dir = Path(cfg.out) / cfg.job
    log = EventLog(job_dir / "events", ctx.rank, ctx.attempt)
    log.log("start", world=ctx.world, backend=ctx.backend)
    for mode in modes(cfg) if cfg.job == "measure" else resume_modes(cfg):
        train_mode(cfg, ctx, mode, log, job_dir)
    log.log("done")


def train_mode(cfg: Config, ctx: Context, mode: str, log: EventLog, job_dir: Path) -> None:
    model = build_gpt(cfg, ctx.device)  # the same initial weights in every mode and in both jobs
    numels = [p.numel() for p in model.parameters()]  # before ZeRO-3 empties p.data (its numel reads 0)
    run = FsdpRun(model, cfg.lr, cfg.dtype) if mode == "fsdp2" else DeepSpeedRun(model, cfg, int(mode), ctx.world)
    windows = ByteWindows(cfg.block)
    sampler = Sampler(windows.num_samples, cfg.global_batch, cfg.seed)
    seed_all(cfg.seed + 1000 * (ctx.rank + 1))  # dropout streams differ per rank
    folder = checkpoint_folder(cfg, mode)
    start = 0
    if cfg.job != "measure":  # resume, or a control job resuming from a tampered checkpoint
        problems, nbytes = verify_agreed(folder, ctx.rank, ctx.world)  # this rank's share of the manifest
        log.log("verified", mode=mode, bytes=nbytes, problems=problems)
        if problems:
            raise RuntimeError(f"{folder}: refusing to resume: {problems[0]}")
        run.load(folder)
        extra = torch.load(folder / f"extra-rank-{ctx.rank}.pt", weights_only=False)
        set_rng_state(extra["rng"])
        sampler.load_state_dict(extra["sampler"])
        start = cfg.ckpt_step
        log.log("resumed", mode=mode, step=start)
    for step in range(start + 1, cfg.steps + 1):
        x, y = (t.to(ctx.device) for t in windows.batch(sampler.next_for_rank(ctx.rank, ctx.world)))
        loss, held = run.step(x, y, measure=step == cfg.steps)
        mean = loss.detach().float()
        dist.all_reduce(mean)
        log.log("step", mode=mode, step=step, loss=mean.item() / ctx.world)
        if held:
            log.log("bytes", mode=mode, num_params=sum(numels), numels=numels, **held)
        if mode in resume_modes(cfg) and cfg.job == "measure" and step == cfg.ckpt_step:
            save(run, folder, step, ctx, {"rng": rng_state(), "sampler": sampler.state_dict()})
    if mode in resume_modes(cfg):
        torch.save(run.final_state(), job_dir / f"final-{mode}-rank-{ctx.rank}.pt")
    run.close()
    dist.barrier()


def checkpoint_folder(cfg: Config, mode: str) -> Path:
    return Path(cfg.out) / "checkpoints" / mode / f"step-{cfg.ckpt_step:06d}"


def save(run: DeepSpeedRun | FsdpRun, folder: Path, step: int, ctx: Context, extra: dict[str, Any]) -> None:
    """The labs' one commit path: every rank writes into `step-N.tmp/` (DeepSpeed's or DCP's own files, plus
    RNG and data position); once all are done rank 0 hashes every file into manifest.json, renames and fsyncs."""
    tmp = folder.with_name(folder.name + ".tmp")
    tmp.mkdir(parents=True, exist_ok=True)
    run.save(tmp)
    torch.save(extra, tmp / f"extra-rank-{ctx.rank}.pt")
    dist.barrier()
    if ctx.rank == 0:
        commit_folder(tmp, folder, step, ctx.world)
    dist.barrier()


# ---- the orchestrator (python -m labs.run zero) -------------------------------------------------------
def check_config(cfg: Config) -> str:
    world = cfg.world_size
    unknown = [m for m in modes(cfg) if m not in ALL_MODES]
    if unknown or not modes(cfg):
        return Problem(f"--modes takes a comma list of {ALL_MODES}, got {cfg.modes!r}",
                       f"--modes 接受由 {ALL_MODES} 组成的逗号分隔列表，收到的是 {cfg.modes!r}")
    if cfg.global_batch % world:
        return Problem(f"--global-batch {cfg.global_batch} must divide by the world size {world}",
                       f"--global-batch {cfg.global_batch} 必须能被 world size {world} 整除")
    if cfg.steps < 2 or not 1 <= cfg.ckpt_step < cfg.steps:
        return Problem(f"need --steps >= 2 and 1 <= --ckpt-step < --steps (got {cfg.steps}, {cfg.ckpt_step})",
                       f"需要 --steps >= 2 且 1 <= --ckpt-step < --steps（收到的是 {cfg.steps}、{cfg.ckpt_step}）")
    return ""


def main(cfg: Config) -> int:
    cfg, run_dir = report.open_run("zero", cfg)
    report.console.print(f"[bold]zero[/]: modes {cfg.modes}, {cfg.dtype}, run folder {run_dir}")
    jobs = {"measure": run_job(cfg, len(modes(cfg)) * cfg.steps)}
    if resume_modes(cfg):
        jobs["resume"] = run_job(dataclasses.replace(cfg, job="resume"),
                                 len(resume_modes(cfg)) * (cfg.steps - cfg.ckpt_step))
    result = analyse(cfg, run_dir, jobs)
    if cfg.controls:
        result["controls"] = run_controls(cfg, run_dir)
        result["checks"]["controls_refuse_tampered_checkpoints"] = bool(result["controls"]) and all(
            c["failed_as_designed"] for c in result["controls"].values())
        result["passed"] = all(result["checks"].values())
    report.write_json(run_dir / "report.json", result)
    show(result, run_dir)
    return 0 if result["passed"] else 1


def run_controls(cfg: Config, run_dir: Path) -> dict[str, dict[str, Any]]:
    """Tamper with each resumable checkpoint and resume from it: the job must exit non-zero, every rank having
    logged the checksum problem of the tampered file before loading anything."""
    out = {}
    for mode in resume_modes(cfg):
        folder = checkpoint_folder(cfg, mode)
        manifest = read_manifest(folder)[0]
        if manifest is None:
            out[mode] = {"failed_as_designed": False, "why": "no committed checkpoint to tamper with"}
            continue
        name = max(manifest["files"], key=lambda n: manifest["files"][n]["bytes"])
        with open(folder / name, "r+b") as f:  # same size: only the checksum can tell
            f.seek(manifest["files"][name]["bytes"] // 2)
            byte = f.read(1)
            f.seek(-1, os.SEEK_CUR)
            f.write(bytes([byte[0] ^ 0xFF]))
        job = run_job(dataclasses.replace(cfg, job=f"control-{mode}", modes=mode), cfg.steps - cfg.ckpt_step)
        seen = [e for e in read_events(run_dir / f"control-{mode}" / "events") if e["ev"] == "verified"]
        named = len(seen) == len({e["rank"] for e in seen}) == cfg.world_size and all(
            any(name in p and "sha256" in p for p in e["problems"]) for e in seen)
        out[mode] = {"tampered": name, "returncode": job.returncode, "every_rank_named_the_file": named,
                     "failed_as_designed": job.returncode != 0 and named}
    return out


def run_job(cfg: Config, total_steps: int) -> launch.JobResult:
    report.console.print(f"[bold]{cfg.job}[/] job")
    return report.run_workers("zero", cfg, Path(cfg.out) / cfg.job, total_steps,
                              report.counter("step", lambda e: f"mode {e['mode']}"))


def partition_numels(numels: list[int], world: int) -> list[int]:
    """Gradient elements each rank holds under ZeRO-2: DeepSpeed pads the flat buffer to a multiple of 2N
    elements, cuts it into N equal shares, and gives a rank every parameter that starts in its share or
    straddles its start, whole (stage_1_and_2.get_partition_info, in model.parameters() order)."""
    share = -(-sum(numels) // (2 * world)) * 2
    held = [0] * world
    for r in range(world):
        start, end, cur = share * r, share * (r + 1), 0
        for n in numels:
            if start <= cur < end or cur < start < cur + n:
                held[r] += n
            cur += n
    return held


def expected_per_rank(mode: str, part: str, dtype: str, numels: list[int], world: int) -> list[float]:
    """What each rank should hold of `part` under `mode`: the formula, except ZeRO-2's gradients (and so its
    total), which follow the whole-parameter layout above."""
    sizes = theory_bytes(mode, dtype)
    theory = zero_bytes_per_rank(sum(numels), world, 3 if mode == "fsdp2" else int(mode), *sizes)
    if mode != "2" or part not in ("grads", "total"):
        return [theory[part]] * world
    grads = [n * sizes[1] for n in partition_numels(numels, world)]
    return grads if part == "grads" else [g + theory["total"] - theory["grads"] for g in grads]


def within(measured: list[int], expected: list[float], tol: float) -> bool:
    """Every rank's figure within `tol` of its own expectation."""
    return all(abs(m / e - 1) <= tol for m, e in zip(measured, expected, strict=True))


def memory_rows(cfg: Config, events: list[dict[str, Any]], world: int) -> list[dict[str, Any]]:
    """Per mode and part: each rank's count against its expectation, the formula, and the verdict."""
    rows = []
    for mode in modes(cfg):
        held = sorted((e for e in events if e["ev"] == "bytes" and e["mode"] == mode), key=lambda e: e["rank"])
        if not held:
            continue
        numels = held[0]["numels"]
        sizes = theory_bytes(mode, cfg.dtype)
        theory = zero_bytes_per_rank(sum(numels), world, 3 if mode == "fsdp2" else int(mode), *sizes)
        for part in [*PARTS, "total"]:
            per_rank = [sum(e[p] for p in PARTS) if part == "total" else e[part] for e in held]
            expected = expected_per_rank(mode, part, cfg.dtype, numels, world)
            worst = max(range(len(per_rank)), key=lambda r: abs(per_rank[r] / expected[r] - 1))
            rows.append({"mode": mode, "part": part, "measured": max(per_rank), "theory": theory[part],
                         "ratio": per_rank[worst] / expected[worst], "ok": within(per_rank, expected, cfg.tolerance),
                         "per_rank": per_rank, "expected_per_rank": expected,
                         "layout_over_theory": max(expected) / theory[part] - 1,
                         "bytes_per_param": sizes, "buffers": max(e.get("buffers", 0) for e in held)})
    return rows


def losses(events: list[dict[str, Any]], mode: str) -> dict[int, float]:
    return {e["step"]: e["loss"] for e in events if e["ev"] == "step" and e["mode"] == mode and e["rank"] == 0}


def resume_figures(cfg: Config, run_dir: Path, world: int) -> dict[str, Any]:
    ref_events, res_events = read_events(run_dir / "measure" / "events"), read_events(run_dir / "resume" / "events")
    out = {}
    for mode in resume_modes(cfg):
        ref, res = losses(ref_events, mode), losses(res_events, mode)
        mismatches, tensors = [], 0
        for r in range(world):
            a, b = (run_dir / job / f"final-{mode}-rank-{r}.pt" for job in ("measure", "resume"))
            if not (a.exists() and b.exists()):
                mismatches.append(f"rank {r}: final state missing")
                continue
            sa, sb = torch.load(a, weights_only=False), torch.load(b, weights_only=False)
            mismatches += [f"rank {r}: {m}" for m in compare_states(sa, sb)]
            tensors += count_tensors(sa)
        resumed = {s: ref.get(s) for s in res}
        out[mode] = {"checkpoint": checkpoint_figures(cfg, mode, res_events, world),
                     "losses_identical": bool(res) and res == resumed and len(res) == cfg.steps - cfg.ckpt_step,
                     "bit_exact": tensors > 0 and not mismatches, "tensors_compared": tensors,
                     "mismatches": mismatches[:10], "reference_losses": ref, "resumed_losses": res}
    return out


def checkpoint_figures(cfg: Config, mode: str, events: list[dict[str, Any]], world: int) -> dict[str, Any]:
    """The committed folder matches its manifest (every file, every rank's extras), and the resume job's ranks
    each verified a disjoint share: together they read the checkpoint's bytes exactly once, with no problem."""
    folder = checkpoint_folder(cfg, mode)
    manifest = read_manifest(folder)[0] if folder.exists() else None
    files = manifest["files"] if manifest else {}
    extras = {f"extra-rank-{r}.pt" for r in range(world)}
    problem = verify(folder) if manifest else "no committed checkpoint"
    shares = [e for e in events if e["ev"] == "verified" and e["mode"] == mode]
    total = sum(f["bytes"] for f in files.values())
    return {"folder": folder.name, "files": len(files), "bytes": total, "problem": problem,
            "committed": bool(files) and not problem and extras <= set(files) and len(files) > len(extras),
            "verified_bytes_per_rank": {e["rank"]: e["bytes"] for e in shares},
            "each_byte_verified_once": len(shares) == world and not any(e["problems"] for e in shares)
            and sum(e["bytes"] for e in shares) == total > 0}


def analyse(cfg: Config, run_dir: Path, jobs: dict[str, launch.JobResult]) -> dict[str, Any]:
    world = cfg.world_size
    events = read_events(run_dir / "measure" / "events")
    rows = memory_rows(cfg, events, world)
    resume = resume_figures(cfg, run_dir, world)
    first = losses(events, modes(cfg)[0])
    loss_gap = {m: max((abs(v - first.get(s, v)) for s, v in losses(events, m).items()), default=None)
                for m in modes(cfg)}
    checks = {"jobs_exit_cleanly": all(j.returncode == 0 for j in jobs.values()),
              "every_mode_measured": {r["mode"] for r in rows} == set(modes(cfg))}
    checks |= {f"{r['mode']}_{r['part']}_within_tolerance": r["ok"] for r in rows}
    if cfg.dtype == "fp32":
        checks["fp32_losses_agree_across_modes"] = all(g is not None and g <= cfg.loss_tolerance
                                                       for g in loss_gap.values())
    for mode, fig in resume.items():
        checks[f"{mode}_checkpoint_committed_with_manifest"] = fig["checkpoint"]["committed"]
        checks[f"{mode}_resume_read_each_shard_once"] = fig["checkpoint"]["each_byte_verified_once"]
        checks[f"{mode}_resume_losses_identical"] = fig["losses_identical"]
        checks[f"{mode}_resume_bit_exact"] = fig["bit_exact"]
    seconds = {name: round(j.ended - j.started, 2) for name, j in jobs.items()}
    return {"lab": "zero", "passed": all(checks.values()), "checks": checks, "config": dataclasses.asdict(cfg),
            "world_size": world, "num_params": next((e["num_params"] for e in events if e["ev"] == "bytes"), 0),
            "param_numels": next((e["numels"] for e in events if e["ev"] == "bytes"), []),
            "memory": rows, "resume": resume, "loss_gap_vs_first_mode": loss_gap, "job_seconds": seconds,
            "torchrun_command": launch.printable(jobs["measure"].command), "plot": "zero.png"}


def show(result: dict[str, Any], run_dir: Path) -> None:
    from rich.table import Table

    table = Table(title=f"zero: bytes per rank ({result['config']['dtype']}, N={result['world_size']}, "
                        f"Ψ={result['num_params']})")
    for col in ("mode", "part", "B/param (p+g+o)", "measured B per rank", "expected B per rank", "theory B",
                "worst ratio", "ok", "buffers B (apart)"):
        table.add_column(col, justify="right")
    for r in result["memory"]:
        table.add_row(label(r["mode"]), r["part"], "+".join(map(str, r["bytes_per_param"])),
                      " / ".join(f"{m:,}" for m in r["per_rank"]),
                      " / ".join(f"{e:,.0f}" for e in r["expected_per_rank"]), f"{r['theory']:,.0f}",
                      f"{r['ratio']:.3f}", "[green]yes[/]" if r["ok"] else "[red]no[/]",
                      f"{r['buffers']:,}" if r["part"] == "total" else "", end_section=r["part"] == "total")
    report.console.print(table)
    rows = report.verdict_rows(result, lambda k: "within_tolerance" not in k)
    rows += [(f"{label(m)} resume: tensors compared", f["tensors_compared"]) for m, f in result["resume"].items()]
    (first, _), *others = result["loss_gap_vs_first_mode"].items()
    rows += [(f"max |loss gap| {label(m)} vs {label(first)}", g) for m, g in others]
    rows += [(f"{job} job s", s) for job, s in result["job_seconds"].items()]
    report.console.print(report.summary_table("zero", rows))
    for mode, c in result.get("controls", {}).items():
        rows.append((f"control {label(mode)}: tampered {c.get('tampered', '-')}, resume refused",
                     c["failed_as_designed"]))
    for fig in result["resume"].values():
        for m in fig["mismatches"][:5]:
            report.console.print(f"[red]mismatch[/] {m}")
    plot(run_dir / "zero.png", result)
    report.console.print(f"report: {run_dir / 'report.json'}  plot: {run_dir / 'zero.png'}")


def label(mode: str) -> str:
    return "FSDP2" if mode == "fsdp2" else f"ZeRO-{mode}"


def plot(path: Path, result: dict[str, Any]) -> None:
    """Left: measured bytes per rank, stacked by part, next to theory. Right: the resumed losses on top of
    the uninterrupted ones."""
    plt = report.pyplot()
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 4.5), gridspec_kw={"width_ratios": [2, 1]})
    mode_list = list(dict.fromkeys(r["mode"] for r in result["memory"]))
    colors = {"params": "tab:blue", "grads": "tab:orange", "optim": "tab:green"}
    for i, mode in enumerate(mode_list):
        by_part = {r["part"]: r for r in result["memory"] if r["mode"] == mode}
        for offset, key, style in ((-0.2, "measured", {}), (0.2, "theory", {"hatch": "//", "alpha": 0.5})):
            bottom = 0.0
            for part in PARTS:
                value = by_part[part][key] / 1e6
                ax.bar(i + offset, value, 0.38, bottom=bottom, color=colors[part], edgecolor="black",
                       label=f"{part} ({key})" if i == 0 else None, **style)
                bottom += value
    ax.set_xticks(range(len(mode_list)), [label(m) for m in mode_list])
    ax.set_ylabel("MB per rank (left bar measured, right bar theory)")
    ax.set_title(f"bytes per rank, {result['config']['dtype']}, N={result['world_size']}")
    ax.legend(fontsize=7, ncol=2)
    for mode, fig_r in result["resume"].items():
        ref, res = sorted(fig_r["reference_losses"].items()), sorted(fig_r["resumed_losses"].items())
        ax2.plot(*zip(*ref, strict=True), lw=4, alpha=0.4, label=f"{label(mode)} uninterrupted")
        ax2.plot(*zip(*res, strict=True), "o--", ms=4, label=f"{label(mode)} resumed")
    ax2.set_xlabel("step")
    ax2.set_ylabel("loss")
    ax2.set_title("resume from the sharded checkpoint")
    if result["resume"]:
        ax2.legend(fontsize=7)
    report.save_figure(fig, path)


if __name__ == "__main__":
    sys.exit("run it with: python -m labs.run zero")
