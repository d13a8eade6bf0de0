# expect-fail: ring_volume
"""A plausible wrong reduce-scatter: every rank sends its whole tensor to every peer and each keeps the slice it
owns of the sum. Right values, but (n-1)·S bytes per rank instead of the ring's (n-1)/n·S. The all-gather is
right."""
import torch
import torch.distributed as dist


def reduce_scatter_sum(tensor: torch.Tensor) -> torch.Tensor:
    rank, n = dist.get_rank(), dist.get_world_size()
    flat = tensor.reshape(-1).contiguous()
    parts = [flat if r == rank else torch.empty_like(flat) for r in range(n)]
    ops = []
    for peer in range(n):
        if peer != rank:
            ops += [dist.P2POp(dist.isend, flat, peer), dist.P2POp(dist.irecv, parts[peer], peer)]
    for r in dist.batch_isend_irecv(ops):
        r.wait()
    return torch.stack(parts).sum(0).tensor_split(n)[rank].clone()


def all_gather_concat(chunk: torch.Tensor, numel: int) -> torch.Tensor:
    rank, n = dist.get_rank(), dist.get_world_size()
    flat = torch.empty(numel, dtype=chunk.dtype)
    chunks = flat.tensor_split(n)
    chunks[rank].copy_(chunk)
    for s in range(n - 1):
        ops = [dist.P2POp(dist.isend, chunks[(rank - s) % n], (rank + 1) % n),
               dist.P2POp(dist.irecv, chunks[(rank - s - 1) % n], (rank - 1) % n)]
        for r in dist.batch_isend_irecv(ops):
            r.wait()
    return flat
