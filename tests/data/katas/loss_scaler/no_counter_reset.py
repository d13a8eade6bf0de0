# expect-fail: overflow_resets_growth
"""A plausible wrong scaler: an overflow backs the scale off but leaves the good-step counter as it was, so the
scale grows again after fewer than growth_interval clean steps and keeps bouncing into overflows."""
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
        found = torch.tensor([float(any(not torch.isfinite(g).all() for g in grads))])
        dist.all_reduce(found, op=dist.ReduceOp.MAX)
        if found.item():
            self.s *= self.bf
            return False
        optimizer.step()
        self.good += 1
        if self.good == self.interval:
            self.s *= self.gf
            self.good = 0
        return True
