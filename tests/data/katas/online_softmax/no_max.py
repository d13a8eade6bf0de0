# expect-fail: large_logits
"""A plausible wrong merge: no running maximum at all, just sum exp(s) and exp(s)·v over the blocks and divide at
the end. Mathematically the same softmax and exact for small scores, but exp overflows float32 once a score
passes about 88.7: inf / inf gives NaN."""
import math

import torch
import torch.distributed as dist


def ring_attention(q, k, v):
    rank, n = dist.get_rank(), dist.get_world_size()
    scale = 1.0 / math.sqrt(q.shape[-1])
    total = torch.zeros(q.shape[0], 1)
    acc = torch.zeros(q.shape[0], v.shape[-1])
    kb, vb = k.clone(), v.clone()
    for hop in range(n):
        p = torch.exp(q @ kb.T * scale)
        total += p.sum(-1, keepdim=True)
        acc += p @ vb
        if hop < n - 1:
            kn, vn = torch.empty_like(kb), torch.empty_like(vb)
            ops = [dist.P2POp(dist.isend, kb, (rank + 1) % n), dist.P2POp(dist.isend, vb, (rank + 1) % n),
                   dist.P2POp(dist.irecv, kn, (rank - 1) % n), dist.P2POp(dist.irecv, vn, (rank - 1) % n)]
            for r in dist.batch_isend_irecv(ops):
                r.wait()
            kb, vb = kn, vn
    return acc / total
