# expect-fail: ring_volume
"""A plausible wrong all-reduce: every rank sends its whole tensor to every peer. Right mean, but (n-1)·S bytes
per rank instead of the ring's 2(n-1)/n·S (2S against 4/3·S on 3 ranks)."""
import torch
import torch.distributed as dist


def ring_all_reduce_mean(tensor: torch.Tensor) -> None:
    rank, n = dist.get_rank(), dist.get_world_size()
    flat = tensor.reshape(-1).clone()
    parts = [flat if r == rank else torch.empty_like(flat) for r in range(n)]
    ops = []
    for peer in range(n):
        if peer != rank:
            ops += [dist.P2POp(dist.isend, flat, peer), dist.P2POp(dist.irecv, parts[peer], peer)]
    for r in dist.batch_isend_irecv(ops):
        r.wait()
    tensor.copy_(torch.stack(parts).mean(0).view_as(tensor))
