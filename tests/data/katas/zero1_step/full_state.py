# expect-fail: state_is_sharded
"""A plausible wrong ZeRO-1: plain data-parallel Adam in disguise. Every rank keeps m and v for all P elements
and updates every parameter (so the parameters are right), and exposes only its shard's slice as exp_avg and
exp_avg_sq. The slices look the right size, but they are views of full-size tensors: no memory is saved."""
import torch
import torch.distributed as dist


class Zero1Adam:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        self.params, self.lr, self.betas, self.eps, self.t = list(params), lr, betas, eps, 0
        rank, n = dist.get_rank(), dist.get_world_size()
        total = sum(p.numel() for p in self.params)
        sizes = [len(s) for s in torch.empty(total).tensor_split(n)]
        lo, hi = sum(sizes[:rank]), sum(sizes[:rank + 1])
        self.m, self.v = torch.zeros(total), torch.zeros(total)
        self.exp_avg, self.exp_avg_sq = self.m[lo:hi], self.v[lo:hi]

    @torch.no_grad()
    def step(self):
        b1, b2 = self.betas
        g = torch.cat([p.grad.flatten() for p in self.params])
        dist.all_reduce(g)
        g /= dist.get_world_size()
        self.t += 1
        self.m.mul_(b1).add_(g, alpha=1 - b1)
        self.v.mul_(b2).addcmul_(g, g, value=1 - b2)
        update = self.lr * (self.m / (1 - b1 ** self.t)) / ((self.v / (1 - b2 ** self.t)).sqrt() + self.eps)
        for p, u in zip(self.params, update.split([p.numel() for p in self.params]), strict=True):
            p.sub_(u.view_as(p))
