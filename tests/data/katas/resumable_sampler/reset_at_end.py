# expect-fail: restart_at_epoch_end
"""A plausible wrong sampler: it resets its position to zero when an epoch runs out, "ready for the next one". A
checkpoint taken at the end of an epoch then says "nothing consumed", and the restart replays the whole epoch."""
import torch


class ResumableSampler:
    def __init__(self, dataset_len, rank, world_size, seed, batch_size):
        self.n, self.rank, self.world, self.seed, self.batch = dataset_len, rank, world_size, seed, batch_size
        self.epoch, self.done = 0, 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed + self.epoch)
        mine = torch.randperm(self.n, generator=g)[self.rank::self.world].tolist()
        todo = [mine[i:i + self.batch] for i in range(0, len(mine), self.batch)]
        while self.done < len(todo):
            self.done += 1
            yield todo[self.done - 1]
        self.done = 0  # epoch over: start the next one from the top

    def state_dict(self):
        return {"epoch": self.epoch, "done": self.done}

    def load_state_dict(self, sd):
        self.epoch, self.done = sd["epoch"], sd["done"]
