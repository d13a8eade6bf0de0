# expect-fail: matches_full_attention
"""A plausible wrong merge: the running maximum and the running sum are updated correctly, but the output
accumulator is not multiplied by exp(m_old - m_new) when the maximum grows, so the blocks seen before the new
maximum keep too much weight."""
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
    for hop in range(n):
        s = q @ kb.T * scale
        m_new = torch.maximum(m, s.max(-1, keepdim=True).values)
        p = torch.exp(s - m_new)
        total = total * torch.exp(m - m_new) + p.sum(-1, keepdim=True)
        acc = acc + p @ vb  # forgot: acc * exp(m - m_new)
        m = m_new
        if hop < n - 1:
            kn, vn = torch.empty_like(kb), torch.empty_like(vb)
            ops = [dist.P2POp(dist.isend, kb, (rank + 1) % n), dist.P2POp(dist.isend, vb, (rank + 1) % n),
                   dist.P2POp(dist.irecv, kn, (rank - 1) % n), dist.P2POp(dist.irecv, vn, (rank - 1) % n)]
            for r in dist.batch_isend_irecv(ops):
                r.wait()
            kb, vb = kn, vn
    return acc / total
