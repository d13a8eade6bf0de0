"""The entry torchrun runs on every rank: `python -m labs.core.worker LAB [lab flags]`.

It joins the process group (backend `auto`: NCCL when CUDA is available, gloo otherwise, with a timeout
of our own: gloo's default is 30 minutes) and hands over to the lab's `worker(cfg, ctx)`.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record

from labs.core.config import parse


@dataclass
class Context:
    rank: int
    world: int
    local_rank: int
    device: torch.device
    backend: str
    attempt: str
    """`<launch>.<restart>`: the job launch (a rescheduled job is a new launch) and torchrun's restart count."""
    restart_count: int
    launch: int
    """How many times the job was launched before this one (a preempted job is launched again)."""
    launched_t: float = 0.0
    """When this worker process was started (wall clock): spawn and imports come before everything else."""
    pg_init_s: float = 0.0
    """Seconds `init_process_group` took (rendezvous of the ranks over the store, gloo/NCCL connections)."""


def init_distributed(backend: str, timeout_s: float) -> Context:
    if backend == "auto":
        backend = "nccl" if torch.cuda.is_available() else "gloo"
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    device = torch.device("cuda", local_rank) if backend == "nccl" else torch.device("cpu")
    if device.type == "cuda":
        torch.cuda.set_device(device)
    t0 = time.perf_counter()
    dist.init_process_group(backend, timeout=timedelta(seconds=timeout_s))
    pg_init_s = time.perf_counter() - t0
    restart = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", 0))
    launch = int(os.environ.get("KGP_LAUNCH", 0))
    return Context(dist.get_rank(), dist.get_world_size(), local_rank, device, backend, f"{launch}.{restart}",
                   restart, launch, process_start_time(), pg_init_s)


def process_start_time() -> float:
    """This process's start on the wall clock, from /proc (Linux): now minus how long ago it started (uptime
    minus the start ticks; /proc/stat's boot time has whole seconds only). Elsewhere: now, which is later."""
    try:
        ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return time.time() - (uptime - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return time.time()


@record
def main(argv: list[str]) -> None:
    name, rest = argv[0], argv[1:]
    lab = importlib.import_module(f"labs.{name}")
    cfg = parse(lab.Config, rest, prog=f"labs.core.worker {name}", description=lab.__doc__ or "")
    torch.set_num_threads(1)
    ctx = init_distributed(cfg.backend, cfg.pg_timeout_s)
    try:
        lab.worker(cfg, ctx)
        dist.barrier()  # no rank tears down its process group while a peer may still talk to it
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
    # A finished worker leaves without running C++ static destructors: at interpreter exit a gloo/TCPStore
    # thread was seen to abort ("terminate called without an active exception", exit -6), which torchrun
    # counts as a failure and answers with one more restart of a job that had already finished.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
