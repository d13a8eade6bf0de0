"""Reference: reduce-scatter (sum) and all-gather from send/recv, rank r owning chunk r.

Both are rings of n-1 steps, each rank sending one chunk to its right neighbour and receiving one from its
left. In the ring all-reduce's first phase chunk c starts at rank c and ends, complete, at rank c-1; here
every index is shifted back by one, so chunk c starts at rank c+1 and its n-1 hops end at rank c, the rank
that owns it. The all-gather then starts with every rank sending the chunk it owns. Each step moves S/n
bytes, so each function sends (n-1)/n·S per rank. Send and receive are posted together (batch_isend_irecv):
a lone blocking send to a neighbour that is itself sending can deadlock.
"""

import torch
import torch.distributed as dist


def exchange(send: torch.Tensor, recv: torch.Tensor, to: int, frm: int) -> None:
    ops = [dist.P2POp(dist.isend, send.contiguous(), to), dist.P2POp(dist.irecv, recv, frm)]
    for req in dist.batch_isend_irecv(ops):
        req.wait()


def reduce_scatter_sum(tensor: torch.Tensor) -> torch.Tensor:
    rank, n = dist.get_rank(), dist.get_world_size()
    chunks = list(tensor.detach().reshape(-1).clone().tensor_split(n))  # a copy: the caller's tensor stays as it was
    right, left = (rank + 1) % n, (rank - 1) % n
    for s in range(n - 1):  # pass on partial sum (rank - s - 1), add the arriving one into (rank - s - 2)
        out, into = chunks[(rank - s - 1) % n], chunks[(rank - s - 2) % n]
        incoming = torch.empty_like(into)  # a separate buffer: `into` is still needed for the add
        exchange(out, incoming, right, left)
        into.add_(incoming)
    return chunks[rank].clone()  # after the last add, chunk `rank` holds all n contributions


def all_gather_concat(chunk: torch.Tensor, numel: int) -> torch.Tensor:
    rank, n = dist.get_rank(), dist.get_world_size()
    flat = torch.empty(numel, dtype=chunk.dtype)
    chunks = flat.tensor_split(n)  # the same cut as the sender's: every rank knows every chunk's size from numel
    chunks[rank].copy_(chunk.reshape(-1))
    right, left = (rank + 1) % n, (rank - 1) % n
    for s in range(n - 1):  # forward chunk (rank - s), receive chunk (rank - s - 1) straight into its place
        exchange(chunks[(rank - s) % n], chunks[(rank - s - 1) % n], right, left)
    return flat
