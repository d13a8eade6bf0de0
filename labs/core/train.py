"""The training harness every lab shares: tiny GPT, shipped corpus, stateful sampler, one loop.

Read `train()` top to bottom: restore the newest good checkpoint, then for each step take this rank's
samples, forward, backward, step, log, maybe checkpoint, and stop at the same step on every rank when a
preemption signal arrived anywhere.
"""

from __future__ import annotations

import math
import os
import random
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.distributed as dist
from torch.distributed.checkpoint import CheckpointException
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
from torch.nn.parallel import DistributedDataParallel as DDP

from labs.core.checkpoint import Checkpointer, blob, unblob
from labs.core.config import ModelConfig
from labs.core.data import ByteWindows, Sampler
from labs.core.events import EventLog
from labs.core.fault import Fault
from labs.core.model import build_gpt
from labs.core.watchdog import Watchdog, diagnose, read_heartbeats
from labs.core.worker import Context


@dataclass
class TrainConfig(ModelConfig):
    """Training options shared by the labs built on this harness."""

    steps: int = 24
    """Optimizer steps in the whole job."""
    lr: float = 3e-3
    """Peak learning rate (AdamW), reached after the warmup."""
    warmup: int = 4
    """Linear warmup steps, then cosine decay to 10% of the peak."""
    width: int = 64
    """Model width (embedding size); 256 or more makes checkpoints big enough to time."""
    ckpt_every: int = 5
    """Checkpoint every N steps (0: never, the baseline that prices checkpointing)."""
    ckpt_keep: int = 3
    """Keep the newest K committed checkpoints."""
    ckpt_mode: str = "async"
    """sync: the loop writes the checkpoint; async: staged to shared memory, a separate process writes it."""
    stop_grace_s: float = 5.0
    """After SIGTERM, a rank that has not reached a step boundary within this many seconds exits at once."""
    watchdog_s: float = 0.0
    """End a rank that has waited inside one collective this long, with a diagnosis (0: off, rely on the
    process-group timeout alone)."""
    watchdog_markers: str = "collective"
    """collective: a marker with a sequence number at every collective call; phase: one marker per phase
    (the negative control: it cannot name the collective)."""


@dataclass
class Parts:
    model: DDP
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LambdaLR
    windows: ByteWindows
    sampler: Sampler


def build(cfg: TrainConfig, ctx: Context) -> Parts:
    model = build_gpt(cfg, ctx.device)  # identical init on every rank; DDP also broadcasts rank 0's weights
    ddp = DDP(model, device_ids=[ctx.local_rank] if ctx.device.type == "cuda" else None)
    opt = torch.optim.AdamW(ddp.parameters(), lr=cfg.lr, weight_decay=0.1)

    def schedule(step: int) -> float:
        if step < cfg.warmup:
            return (step + 1) / cfg.warmup
        progress = (step - cfg.warmup) / max(1, cfg.steps - cfg.warmup)
        return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, schedule)
    windows = ByteWindows(cfg.block)
    # Per-rank seeds for dropout: ranks must draw different masks, and each must get its own stream back.
    seed_all(cfg.seed + 1000 * (ctx.rank + 1))
    return Parts(ddp, opt, sched, windows, Sampler(windows.num_samples, cfg.global_batch, cfg.seed))


def seed_all(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def rng_state() -> dict[str, Any]:
    state = {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict[str, Any]) -> None:
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def checkpoint_state(p: Parts, rank: int) -> dict[str, Any]:
    """What a checkpoint holds, as a DCP state dict: model and optimizer (replicated under DDP, so DCP writes
    each tensor once), the scheduler, and this rank's own RNG streams and data position under its rank key."""
    model, optimizer = get_state_dict(p.model, p.optimizer)
    local = {"rng": rng_state(), "sampler": p.sampler.state_dict()}
    # Blobs sit one level down: dcp.load fills a shallow copy of the top level, so a replaced top-level entry
    # would not reach us, while the nested dict is shared and updated in place.
    return {"model": model, "optimizer": optimizer,
            "objects": {"scheduler": blob(p.scheduler.state_dict()), f"rank-{rank}": blob(local)}}


def full_state(p: Parts) -> dict[str, Any]:
    """Everything a resumed rank must have back, compared tensor by tensor at the end (labs/core/verify.py)."""
    return {"model": p.model.module.state_dict(), "optimizer": p.optimizer.state_dict(),
            "scheduler": p.scheduler.state_dict(), "rng": rng_state(), "sampler": p.sampler.state_dict()}


RESTORABLE = ("optimizer", "scheduler", "rng", "data")


def restore(p: Parts, state: dict[str, Any], rank: int, skip: set[str]) -> None:
    """Put a loaded checkpoint back. `skip` leaves parts out on purpose: the controls show resume then breaks."""
    if "optimizer" in skip:
        p.model.module.load_state_dict(state["model"])
        p.optimizer.state.clear()  # as if the optimizer state had never been saved: Adam starts from zero
    else:
        set_state_dict(p.model, p.optimizer, model_state_dict=state["model"], optim_state_dict=state["optimizer"])
    if "scheduler" not in skip:
        p.scheduler.load_state_dict(unblob(state["objects"]["scheduler"]))
    local = unblob(state["objects"][f"rank-{rank}"])
    if "rng" not in skip:
        set_rng_state(local["rng"])
    if "data" not in skip:
        p.sampler.load_state_dict(local["sampler"])


class StopFlag:
    """Set by SIGTERM; checked at step boundaries so that a signal never interrupts a half-done step.

    A graceful handler needs a deadline: a rank stalled mid-step never reaches the boundary, and torchrun
    would wait 30 s before its SIGKILL. So a rank that has not acknowledged the stop within `grace_s`
    exits at once (143, as a plain SIGTERM death), letting the restart begin.
    """

    def __init__(self, grace_s: float) -> None:
        self.set, self.grace_s = False, grace_s
        self._deadline: threading.Timer | None = None
        signal.signal(signal.SIGTERM, self._handler)

    def _handler(self, signum: int, frame: object) -> None:
        self.set = True
        if self._deadline is None and self.grace_s > 0:
            self._deadline = threading.Timer(self.grace_s, os._exit, args=(143,))
            self._deadline.daemon = True
            self._deadline.start()

    def acknowledge(self) -> None:
        """The loop reached a boundary and is stopping cleanly: no deadline any more."""
        if self._deadline is not None:
            self._deadline.cancel()


def agree(flag: bool, device: torch.device) -> bool:
    """True on every rank when any rank saw the signal: all ranks stop after the same step."""
    t = torch.tensor([1.0 if flag else 0.0], device=device)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return bool(t.item())


def train(cfg: TrainConfig, ctx: Context, job_dir: Path, fault: Fault, skip: set[str] = frozenset(),
          mutation: str = "") -> None:
    log = EventLog(job_dir / "events", ctx.rank, ctx.attempt)
    log.log("start", world=ctx.world, backend=ctx.backend, pg_init_s=ctx.pg_init_s, launched_t=ctx.launched_t)
    stop = StopFlag(cfg.stop_grace_s)
    dog = Watchdog(ctx.rank, ctx.world, cfg.watchdog_s, log, markers=cfg.watchdog_markers)
    p = build(cfg, ctx)
    step = start = 0
    p.model.register_comm_hook(None, dog.ddp_hook(lambda: step))

    def tear(at: int, path: Path) -> None:
        if fault.due(ctx.rank, at, start + 1, when="checkpoint"):
            fault.tear(at, path, log)

    # No checkpoints at all (the baseline that prices them): no async writer process either.
    mode = cfg.ckpt_mode if cfg.ckpt_every else "sync"
    ckpt = Checkpointer(job_dir / "checkpoints", ctx.rank, ctx.world, cfg.ckpt_keep, mode,
                        on_saved=lambda s: log.log("ckpt", **vars(s)), tear=tear, mutation=mutation)
    if ctx.rank == 0:
        removed = ckpt.clean_partial()
        if removed:
            log.log("cleaned", folders=removed)
    dist.barrier()
    try:
        loaded = ckpt.load_latest(lambda: checkpoint_state(p, ctx.rank))
    except (Exception, CheckpointException) as err:  # passed (or skipped) verification, cannot be read
        log.log("load_failed", error=f"{type(err).__name__}: {str(err)[:300]}")
        raise
    if loaded:
        if loaded.step:
            restore(p, loaded.state, ctx.rank, skip)
            start = loaded.step
        log.log("resumed", step=start, path=loaded.path, skipped=loaded.skipped, load_s=loaded.load_s,
                verified_bytes=loaded.verified_bytes)
    _check_same_step(start, ctx)
    log.log("ready", step=start, load_s=loaded.load_s if loaded else 0.0)

    for step in range(start + 1, cfg.steps + 1):
        t0 = time.perf_counter()
        if fault.due(ctx.rank, step, start + 1, when="start"):
            fault.fire(step, log, ckpt)
        ids = p.sampler.next_for_rank(ctx.rank, ctx.world)
        x, y = (t.to(ctx.device) for t in p.windows.batch(ids))
        loss = p.model(x, y)
        p.optimizer.zero_grad(set_to_none=True)
        dog.phase("backward", step)
        try:
            loss.backward()  # the gradient all-reduces, one per bucket, are marked by the comm hook
            mean_loss = loss.detach().clone()
            with dog.collective("all_reduce (loss)", step):
                dist.all_reduce(mean_loss)
            with dog.collective("all_reduce MAX (stop flag)", step):
                stopping = agree(stop.set, ctx.device)
        except RuntimeError as err:  # a peer died or the process-group timeout expired: say who is missing
            log.log("collective_error", step=step, error=str(err)[:500],
                    **diagnose(read_heartbeats(dog.store, ctx.world)))
            raise
        dog.phase("compute", step)
        p.optimizer.step()
        p.scheduler.step()
        log.log("step", step=step, loss=mean_loss.item() / ctx.world, ids=ids,
                lr=p.scheduler.get_last_lr()[0], step_s=time.perf_counter() - t0)
        if fault.due(ctx.rank, step, start + 1):
            fault.fire(step, log, ckpt)
        if stopping:  # preempted: emergency checkpoint of this very step, then a clean exit
            stop.acknowledge()
            try:
                ckpt.wait()
            except RuntimeError as err:  # the async writer process got the same SIGTERM: its save is lost
                log.log("ckpt_lost", error=str(err.__cause__ or err)[:300])
            ckpt.save(step, checkpoint_state(p, ctx.rank), sync=True)
            ckpt.close()
            log.log("preempted", step=step)
            return
        if cfg.ckpt_every and step % cfg.ckpt_every == 0:
            ckpt.save(step, checkpoint_state(p, ctx.rank))
    ckpt.close()
    torch.save(full_state(p), job_dir / f"final-rank-{ctx.rank}.pt")
    log.log("done", step=cfg.steps)


def _check_same_step(step: int, ctx: Context) -> None:
    """Every rank must resume from the same checkpoint, or the replicas silently diverge."""
    t = torch.tensor([step, -step], dtype=torch.float64, device=ctx.device)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    if int(t[0]) != step or int(-t[1]) != step:
        raise RuntimeError(f"rank {ctx.rank} resumes at step {step} but others resume between "
                           f"{int(-t[1])} and {int(t[0])}")
