# expect-fail: nan_only
"""A plausible wrong scaler: it looks for overflow with torch.isinf only. A NaN gradient (0·inf, inf − inf in fp16)
is not an inf, so the step goes ahead and writes NaN into the parameters."""
import torch
import torch.distributed as dist


class DynamicLossScaler:
    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        self.s, self.gf, self.bf, self.interval, self.good = float(init_scale), growth_factor, backoff_factor, \
            growth_interval, 0

    def get_scale(self):
        return self.s

    def scale(self, loss):
        return loss * self.s

    def step(self, optimizer, params):
        grads = [p.grad for p in params if p.grad is not None]
        for g in grads:
            g.div_(self.s)
        found = torch.tensor([float(any(torch.isinf(g).any() for g in grads))])
        dist.all_reduce(found, op=dist.ReduceOp.MAX)
        if found.item():
            self.s *= self.bf
            self.good = 0
            return False
        optimizer.step()
        self.good += 1
        if self.good == self.interval:
            self.s *= self.gf
            self.good = 0
        return True
