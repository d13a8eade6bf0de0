"""Reference: ring attention, merging K/V blocks with the online softmax.

Softmax over a row needs its maximum and its sum, which depend on every block; the online rule keeps them
running. For each arriving block: m' = max(m, block max); the old sum l and the old (unnormalised) output were
computed relative to m, so both are multiplied by exp(m - m') before the block's exp(s - m') terms are added.
Every exp has an argument <= 0, so nothing overflows however large the scores are; dividing by l once at the
end gives exactly softmax·V, not an approximation. The K/V block goes to the right neighbour and the next one
comes from the left; after n-1 hops every rank has seen every block, and the last block it holds is not sent
on: (n-1)·(|k| + |v|) bytes per rank. The next block's transfer is posted before this block's compute, the
overlap that hides the communication in real Ring Attention.
"""

import math

import torch
import torch.distributed as dist


def ring_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    scale = 1.0 / math.sqrt(q.shape[-1])
    m = torch.full((q.shape[0], 1), -math.inf, dtype=q.dtype)  # running row maximum
    total = torch.zeros(q.shape[0], 1, dtype=q.dtype)  # running sum of exp(s - m): the softmax's denominator
    acc = torch.zeros(q.shape[0], v.shape[-1], dtype=q.dtype)  # running sum of exp(s - m)·v, unnormalised
    kb, vb = k.contiguous().clone(), v.contiguous().clone()  # our own copies: the caller's k, v stay intact
    for hop in range(n):
        reqs = []
        if hop < n - 1:  # post the next block's transfer first, compute on this one meanwhile
            kn, vn = torch.empty_like(kb), torch.empty_like(vb)
            reqs = dist.batch_isend_irecv([dist.P2POp(dist.isend, kb, right), dist.P2POp(dist.isend, vb, right),
                                           dist.P2POp(dist.irecv, kn, left), dist.P2POp(dist.irecv, vn, left)])
        s = (q @ kb.T) * scale
        m_new = torch.maximum(m, s.max(dim=-1, keepdim=True).values)
        fix = torch.exp(m - m_new)  # rescales what was accumulated relative to the old maximum (0 at first)
        p = torch.exp(s - m_new)
        total = total * fix + p.sum(dim=-1, keepdim=True)
        acc = acc * fix + p @ vb
        m = m_new
        for r in reqs:
            r.wait()
        if hop < n - 1:
            kb, vb = kn, vn
    return acc / total
