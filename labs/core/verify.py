"""Verification: a resumed run against the uninterrupted reference, tensor by tensor and step by step.

The inputs are what the workers wrote: `final-rank-R.pt` per rank and job, and the per-rank event logs
(labs/core/events.py).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from statistics import mean
from typing import Any

import numpy as np
import torch
import torch.distributed as dist


def compare_states(a: Any, b: Any, path: str = "") -> list[str]:
    """Every place where two nested states differ; tensors must be `torch.equal` (bit-exact)."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return [f"{path}: tensor vs {type(b).__name__}"]
        if a.shape != b.shape or a.dtype != b.dtype:
            return [f"{path}: {a.dtype}{list(a.shape)} vs {b.dtype}{list(b.shape)}"]
        if not torch.equal(a, b):
            diff = (a.double() - b.double()).abs().max().item()
            return [f"{path}: values differ (max abs diff {diff:.3g})"]
        return []
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return [f"{path}: keys differ {sorted(map(str, set(a) ^ set(b)))}"]
        return [m for k in a for m in compare_states(a[k], b[k], f"{path}.{k}" if path else str(k))]
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return [f"{path}: length {len(a)} vs {len(b)}"]
        return [m for i, (x, y) in enumerate(zip(a, b, strict=True)) for m in compare_states(x, y, f"{path}[{i}]")]
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):  # numpy's RNG state
        same = isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b)
        return [] if same else [f"{path}: arrays differ"]
    return [] if a == b else [f"{path}: {a!r} vs {b!r}"[:300]]


def count_tensors(state: Any) -> int:
    if isinstance(state, torch.Tensor):
        return 1
    if isinstance(state, dict):
        return sum(count_tensors(v) for v in state.values())
    if isinstance(state, (list, tuple)):
        return sum(count_tensors(v) for v in state)
    return 0


def compare_final(run: Path, reference: Path, world: int) -> dict[str, Any]:
    """Every rank's final state of two jobs (`final-rank-R.pt`: model, optimizer, scheduler, RNG streams, data
    position), tensor by tensor and value by value."""
    mismatches: list[str] = []
    compared = 0
    for r in range(world):
        name = f"final-rank-{r}.pt"
        if not (run / name).exists() or not (reference / name).exists():
            mismatches.append(f"{name} missing")
            continue
        a = torch.load(run / name, weights_only=False)
        b = torch.load(reference / name, weights_only=False)
        mismatches += compare_states(a, b, f"rank{r}")
        compared += count_tensors(a)
    return {"bit_exact": not mismatches and compared > 0, "tensors_compared": compared,
            "mismatches": mismatches[:20], "parts_differing": sorted({m.split(".")[1].split(":")[0]
                                                                      for m in mismatches if "." in m})}


# ---- reading a run's event logs ----------------------------------------------------------------------
def attempts(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rank 0's events split at each worker start, in order: where it resumed, the losses it computed.

    Split by `start` events, not by TORCHELASTIC_RESTART_COUNT: on a node whose peer node failed, torchrun
    restarts the workers for the membership change without counting it as a restart."""
    out: list[dict[str, Any]] = []
    for e in events:
        if e["ev"] == "start" or not out:
            out.append({"attempt": len(out), "torchrun_attempt": e["attempt"], "resumed_from": 0, "losses": {},
                        "start_t": e["t"], "first_step_t": None, "skipped": [], "start": e, "resumed": None,
                        "ready": None})
        a = out[-1]
        if e["ev"] == "resumed":
            a["resumed_from"], a["skipped"], a["load_s"], a["resumed"] = e["step"], e["skipped"], e["load_s"], e
        if e["ev"] == "ready":
            a["ready"] = e
        if e["ev"] == "step":
            a["losses"][e["step"]] = e["loss"]
            a["first_step_t"] = a["first_step_t"] or e["t"]
    return [a for a in out if a["losses"] or a["resumed_from"]]


def samples_by_step(events: list[dict[str, Any]]) -> dict[int, list[int]]:
    """step -> the global batch's sample ids, as the ranks consumed them (last attempt wins)."""
    per_rank: dict[int, dict[int, list[int]]] = {}
    for e in events:
        if e["ev"] == "step":
            per_rank.setdefault(e["rank"], {})[e["step"]] = e["ids"]
    steps = sorted({s for r in per_rank.values() for s in r})
    return {s: [i for r in sorted(per_rank) for i in per_rank[r].get(s, [])] for s in steps}


def checkpoint_figures(events: list[dict[str, Any]], step_events: list[dict[str, Any]]) -> dict[str, Any]:
    saves = [e for e in events if e["ev"] == "ckpt"]
    rank0 = [e for e in saves if e["rank"] == 0]
    if not rank0:
        return {}
    step_s = mean(e["step_s"] for e in step_events)
    write_s = sum(e["write_s"] for e in rank0)
    return {
        "saves": len(rank0),
        "mode": rank0[-1]["mode"],
        "blocking_s_mean": mean(e["blocking_s"] for e in rank0),
        "write_s_mean": mean(e["write_s"] for e in rank0),
        "mb_per_save_rank0": mean(e["bytes"] for e in rank0) / 1e6,
        "mb_per_s": sum(e["bytes"] for e in rank0) / 1e6 / write_s if write_s else 0.0,
        "step_s_mean": step_s,
        "blocking_over_step": mean(e["blocking_s"] for e in rank0) / step_s,
        "blocking_pct": 100 * sum(e["blocking_s"] for e in rank0) / sum(e["step_s"] for e in step_events),
    }


def reconnect_errors(log_dir: Path) -> list[str]:
    """Lines of the workers' logs showing the torchrun/gloo reconnection bug (see labs/core/launch.py)."""
    hits = []
    for file in sorted(log_dir.rglob("*.log")):
        for line in file.read_text(errors="replace").splitlines():
            if "connectFullMesh" in line or ("Connection refused" in line and "Gloo" in line):
                hits.append(f"{file.relative_to(log_dir)}: {line.strip()[:200]}")
    return hits


def consumed_exactly_once(events: list[dict[str, Any]], reference: dict[int, list[int]],
                          samples: dict[int, list[int]], recomputed: dict[int, list[float]]) -> bool:
    """Every sample was consumed as often as in the reference, plus once per recomputation of its step."""
    consumed = Counter(i for e in events if e["ev"] == "step" for i in e["ids"])
    expected = Counter(i for ids in reference.values() for i in ids)
    for s, values in recomputed.items():
        for _ in range(len(values) - 1):
            expected.update(samples[s])
    return consumed == expected


def flat_params(model: torch.nn.Module) -> torch.Tensor:
    return torch.cat([p.detach().reshape(-1) for p in model.parameters()])


def replica_spread(params: torch.Tensor) -> float:
    """max |params - rank 0's params| over all ranks (a collective): 0 when the replicas are identical."""
    ref = params.clone()
    dist.broadcast(ref, 0)
    spread = (params - ref).abs().max().reshape(1)
    dist.all_reduce(spread, op=dist.ReduceOp.MAX)
    return spread.item()
