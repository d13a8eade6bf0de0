"""Launch a lab's workers with torchrun's elastic agent (`torch.distributed.run`) as a subprocess.

The lab process is an orchestrator: it builds the torchrun command, starts it, shows progress from the
workers' event files, and reads what they wrote. It never forks training processes itself.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from labs.core.config import LaunchConfig, to_argv

# The torchrun/gloo reconnection bug, kept in this one place. Symptom: after `--max-restarts` restarts
# the workers, `init_process_group` fails with "Gloo connectFullMesh failed ... Connection refused".
# Cause: the workers reuse the agent's shared rendezvous TCPStore, whose keys from the previous attempt
# still hold the dead peers' addresses. With this variable the c10d rendezvous stops sharing its store, so
# every attempt's process group starts from a fresh store (tests/test_fault_resume.py soaks 20+ restarts).
RESTART_WORKAROUND_ENV = {"TORCH_DISABLE_SHARE_RDZV_TCP_STORE": "1"}


@dataclass
class JobResult:
    returncode: int
    started: float
    ended: float
    command: list[str]


def torchrun_args(cfg: LaunchConfig, max_restarts: int, log_dir: Path) -> list[str]:
    """torchrun's own flags for this launch config."""
    args = [f"--nnodes={cfg.nnodes}", f"--nproc-per-node={cfg.nproc}", f"--max-restarts={max_restarts}",
            "--rdzv-backend=c10d", f"--rdzv-endpoint={cfg.rdzv_endpoint}",
            f"--rdzv-id={cfg.rdzv_id}-{getattr(cfg, 'job', 'job')}",
            "--monitor-interval=0.2", f"--shutdown-timeout={cfg.shutdown_timeout_s:g}",
            f"--log-dir={log_dir}", "--redirects=3"]
    if cfg.rdzv_conf:
        args.append(f"--rdzv-conf={cfg.rdzv_conf}")
    return args


def worker_command(lab: str, cfg: LaunchConfig, max_restarts: int, log_dir: Path) -> list[str]:
    """The full command: `python -m torch.distributed.run <torchrun flags> -m labs.core.worker LAB <lab flags>`."""
    return [sys.executable, "-m", "torch.distributed.run", *torchrun_args(cfg, max_restarts, log_dir),
            "-m", "labs.core.worker", lab, *to_argv(cfg, skip=LaunchConfig.LAUNCH_ONLY)]


def printable(cmd: list[str]) -> str:
    """The same command as a user would type it: `torchrun ...` with the workaround variable in front."""
    env = " ".join(f"{k}={v}" for k, v in RESTART_WORKAROUND_ENV.items())
    args = cmd[3:] if cmd[1:3] == ["-m", "torch.distributed.run"] else cmd
    return f"{env} torchrun " + " ".join(shlex.quote(a) for a in args)


def start_job(cmd: list[str], agent_log: Path, extra_env: dict[str, str] | None = None) -> subprocess.Popen:
    """Start one torchrun agent in its own process group (so a whole "node" can be killed at once)."""
    env = {**os.environ, **RESTART_WORKAROUND_ENV, **(extra_env or {})}
    env.setdefault("OMP_NUM_THREADS", "1")  # N workers on a laptop: one BLAS thread each, no oversubscription
    env.setdefault("LOGLEVEL", "INFO")  # the agent then logs, timestamped, each stop/rendezvous/start: recovery phases
    # NCCL's flight recorder (GPUs only; gloo ignores these): on a timeout every rank dumps its last collectives.
    env.setdefault("TORCH_NCCL_TRACE_BUFFER_SIZE", "2000")
    env.setdefault("TORCH_NCCL_DUMP_ON_TIMEOUT", "1")
    env.setdefault("TORCH_NCCL_DEBUG_INFO_TEMP_FILE", str(agent_log.parent / "nccl_trace_rank_"))
    agent_log.parent.mkdir(parents=True, exist_ok=True)
    with open(agent_log, "ab") as log:
        return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)


def wait_jobs(procs: list[subprocess.Popen], timeout_s: float, poll: Callable[[], None] | None = None) -> list[int]:
    """Wait for every agent, calling `poll` meanwhile; kill them all after `timeout_s` (exit code 124)."""
    started = time.time()
    while any(p.poll() is None for p in procs):
        if poll:
            poll()
        if time.time() - started > timeout_s:
            for p in procs:
                if p.poll() is None:
                    os.killpg(p.pid, 9)
                    p.wait()
            return [124 for _ in procs]
        time.sleep(0.1)
    if poll:
        poll()
    return [p.returncode for p in procs]


def run_job(cmd: list[str], agent_log: Path, timeout_s: float, extra_env: dict[str, str] | None = None,
            poll: Callable[[], None] | None = None) -> JobResult:
    """Run one torchrun job to completion (or kill it after `timeout_s`), calling `poll` while it runs."""
    started = time.time()
    (code,) = wait_jobs([start_job(cmd, agent_log, extra_env)], timeout_s, poll)
    return JobResult(code, started, time.time(), cmd)
