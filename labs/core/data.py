"""The shipped corpus as fixed byte windows, and a stateful sampler whose position is part of a checkpoint.

Sample `i` is always the same window of `labs/data/corpus.txt`, so the ids a step consumed say exactly
which data it saw. The sampler shuffles per epoch with `seed + epoch` and remembers (epoch, offset):
restoring that state is what makes data consumption exactly-once across a restart.
"""

from __future__ import annotations

from pathlib import Path

import torch

CORPUS = Path(__file__).parents[1] / "data" / "corpus.txt"


class ByteWindows:
    """Overlapping windows of `block + 1` bytes (input and shifted target) every `stride` bytes."""

    def __init__(self, block: int, stride: int = 16, path: Path = CORPUS) -> None:
        self.data = torch.tensor(list(path.read_bytes()), dtype=torch.long)
        self.block, self.stride = block, stride
        self.num_samples = (len(self.data) - block - 1) // stride

    def batch(self, ids: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
        rows = torch.stack([self.data[i * self.stride: i * self.stride + self.block + 1] for i in ids])
        return rows[:, :-1], rows[:, 1:]


class Sampler:
    """Deterministic global batches of sample ids; each rank takes its contiguous share."""

    def __init__(self, num_samples: int, global_batch: int, seed: int) -> None:
        self.num_samples, self.global_batch, self.seed = num_samples, global_batch, seed
        self.epoch, self.offset = 0, 0

    def _order(self, epoch: int) -> list[int]:
        g = torch.Generator().manual_seed(self.seed + epoch)
        return torch.randperm(self.num_samples, generator=g).tolist()

    def next_global_batch(self) -> list[int]:
        ids: list[int] = []
        while len(ids) < self.global_batch:
            order = self._order(self.epoch)
            take = order[self.offset: self.offset + self.global_batch - len(ids)]
            ids += take
            self.offset += len(take)
            if self.offset >= self.num_samples:
                self.epoch, self.offset = self.epoch + 1, 0
        return ids

    def next_for_rank(self, rank: int, world: int) -> list[int]:
        ids = self.next_global_batch()
        per = self.global_batch // world
        return ids[rank * per: (rank + 1) * per]

    def state_dict(self) -> dict[str, int]:
        return {"epoch": self.epoch, "offset": self.offset, "seed": self.seed}

    def load_state_dict(self, state: dict[str, int]) -> None:
        self.epoch, self.offset, self.seed = state["epoch"], state["offset"], state["seed"]
