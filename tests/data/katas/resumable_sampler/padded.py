# expect-fail: one_epoch_exactly_once
"""A plausible wrong sampler: copied from DistributedSampler's default (drop_last=False), it pads the permutation
with its own head until it divides by the world size, so a few indices are trained on twice per epoch."""
import torch


class ResumableSampler:
    def __init__(self, dataset_len, rank, world_size, seed, batch_size):
        self.n, self.rank, self.world, self.seed, self.batch = dataset_len, rank, world_size, seed, batch_size
        self.epoch, self.done = 0, 0

    def set_epoch(self, epoch):
        self.epoch, self.done = epoch, 0

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed + self.epoch)
        perm = torch.randperm(self.n, generator=g).tolist()
        total = -(-self.n // self.world) * self.world
        perm += perm[: total - self.n]  # pad to a multiple of the world size
        mine = perm[self.rank::self.world]
        todo = [mine[i:i + self.batch] for i in range(0, len(mine), self.batch)]
        while self.done < len(todo):
            self.done += 1
            yield todo[self.done - 1]

    def state_dict(self):
        return {"epoch": self.epoch, "done": self.done}

    def load_state_dict(self, sd):
        self.epoch, self.done = sd["epoch"], sd["done"]
