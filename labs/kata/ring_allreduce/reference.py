"""Reference: ring all-reduce (average) from send/recv.

The tensor is cut into n chunks (tensor_split: sizes differ by at most one, some may be empty). In the
reduce-scatter phase each rank passes one partial sum to its right neighbour and adds the one arriving
from its left, n-1 times; rank r then holds the full sum of chunk r+1. In the all-gather phase the
finished chunks go round once more. 2(n-1) messages of S/n bytes: 2(n-1)/n·S per rank, whatever n is.
Send and receive are posted together (batch_isend_irecv): with NCCL a lone blocking send to a neighbour
that is itself sending would deadlock.
"""

import torch
import torch.distributed as dist


def exchange(send: torch.Tensor, recv: torch.Tensor, to: int, frm: int) -> None:
    ops = [dist.P2POp(dist.isend, send.contiguous(), to), dist.P2POp(dist.irecv, recv, frm)]
    for req in dist.batch_isend_irecv(ops):
        req.wait()


def ring_all_reduce_mean(tensor: torch.Tensor) -> None:
    rank, n = dist.get_rank(), dist.get_world_size()
    flat = tensor.detach().reshape(-1).clone()
    chunks = list(flat.tensor_split(n))
    right, left = (rank + 1) % n, (rank - 1) % n
    for s in range(n - 1):  # reduce-scatter: pass on chunk (rank - s), add into chunk (rank - s - 1)
        out, into = chunks[(rank - s) % n], chunks[(rank - s - 1) % n]
        incoming = torch.empty_like(into)
        exchange(out, incoming, right, left)
        into.add_(incoming)
    for s in range(n - 1):  # all-gather: forward the finished chunks round the ring
        out, into = chunks[(rank + 1 - s) % n], chunks[(rank - s) % n]
        exchange(out, into, right, left)
    tensor.copy_(flat.view_as(tensor) / n)
