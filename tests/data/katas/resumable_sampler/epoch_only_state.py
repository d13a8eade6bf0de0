# expect-fail: restart_mid_epoch
"""A plausible wrong sampler: the state_dict holds only the epoch, as DistributedSampler effectively does, so a
restarted process begins the interrupted epoch again and replays every batch already trained on."""
import torch


class ResumableSampler:
    def __init__(self, dataset_len, rank, world_size, seed, batch_size):
        self.n, self.rank, self.world, self.seed, self.batch = dataset_len, rank, world_size, seed, batch_size
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed + self.epoch)
        mine = torch.randperm(self.n, generator=g)[self.rank::self.world].tolist()
        for i in range(0, len(mine), self.batch):
            yield mine[i:i + self.batch]

    def state_dict(self):
        return {"epoch": self.epoch}

    def load_state_dict(self, sd):
        self.epoch = sd["epoch"]
