# expect-fail: one_epoch_exactly_once
"""A plausible wrong sampler: it shuffles with the global `random` module, assuming the training script seeded
it identically everywhere. Each rank's global RNG is in its own state, so the ranks shuffle differently and their
strided slices overlap: some indices come twice in an epoch, others never."""
import random


class ResumableSampler:
    def __init__(self, dataset_len, rank, world_size, seed, batch_size):
        self.n, self.rank, self.world, self.seed, self.batch = dataset_len, rank, world_size, seed, batch_size
        self.epoch, self.done, self.order = 0, 0, {}

    def set_epoch(self, epoch):
        self.epoch, self.done = epoch, 0

    def __iter__(self):
        if self.epoch not in self.order:
            perm = list(range(self.n))
            random.shuffle(perm)
            self.order[self.epoch] = perm
        mine = self.order[self.epoch][self.rank::self.world]
        todo = [mine[i:i + self.batch] for i in range(0, len(mine), self.batch)]
        while self.done < len(todo):
            self.done += 1
            yield todo[self.done - 1]

    def state_dict(self):
        return {"epoch": self.epoch, "done": self.done}

    def load_state_dict(self, sd):
        self.epoch, self.done = sd["epoch"], sd["done"]
