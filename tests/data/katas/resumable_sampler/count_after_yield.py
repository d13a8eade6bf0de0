# expect-fail: restart_mid_epoch
"""A plausible wrong sampler: it counts a batch after the `yield`. A generator resumes after its yield only when the
next batch is asked for, so after k batches were handed out the count still says k-1, and a restart replays one."""
import torch


class ResumableSampler:
    def __init__(self, dataset_len, rank, world_size, seed, batch_size):
        self.n, self.rank, self.world, self.seed, self.batch = dataset_len, rank, world_size, seed, batch_size
        self.epoch, self.done = 0, 0

    def set_epoch(self, epoch):
        self.epoch, self.done = epoch, 0

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed + self.epoch)
        mine = torch.randperm(self.n, generator=g)[self.rank::self.world].tolist()
        todo = [mine[i:i + self.batch] for i in range(0, len(mine), self.batch)]
        for b in todo[self.done:]:
            yield b
            self.done += 1

    def state_dict(self):
        return {"epoch": self.epoch, "done": self.done}

    def load_state_dict(self, sd):
        self.epoch, self.done = sd["epoch"], sd["done"]
