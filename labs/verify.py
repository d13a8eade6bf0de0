"""Verification: a resumed run against the uninterrupted reference, tensor by tensor and step by step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch


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
    return [] if a == b else [f"{path}: {a!r} vs {b!r}"]


def count_tensors(state: Any) -> int:
    if isinstance(state, torch.Tensor):
        return 1
    if isinstance(state, dict):
        return sum(count_tensors(v) for v in state.values())
    if isinstance(state, (list, tuple)):
        return sum(count_tensors(v) for v in state)
    return 0


def compare_final(run: Path, reference: Path) -> dict[str, Any]:
    """Final model and optimizer of two jobs (their `final.pt`), tensor by tensor."""
    if not (run / "final.pt").exists() or not (reference / "final.pt").exists():
        return {"bit_exact": False, "tensors_compared": 0, "mismatches": ["final.pt missing"]}
    a = torch.load(run / "final.pt", weights_only=False)
    b = torch.load(reference / "final.pt", weights_only=False)
    mismatches = compare_states({k: a[k] for k in ("model", "optimizer")},
                                {k: b[k] for k in ("model", "optimizer")})
    return {"bit_exact": not mismatches, "tensors_compared": count_tensors(a["model"]) +
            count_tensors(a["optimizer"]), "mismatches": mismatches[:20]}
