# expect-fail: ring_volume
"""A plausible wrong ring: the loop sends and receives on every one of its n iterations, so each K/V block makes
a full circle back to its owner: the right result, but n·(|k| + |v|) bytes per rank instead of (n-1)·(...)."""
import math

import torch
import torch.distributed as dist


def ring_attention(q, k, v):
    rank, n = dist.get_rank(), dist.get_world_size()
    scale = 1.0 / math.sqrt(q.shape[-1])
    m = torch.full((q.shape[0], 1), -math.inf)
    total = torch.zeros(q.shape[0], 1)
    acc = torch.zeros(q.shape[0], v.shape[-1])
    kb, vb = k.clone(), v.clone()
    for _ in range(n):
        s = q @ kb.T * scale
        m_new = torch.maximum(m, s.max(-1, keepdim=True).values)
        p = torch.exp(s - m_new)
        fix = torch.exp(m - m_new)
        total = total * fix + p.sum(-1, keepdim=True)
        acc = acc * fix + p @ vb
        m = m_new
        kn, vn = torch.empty_like(kb), torch.empty_like(vb)
        ops = [dist.P2POp(dist.isend, kb, (rank + 1) % n), dist.P2POp(dist.isend, vb, (rank + 1) % n),
               dist.P2POp(dist.irecv, kn, (rank - 1) % n), dist.P2POp(dist.irecv, vn, (rank - 1) % n)]
        for r in dist.batch_isend_irecv(ops):
            r.wait()
        kb, vb = kn, vn
    return acc / total
