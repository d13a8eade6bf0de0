"""Reference: a resumable distributed sampler.

The order of an epoch is a pure function of (seed, epoch), drawn from a private torch.Generator, so every rank
and every restarted process rebuilds the same permutation without touching (or depending on) the global RNG.
Rank r takes positions r, r + world, ...: disjoint slices that cover every index once, with no padding. The
position is the number of batches already handed out in this epoch, advanced just before each yield: a
generator's code after `yield` runs only when the consumer asks for the next batch, so counting there would
lag one behind. Nothing resets the position when an epoch ends (only set_epoch does), so a restart at the
end of an epoch yields nothing instead of replaying it, and the position is absolute, so a second restart
continues from the right place too.
"""

from collections.abc import Iterator

import torch


class ResumableSampler:
    def __init__(self, dataset_len: int, rank: int, world_size: int, seed: int, batch_size: int) -> None:
        self.n, self.rank, self.world, self.seed, self.batch = dataset_len, rank, world_size, seed, batch_size
        self.epoch, self.done = 0, 0  # `done`: batches of this epoch already handed out

    def set_epoch(self, epoch: int) -> None:
        self.epoch, self.done = epoch, 0

    def batches(self) -> list[list[int]]:
        g = torch.Generator().manual_seed(self.seed + self.epoch)
        mine = torch.randperm(self.n, generator=g)[self.rank::self.world].tolist()
        return [mine[i:i + self.batch] for i in range(0, len(mine), self.batch)]

    def __iter__(self) -> Iterator[list[int]]:
        todo = self.batches()
        while self.done < len(todo):
            self.done += 1  # counted when handed out: the consumer has it once next() returns
            yield todo[self.done - 1]

    def state_dict(self) -> dict:
        return {"epoch": self.epoch, "done": self.done, "seed": self.seed}

    def load_state_dict(self, sd: dict) -> None:
        if sd["seed"] != self.seed:
            raise ValueError(f"state saved with seed {sd['seed']}, this sampler has seed {self.seed}")
        self.epoch, self.done = int(sd["epoch"]), int(sd["done"])
