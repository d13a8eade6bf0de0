# expect-fail: matches_adam
"""A plausible wrong ZeRO-1 step: m and v are created inside step(), fresh zeros every time (and the step count
is local as well), so every step is Adam's first step. Step 1 is right; from step 2 the moments have forgotten
the past and the parameters differ."""
import torch
import torch.distributed as dist


def gather(shard, sizes):
    n, longest = len(sizes), sizes[0]
    send = torch.zeros(longest)
    send[:len(shard)] = shard
    parts = [torch.empty(longest) for _ in range(n)]
    dist.all_gather(parts, send)
    return torch.cat([part[:size] for part, size in zip(parts, sizes, strict=True)])


class Zero1Adam:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        self.params, self.lr, self.betas, self.eps = list(params), lr, betas, eps
        rank, n = dist.get_rank(), dist.get_world_size()
        self.sizes = [len(s) for s in torch.empty(sum(p.numel() for p in self.params)).tensor_split(n)]
        self.lo, self.hi = sum(self.sizes[:rank]), sum(self.sizes[:rank + 1])

    @torch.no_grad()
    def step(self):
        b1, b2 = self.betas
        g = torch.cat([p.grad.flatten() for p in self.params])
        dist.all_reduce(g)
        g = g[self.lo:self.hi] / dist.get_world_size()
        t = 1
        self.exp_avg = torch.zeros_like(g).add_(g, alpha=1 - b1)
        self.exp_avg_sq = torch.zeros_like(g).addcmul_(g, g, value=1 - b2)
        m_hat = self.exp_avg / (1 - b1 ** t)
        v_hat = self.exp_avg_sq / (1 - b2 ** t)
        flat = torch.cat([p.flatten() for p in self.params])
        full = gather(flat[self.lo:self.hi] - self.lr * m_hat / (v_hat.sqrt() + self.eps), self.sizes)
        for p, new in zip(self.params, full.split([p.numel() for p in self.params]), strict=True):
            p.copy_(new.view_as(p))
