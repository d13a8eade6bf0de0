"""The FSDP2 side of the `zero` lab (`torch.distributed.fsdp.fully_shard`), and the byte counting both sides use.

FSDP2 shards every parameter along dim 0 as a DTensor: each rank keeps its fp32 shard (which is also the
optimizer's master copy), its fp32 gradient shard and Adam's two moments for that shard. With
`--dtype bf16` only the all-gathered copy used for compute is bf16 (MixedPrecisionPolicy); gradients are
reduce-scattered in fp32. So FSDP2 holds 4 + 4 + 8 = 16 bytes per parameter / N: the same total as
ZeRO-3's 2 + 2 + 12, split differently. Sharded checkpoints go through torch.distributed.checkpoint (DCP).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import torch
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
from torch.distributed.tensor import DTensor

from labs.core.model import GPT


def held_bytes(groups: dict[str, Iterable[torch.Tensor]]) -> dict[str, int]:
    """Bytes of the storages behind each group of tensors. A storage counts once, in the first group that
    holds it: views into one flat buffer (DeepSpeed) or a padded shard (FSDP2) are neither double counted
    nor counted smaller than what was allocated."""
    seen: set[int] = set()
    out: dict[str, int] = {}
    for name, tensors in groups.items():
        out[name] = 0
        for t in tensors:
            storage = t.untyped_storage()
            if storage.nbytes() and storage.data_ptr() not in seen:
                seen.add(storage.data_ptr())
                out[name] += storage.nbytes()
    return out


def local(t: torch.Tensor) -> torch.Tensor:
    """This rank's shard of a DTensor (a plain tensor is already local)."""
    return t.to_local() if isinstance(t, DTensor) else t


def theory_bytes() -> tuple[int, int, int]:
    """(param, grad, optimizer) bytes per parameter FSDP2 keeps, whatever --dtype: see the module docstring."""
    return 4, 4, 8


class FsdpRun:
    """A GPT under fully_shard (each block, then the root) with AdamW; the same interface as DeepSpeedRun."""

    def __init__(self, model: GPT, lr: float, dtype: str) -> None:
        policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16 if dtype == "bf16" else None,
                                      reduce_dtype=torch.float32)
        for block in model.blocks:
            fully_shard(block, mp_policy=policy)
        fully_shard(model, mp_policy=policy)
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.1)

    def step(self, x: torch.Tensor, y: torch.Tensor, measure: bool) -> tuple[torch.Tensor, dict[str, int]]:
        loss = self.model(x, y)
        loss.backward()  # FSDP2 reduce-scatters each group's gradients inside backward
        held = self.measure() if measure else {}
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        return loss, held

    def measure(self) -> dict[str, int]:
        params = list(self.model.parameters())
        state = [local(v) for s in self.optimizer.state.values() for v in s.values() if torch.is_tensor(v)]
        return held_bytes({"params": [local(p) for p in params],
                           "grads": [local(p.grad) for p in params if p.grad is not None],
                           "optim": state})

    def save(self, folder: Path) -> None:
        model_sd, optim_sd = get_state_dict(self.model, self.optimizer)
        dcp.save({"model": model_sd, "optim": optim_sd}, checkpoint_id=str(folder))

    def load(self, folder: Path) -> None:
        model_sd, optim_sd = get_state_dict(self.model, self.optimizer)  # the shapes DCP fills in place
        state = {"model": model_sd, "optim": optim_sd}
        dcp.load(state, checkpoint_id=str(folder))
        set_state_dict(self.model, self.optimizer, model_state_dict=state["model"],
                       optim_state_dict=state["optim"])

    def final_state(self) -> dict[str, Any]:
        """This rank's shards, tensor by tensor: what a resumed run must reproduce bit for bit."""
        names = {id(p): n for n, p in self.model.named_parameters()}
        optim = {names[id(p)]: {k: local(v).clone() for k, v in s.items()} for p, s in self.optimizer.state.items()}
        return {"params": {n: local(p).detach().clone() for n, p in self.model.named_parameters()},
                "optim": optim}

    def close(self) -> None:
        pass
