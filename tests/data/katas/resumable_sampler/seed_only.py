# expect-fail: epochs_differ_reproducible
"""A plausible wrong sampler: set_epoch stores the epoch, but the generator is seeded with `seed` alone, the bug
of a forgotten DistributedSampler.set_epoch seen from the inside: every epoch shows the model the same order."""
import torch


class ResumableSampler:
    def __init__(self, dataset_len, rank, world_size, seed, batch_size):
        self.n, self.rank, self.world, self.seed, self.batch = dataset_len, rank, world_size, seed, batch_size
        self.epoch, self.done = 0, 0

    def set_epoch(self, epoch):
        self.epoch, self.done = epoch, 0

    def __iter__(self):
        perm = torch.randperm(self.n, generator=torch.Generator().manual_seed(self.seed)).tolist()
        mine = perm[self.rank::self.world]
        todo = [mine[i:i + self.batch] for i in range(0, len(mine), self.batch)]
        while self.done < len(todo):
            self.done += 1
            yield todo[self.done - 1]

    def state_dict(self):
        return {"epoch": self.epoch, "done": self.done}

    def load_state_dict(self, sd):
        self.epoch, self.done = sd["epoch"], sd["done"]
