# expect-fail: matches_full_attention
"""A plausible wrong merge: each block's attention is computed with its own local softmax, and the block outputs
are averaged. Each partial output is normalised by its own block's sum, so the blocks need weights proportional
to their sums (relative to a common maximum); an equal-weight average is not the softmax over the sequence."""
import torch
import torch.distributed as dist


def ring_attention(q, k, v):
    rank, n = dist.get_rank(), dist.get_world_size()
    out = torch.zeros(q.shape[0], v.shape[-1])
    kb, vb = k.clone(), v.clone()
    for hop in range(n):
        out += torch.softmax(q @ kb.T / q.shape[-1] ** 0.5, dim=-1) @ vb
        if hop < n - 1:
            kn, vn = torch.empty_like(kb), torch.empty_like(vb)
            ops = [dist.P2POp(dist.isend, kb, (rank + 1) % n), dist.P2POp(dist.isend, vb, (rank + 1) % n),
                   dist.P2POp(dist.irecv, kn, (rank - 1) % n), dist.P2POp(dist.irecv, vn, (rank - 1) % n)]
            for r in dist.batch_isend_irecv(ops):
                r.wait()
            kb, vb = kn, vn
    return out / n
