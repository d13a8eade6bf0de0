r"""elastic: a node is lost for good; the job shrinks from 3 to 2 workers and keeps training.

Run it:
    python -m labs.run elastic                       # 3 nodes x 1 worker, node 2 dies at step 8
    python -m labs.run elastic --lose-at-step 12 --steps 24
Each "node" is a separate torchrun agent on this machine, all joining one c10d rendezvous:
    TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 torchrun --nnodes=2:3 --nproc-per-node=1 --max-restarts=3 \
        --rdzv-backend=c10d --rdzv-endpoint=localhost:29500 --rdzv-conf=last_call_timeout=5 \
        -m labs.core.worker elastic --out runs/x
On a real cluster run that same command on every node (`--rdzv-endpoint` naming the first node) with an
--out on shared storage.

The model is sharded with FSDP2 (`fully_shard`), so every rank holds only its slice of the parameters
and of the Adam states, and checkpoints go through the labs' one checkpoint path (labs/core/checkpoint.py:
DCP, atomic commit, per-shard checksums). At step 8 node 2
dies with its agent (SIGKILL to both: no goodbye). The survivors' collectives fail, their agents restart
them, the rendezvous closes with the 2 nodes left (`--nnodes 2:3`), and the new 2-rank job loads the
3-rank checkpoint: DCP reshards it to the new world size. The global batch stays 12 samples: micro-batches
of 2, so gradient accumulation goes from 2 to 3 steps per update. The lab verifies that the loss curve
continues across the shrink and matches an uninterrupted 2-node run (within float tolerance: a different
world size changes the order of the reductions, so bit-exactness is not expected here), that every step
consumed the same 12 samples, and that no more than one checkpoint interval was recomputed.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import torch
import torch.distributed as dist
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_state_dict, set_state_dict
from torch.distributed.fsdp import fully_shard

from labs.core import launch, report
from labs.core.checkpoint import Checkpointer, blob, unblob
from labs.core.config import LaunchConfig, ModelConfig, Problem
from labs.core.data import ByteWindows, Sampler
from labs.core.events import EventLog, read_events
from labs.core.model import build_gpt
from labs.core.worker import Context

DESCRIPTION = "Lose a node for good: 3 -> 2 workers, resharded checkpoint, global batch kept by accumulation"
LOSS_RTOL = 1e-4
# Adam divides by sqrt(v): where a gradient is near zero, a rounding-level difference in it (another world
# size sums in another order) moves that update by up to ~lr. So parameters agree to a fraction of lr.
PARAM_ATOL = 1e-3


@dataclass
class Config(ModelConfig):
    CHOICES: ClassVar[dict[str, list[str]]] = LaunchConfig.CHOICES

    nproc: int = 1
    """Workers per simulated node."""
    nodes: int = 3
    """Simulated nodes: separate torchrun agents joining one rendezvous."""
    min_nodes: int = 2
    """torchrun --nnodes MIN:MAX: the job goes on while at least MIN nodes are left."""
    lose_node: int = 2
    """The node that dies for good (its agent and its workers)."""
    lose_at_step: int = 8
    """The step after which that node dies."""
    rdzv_conf: str = "last_call_timeout=5"
    """How long a closing rendezvous waits for late nodes (torchrun's default is 30 s): long enough for all
    nodes to join at the start, short enough that the survivors do not wait long for the dead one."""
    steps: int = 20
    """Optimizer steps in the whole job."""
    global_batch: int = 12
    """Samples per step: must divide by micro_batch x world for every world size the job passes through."""
    micro_batch: int = 2
    """Samples per forward/backward; accumulation = global_batch / (micro_batch x world)."""
    layers: int = 2
    """Transformer blocks (each one is its own FSDP2 unit)."""
    ckpt_every: int = 5
    """DCP checkpoint every N steps."""
    max_restarts: int = 3
    """torchrun --max-restarts per agent."""
    job: str = "elastic"
    """Job folder inside --out (set by the lab: elastic, reference)."""


# ---- the workers -------------------------------------------------------------------------------------
def build(cfg: Config, ctx: Context) -> tuple[torch.nn.Module, torch.optim.Optimizer]:
    model = build_gpt(cfg, ctx.device, dropout=0.0)  # same full weights on every rank before sharding
    for block in model.blocks:
        fully_shard(block)
    fully_shard(model)
    return model, torch.optim.AdamW(model.parameters(), lr=cfg.lr)


def checkpoint_state(model: torch.nn.Module, opt: torch.optim.Optimizer, sampler: Sampler) -> dict[str, Any]:
    """This rank's shards of the model and Adam states (DTensors: DCP reshards them on load) and the data
    position, which is the same on every rank (the sampler deals the global batch)."""
    msd, osd = get_state_dict(model, opt)
    return {"model": msd, "optim": osd, "objects": {"sampler": blob(sampler.state_dict())}}


def lose_this_node(cfg: Config, ctx: Context, step: int, marker: Path) -> None:
    if (step != cfg.lose_at_step or os.environ.get("KGP_NODE") != str(cfg.lose_node)
            or ctx.restart_count or marker.exists()):
        return
    marker.write_text(json.dumps({"step": step}))
    EventLog(marker.parent / "events", ctx.rank, ctx.attempt).log("fault", kind="node_lost", step=step,
                                                                  node=cfg.lose_node, rank=ctx.rank)
    os.kill(os.getppid(), signal.SIGKILL)  # the agent: nobody is left on this node to restart anything
    os.kill(os.getpid(), signal.SIGKILL)


def worker(cfg: Config, ctx: Context) -> None:
    job = Path(cfg.out) / cfg.job
    log = EventLog(job / "events", ctx.rank, ctx.attempt)
    model, opt = build(cfg, ctx)
    windows = ByteWindows(cfg.block)
    sampler = Sampler(windows.num_samples, cfg.global_batch, cfg.seed)
    ckpt = Checkpointer(job / "checkpoints", ctx.rank, ctx.world, keep=3, mode="sync",
                        on_saved=lambda s: log.log("ckpt", **vars(s)))
    if ctx.rank == 0:
        ckpt.clean_partial()
    dist.barrier()
    loaded = ckpt.load_latest(lambda: checkpoint_state(model, opt, sampler))
    start = 0
    if loaded and loaded.step:  # DCP read this rank's slices from the old world's shards: resharding is here
        set_state_dict(model, opt, model_state_dict=loaded.state["model"], optim_state_dict=loaded.state["optim"])
        sampler.load_state_dict(unblob(loaded.state["objects"]["sampler"]))
        start = loaded.step
    accum = cfg.global_batch // (cfg.micro_batch * ctx.world)
    log.log("start", world=ctx.world, accum=accum, resumed_from=start,
            checkpoint_world=loaded.saved_world if loaded else None)
    for step in range(start + 1, cfg.steps + 1):
        ids = sampler.next_for_rank(ctx.rank, ctx.world)
        loss = train_step(model, opt, windows, ids, cfg.micro_batch, ctx.device)
        dist.all_reduce(loss)
        log.log("step", step=step, loss=loss.item() / ctx.world, ids=ids, world=ctx.world, accum=accum)
        lose_this_node(cfg, ctx, step, job / "node_lost.json")
        if step % cfg.ckpt_every == 0:
            ckpt.save(step, checkpoint_state(model, opt, sampler))
    full = get_state_dict(model, opt, options=StateDictOptions(full_state_dict=True, cpu_offload=True))[0]
    if ctx.rank == 0:
        torch.save(full, job / "final.pt")
    log.log("done", step=cfg.steps)


def train_step(model: torch.nn.Module, opt: torch.optim.Optimizer, windows: ByteWindows, ids: list[int],
               micro: int, device: torch.device) -> torch.Tensor:
    """One update over this rank's samples in micro-batches; gradients are reduced on the last one only."""
    opt.zero_grad(set_to_none=True)
    chunks = [ids[i: i + micro] for i in range(0, len(ids), micro)]
    total = torch.zeros((), device=device)
    for i, chunk in enumerate(chunks):
        model.set_requires_gradient_sync(i == len(chunks) - 1)  # FSDP2's no_sync
        x, y = (t.to(device) for t in windows.batch(chunk))
        loss = model(x, y) / len(chunks)
        loss.backward()
        total += loss.detach()
    opt.step()
    return total


# ---- the orchestrator --------------------------------------------------------------------------------
def check_config(cfg: Config) -> str:
    for world in (cfg.nodes * cfg.nproc, cfg.min_nodes * cfg.nproc):
        if cfg.global_batch % (cfg.micro_batch * world):
            return Problem(f"--global-batch {cfg.global_batch} must divide by --micro-batch x world = "
                           f"{cfg.micro_batch * world}",
                           f"--global-batch {cfg.global_batch} 必须能被 --micro-batch x world = "
                           f"{cfg.micro_batch * world} 整除")
    if not 0 < cfg.lose_node < cfg.nodes:
        return Problem(f"--lose-node must be in 1..{cfg.nodes - 1} (node 0 hosts the rendezvous store)",
                       f"--lose-node 必须在 1..{cfg.nodes - 1} 之间（节点 0 承载 rendezvous store）")
    if not cfg.ckpt_every <= cfg.lose_at_step < cfg.steps:
        return Problem(f"--lose-at-step must be in {cfg.ckpt_every}..{cfg.steps - 1}",
                       f"--lose-at-step 必须在 {cfg.ckpt_every}..{cfg.steps - 1} 之间")
    if cfg.min_nodes >= cfg.nodes:
        return Problem("--min-nodes must be smaller than --nodes, or losing a node ends the job",
                       "--min-nodes 必须小于 --nodes，否则失去一个节点就会结束作业")
    return ""


def free_endpoint() -> str:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return f"localhost:{s.getsockname()[1]}"


def wait_listening(endpoint: str, proc: Any, timeout_s: float = 60.0) -> None:
    """Block until something accepts connections on `endpoint` (node 0's store), or node 0 has died."""
    host, port = endpoint.rsplit(":", 1)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            socket.create_connection((host, int(port)), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)


def run_nodes(cfg: Config, nodes: int, bar: Any, task: Any) -> list[int]:
    """Start `nodes` agents on one rendezvous (node 0 first: it hosts the store) and wait for all."""
    job = Path(cfg.out) / cfg.job
    cfg = dataclasses.replace(cfg, rdzv_endpoint=free_endpoint(), nnodes=f"{cfg.min_nodes}:{nodes}")
    cmd = launch.worker_command("elastic", cfg, cfg.max_restarts, job / "logs")
    report.console.print(f"[dim]{cfg.job} ({nodes} nodes):[/] {launch.printable(cmd)}")
    procs = []
    for node in range(nodes):
        node_cmd = [a.replace(str(job / "logs"), str(job / "logs" / f"node{node}")) for a in cmd]
        procs.append(launch.start_job(node_cmd, job / "logs" / f"node{node}" / "agent.log", {"KGP_NODE": str(node)}))
        if node == 0:  # the first agent to bind the endpoint hosts the rendezvous store: make that node 0
            wait_listening(cfg.rdzv_endpoint, procs[0])

    def poll() -> None:
        steps = [e["step"] for e in read_events(job / "events", rank=0) if e["ev"] == "step"]
        bar.update(task, completed=steps[-1] if steps else 0)

    return launch.wait_jobs(procs, cfg.timeout_s, poll)


def attempts(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for e in events:
        if e["ev"] == "start":
            out.append({"world": e["world"], "accum": e["accum"], "resumed_from": e["resumed_from"],
                        "checkpoint_world": e["checkpoint_world"], "losses": {}})
        elif e["ev"] == "step" and out:
            out[-1]["losses"][e["step"]] = e["loss"]
    return out


def samples(events: list[dict[str, Any]]) -> dict[int, list[int]]:
    """step -> the sorted global batch, as the ranks of the latest attempt that ran the step consumed it."""
    latest_world = {e["step"]: e["world"] for e in events if e["ev"] == "step" and e["rank"] == 0}
    per_step: dict[int, dict[int, list[int]]] = {}
    for e in events:
        if e["ev"] == "step" and e["world"] == latest_world.get(e["step"]):
            per_step.setdefault(e["step"], {})[e["rank"]] = e["ids"]
    return {s: sorted(i for ids in ranks.values() for i in ids) for s, ranks in sorted(per_step.items())}


def analyse(cfg: Config, run_dir: Path, codes: list[int], ref_codes: list[int]) -> dict[str, Any]:
    ev, ref_ev = read_events(run_dir / "elastic" / "events"), read_events(run_dir / "reference" / "events")
    att = attempts([e for e in ev if e["rank"] == 0])
    ref = attempts([e for e in ref_ev if e["rank"] == 0])
    ref_losses = ref[0]["losses"] if ref else {}
    losses = {s: v for a in att for s, v in a["losses"].items()}
    lost = max(att[0]["losses"]) - att[1]["resumed_from"] if len(att) > 1 else None
    rel = max((abs(losses[s] - ref_losses[s]) / abs(ref_losses[s]) for s in ref_losses if s in losses), default=1.0)
    got, want = samples(ev), samples(ref_ev)
    param_diff = final_param_diff(run_dir)
    checks = {
        "node_lost": codes[cfg.lose_node] not in (0, 124) and any(e["ev"] == "fault" for e in ev),
        "shrunk_to_min_nodes": [a["world"] for a in att] == [cfg.nodes * cfg.nproc, cfg.min_nodes * cfg.nproc],
        "resharded_checkpoint": len(att) > 1 and att[1]["checkpoint_world"] == cfg.nodes * cfg.nproc,
        "accumulation_adjusted": [a["accum"] * a["world"] * cfg.micro_batch for a in att] == [cfg.global_batch] * 2,
        "global_batch_constant": all(len(v) == cfg.global_batch for v in got.values()) and len(got) == cfg.steps,
        "samples_identical": got == want,
        "loss_matches_reference": rel <= LOSS_RTOL,
        "params_match_reference": param_diff is not None and param_diff <= PARAM_ATOL,
        "lost_steps_within_interval": lost is not None and 0 <= lost <= cfg.ckpt_every,
        "survivors_finished": all(c == 0 for i, c in enumerate(codes) if i != cfg.lose_node) and ref_codes == [0, 0],
    }
    return {"lab": "elastic", "passed": all(checks.values()), "checks": checks, "config": dataclasses.asdict(cfg),
            "agent_exit_codes": codes, "attempts": [{k: v for k, v in a.items() if k != "losses"} for a in att],
            "lost_steps": lost, "loss_max_rel_diff": rel, "loss_rtol": LOSS_RTOL, "param_max_abs_diff": param_diff,
            "param_atol": PARAM_ATOL, "losses": {"elastic": losses, "reference": ref_losses}, "plot": "loss.png"}


def final_param_diff(run_dir: Path) -> float | None:
    a, b = run_dir / "elastic" / "final.pt", run_dir / "reference" / "final.pt"
    if not (a.exists() and b.exists()):
        return None
    sa, sb = torch.load(a, weights_only=False), torch.load(b, weights_only=False)
    return max((sa[k] - sb[k]).abs().max().item() for k in sa)


def plot(path: Path, result: dict[str, Any], cfg: Config) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    ref = {int(k): v for k, v in result["losses"]["reference"].items()}
    ax.plot(sorted(ref), [ref[s] for s in sorted(ref)], color="0.6", lw=4, alpha=0.6,
            label=f"reference: {cfg.min_nodes} nodes throughout")
    el = {int(k): v for k, v in result["losses"]["elastic"].items()}
    ax.plot(sorted(el), [el[s] for s in sorted(el)], marker="o", ms=3, lw=1.2, label="elastic job")
    ax.axvline(cfg.lose_at_step, color="red", ls="--", lw=1)
    worlds = " -> ".join(f"{a['world']} ranks x accum {a['accum']}" for a in result["attempts"])
    ax.annotate(f"node {cfg.lose_node} lost\n{worlds}", (cfg.lose_at_step, max(el.values())), color="red",
                fontsize=8, va="top", ha="left")
    ax.set_xlabel("step")
    ax.set_ylabel("training loss")
    ax.set_title(f"elastic: {cfg.nodes} -> {cfg.min_nodes} nodes, global batch {cfg.global_batch} kept")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(cfg: Config) -> int:
    cfg, run_dir = report.open_run("elastic", cfg)
    with report.progress("elastic") as bar:
        codes = run_nodes(cfg, cfg.nodes, bar, bar.add_task("elastic", total=cfg.steps, status=""))
        ref_cfg = dataclasses.replace(cfg, job="reference", lose_at_step=-1)
        ref_codes = run_nodes(ref_cfg, cfg.min_nodes, bar, bar.add_task("reference", total=cfg.steps, status=""))
    result = analyse(cfg, run_dir, codes, ref_codes)
    report.write_json(run_dir / "report.json", result)
    plot(run_dir / "loss.png", result, cfg)
    rows = [("passed", result["passed"])] + [(f"check: {k}", v) for k, v in result["checks"].items()]
    rows += [("worlds", " -> ".join(str(a["world"]) for a in result["attempts"])),
             ("accumulation", " -> ".join(str(a["accum"]) for a in result["attempts"])),
             ("lost steps", result["lost_steps"]), ("loss max rel diff", result["loss_max_rel_diff"]),
             ("param max abs diff", result["param_max_abs_diff"]), ("agent exit codes", result["agent_exit_codes"])]
    report.console.print(report.summary_table("elastic", rows))
    report.console.print(f"report: {run_dir / 'report.json'}  plot: {run_dir / 'loss.png'}")
    return 0 if result["passed"] else 1

