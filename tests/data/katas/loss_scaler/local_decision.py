# expect-fail: inf_on_one_rank
"""A plausible wrong scaler: every rank decides from its own gradients. When only one rank overflows, that rank
skips and backs off while the others step and keep their scale: the replicas' parameters and scales diverge
without any error."""
import torch


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
        if any(not torch.isfinite(g).all() for g in grads):
            self.s *= self.bf
            self.good = 0
            return False
        optimizer.step()
        self.good += 1
        if self.good == self.interval:
            self.s *= self.gf
            self.good = 0
        return True
