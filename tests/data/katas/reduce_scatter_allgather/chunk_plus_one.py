# expect-fail: owns_chunk_r
"""A plausible wrong reduce-scatter: the ring all-reduce's first phase copied as it is. Its n-1 steps end with
rank r holding the complete sum of chunk r+1, and the function returns that, not chunk r (the final shift is
missing). The all-gather is right."""
import torch
import torch.distributed as dist


def swap(send, recv, to, frm):
    for r in dist.batch_isend_irecv([dist.P2POp(dist.isend, send, to), dist.P2POp(dist.irecv, recv, frm)]):
        r.wait()


def reduce_scatter_sum(tensor: torch.Tensor) -> torch.Tensor:
    rank, n = dist.get_rank(), dist.get_world_size()
    chunks = list(tensor.reshape(-1).clone().tensor_split(n))
    right, left = (rank + 1) % n, (rank - 1) % n
    for s in range(n - 1):
        out, into = chunks[(rank - s) % n], chunks[(rank - s - 1) % n]
        incoming = torch.empty_like(into)
        swap(out, incoming, right, left)
        into.add_(incoming)
    return chunks[(rank + 1) % n]


def all_gather_concat(chunk: torch.Tensor, numel: int) -> torch.Tensor:
    rank, n = dist.get_rank(), dist.get_world_size()
    flat = torch.empty(numel, dtype=chunk.dtype)
    chunks = flat.tensor_split(n)
    chunks[rank].copy_(chunk)
    for s in range(n - 1):
        swap(chunks[(rank - s) % n], chunks[(rank - s - 1) % n], (rank + 1) % n, (rank - 1) % n)
    return flat
