# expect-fail: restart_twice
"""A plausible wrong sampler: it skips the saved count on resume, but then counts the batches this process handed
out from zero. The first restart works; the second saves a position relative to the first restart and replays."""
import torch


class ResumableSampler:
    def __init__(self, dataset_len, rank, world_size, seed, batch_size):
        self.n, self.rank, self.world, self.seed, self.batch = dataset_len, rank, world_size, seed, batch_size
        self.epoch, self.skip, self.yielded = 0, 0, 0

    def set_epoch(self, epoch):
        self.epoch, self.skip, self.yielded = epoch, 0, 0

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed + self.epoch)
        mine = torch.randperm(self.n, generator=g)[self.rank::self.world].tolist()
        todo = [mine[i:i + self.batch] for i in range(0, len(mine), self.batch)]
        start, self.skip, self.yielded = self.skip, 0, 0
        for b in todo[start:]:
            self.yielded += 1
            yield b

    def state_dict(self):
        return {"epoch": self.epoch, "yielded": self.yielded}

    def load_state_dict(self, sd):
        self.epoch, self.skip = sd["epoch"], sd["yielded"]
