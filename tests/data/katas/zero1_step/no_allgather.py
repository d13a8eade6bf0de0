# expect-fail: matches_adam
"""A plausible wrong ZeRO-1 step: averaging and Adam on the shard are right, but the updated shard is only
written into this rank's own parameters. Nothing is gathered, so every other shard stays at its old values on
this rank, and the ranks' parameters drift apart."""
import torch
import torch.distributed as dist


class Zero1Adam:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        self.params, self.lr, self.betas, self.eps, self.t = list(params), lr, betas, eps, 0
        rank, n = dist.get_rank(), dist.get_world_size()
        sizes = [len(s) for s in torch.empty(sum(p.numel() for p in self.params)).tensor_split(n)]
        self.lo, self.hi = sum(sizes[:rank]), sum(sizes[:rank + 1])
        self.exp_avg = torch.zeros(sizes[rank])
        self.exp_avg_sq = torch.zeros(sizes[rank])

    @torch.no_grad()
    def step(self):
        b1, b2 = self.betas
        g = torch.cat([p.grad.flatten() for p in self.params])
        dist.all_reduce(g)
        g = g[self.lo:self.hi] / dist.get_world_size()
        self.t += 1
        self.exp_avg.mul_(b1).add_(g, alpha=1 - b1)
        self.exp_avg_sq.mul_(b2).addcmul_(g, g, value=1 - b2)
        m_hat = self.exp_avg / (1 - b1 ** self.t)
        v_hat = self.exp_avg_sq / (1 - b2 ** self.t)
        flat = torch.cat([p.flatten() for p in self.params])
        flat[self.lo:self.hi] -= self.lr * m_hat / (v_hat.sqrt() + self.eps)
        offset = 0
        for p in self.params:  # only my shard changed in `flat`: the rest is what this rank had before
            p.copy_(flat[offset:offset + p.numel()].view_as(p))
            offset += p.numel()
