"""Reference: ZeRO-1 Adam. Every rank keeps m and v for its shard only, and all ranks end with all parameters.

The flat parameter vector is cut with tensor_split; rank r owns shard r. A step reduce-scatters the gradients
(each rank receives the sum of its own shard only, (n-1)/n·S per rank), divides by n, runs Adam on the
shard and all-gathers the updated shards (another (n-1)/n·S): the same traffic as the all-reduce of plain data
parallel, while the optimizer state, 8 bytes per element here, shrinks to 1/n. gloo's collectives want equal
sizes, so every shard travels padded to the longest one, L = ceil(P/n), and the padding is dropped again.
"""

from collections.abc import Iterable

import torch
import torch.distributed as dist


class Zero1Adam:
    def __init__(self, params: Iterable[torch.Tensor], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8) -> None:
        self.params = list(params)
        self.rank, self.world = dist.get_rank(), dist.get_world_size()
        self.lr, (self.beta1, self.beta2), self.eps = lr, betas, eps
        total = sum(p.numel() for p in self.params)
        self.sizes = [len(s) for s in torch.empty(total).tensor_split(self.world)]  # every shard's size
        self.lo = sum(self.sizes[:self.rank])
        self.hi = self.lo + self.sizes[self.rank]
        self.exp_avg = torch.zeros(self.sizes[self.rank])     # 1/n of the state, not P
        self.exp_avg_sq = torch.zeros(self.sizes[self.rank])
        self.t = 0  # one count for the whole shard: every element has been stepped as often

    def padded(self, flat: torch.Tensor) -> torch.Tensor:
        """[n, L]: row i is shard i, zero-padded to the longest shard, for gloo's equal-size collectives."""
        rows = torch.zeros(self.world, self.sizes[0])
        for i, shard in enumerate(flat.tensor_split(self.world)):
            rows[i, :len(shard)] = shard
        return rows

    @torch.no_grad()
    def step(self) -> None:
        n, lo, hi = self.world, self.lo, self.hi
        grads = torch.cat([p.grad.reshape(-1) for p in self.params]).float()
        mine = torch.empty(self.sizes[0])
        dist.reduce_scatter_tensor(mine, self.padded(grads).reshape(-1))  # the sum of my shard only
        g = mine[:hi - lo] / n  # the mean: what one process would see on the whole global batch

        self.t += 1
        self.exp_avg.mul_(self.beta1).add_(g, alpha=1 - self.beta1)
        self.exp_avg_sq.mul_(self.beta2).addcmul_(g, g, value=1 - self.beta2)
        bias1, bias2 = 1 - self.beta1 ** self.t, 1 - self.beta2 ** self.t  # the moments start at 0: undo that pull
        denom = (self.exp_avg_sq / bias2).sqrt().add_(self.eps)
        flat = torch.cat([p.detach().reshape(-1) for p in self.params])
        shard = flat[lo:hi] - self.lr * (self.exp_avg / bias1) / denom

        # Everyone needs every updated shard before the next forward: all-gather them, padded, then unpad.
        out = torch.empty(n * self.sizes[0])
        send = torch.zeros(self.sizes[0])
        send[:hi - lo] = shard
        dist.all_gather_into_tensor(out, send)
        full = torch.cat([row[:size] for row, size in zip(out.view(n, -1), self.sizes, strict=True)])
        for p, new in zip(self.params, full.split([p.numel() for p in self.params]), strict=True):
            p.copy_(new.view_as(p))
