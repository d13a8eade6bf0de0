"""Reference: dynamic loss scaling, GradScaler's unscale_ + step + update in one call.

The loss is multiplied by the scale so that small fp16 gradients do not flush to zero; backprop is linear, so
every gradient carries the same factor and dividing it out before the update restores the true gradient
(before any clipping, which must see true values). Too large a scale overflows: an inf/NaN anywhere makes the
step meaningless, so it is skipped and the scale backs off. The decision must be the same on every rank, or the
rank that saw the overflow skips while the others step and the replicas silently diverge: the flag is
all-reduced with MAX on every step (every rank calls the collective, overflow or not). After growth_interval
good steps in a row the scale grows again, probing for the largest scale that does not overflow; an overflow
restarts that count.
"""

import torch
import torch.distributed as dist


class DynamicLossScaler:
    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000) -> None:
        self._scale = float(init_scale)
        self.growth_factor, self.backoff_factor, self.growth_interval = growth_factor, backoff_factor, growth_interval
        self.good_steps = 0  # consecutive steps without inf/NaN since the last growth or overflow

    def get_scale(self) -> float:
        return self._scale

    def scale(self, loss: torch.Tensor) -> torch.Tensor:
        return loss * self._scale

    def step(self, optimizer: torch.optim.Optimizer, params: list[torch.nn.Parameter]) -> bool:
        found = torch.zeros(1)
        for p in params:
            if p.grad is None:
                continue
            p.grad.div_(self._scale)  # in place, so that clipping or logging after this sees true gradients
            if not torch.isfinite(p.grad).all():  # catches NaN as well as +-inf
                found.fill_(1.0)
        if dist.is_available() and dist.is_initialized():
            dist.all_reduce(found, op=dist.ReduceOp.MAX)  # one rank's overflow is every rank's overflow
        if found.item() > 0:
            self._scale *= self.backoff_factor
            self.good_steps = 0
            return False
        optimizer.step()
        self.good_steps += 1
        if self.good_steps == self.growth_interval:
            self._scale *= self.growth_factor
            self.good_steps = 0
        return True
