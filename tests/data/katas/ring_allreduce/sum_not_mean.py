# expect-fail: even_split
"""A plausible wrong ring: right chunks, right volume, but it forgets to divide by n (a sum, not a mean)."""
import torch
import torch.distributed as dist


def ring_all_reduce_mean(tensor: torch.Tensor) -> None:
    rank, n = dist.get_rank(), dist.get_world_size()
    chunks = list(tensor.view(-1).tensor_split(n))
    right, left = (rank + 1) % n, (rank - 1) % n
    for s in range(n - 1):
        out, into = chunks[(rank - s) % n], chunks[(rank - s - 1) % n]
        incoming = torch.empty_like(into)
        reqs = dist.batch_isend_irecv([dist.P2POp(dist.isend, out, right), dist.P2POp(dist.irecv, incoming, left)])
        for r in reqs:
            r.wait()
        into.add_(incoming)
    for s in range(n - 1):
        out, into = chunks[(rank + 1 - s) % n], chunks[(rank - s) % n]
        reqs = dist.batch_isend_irecv([dist.P2POp(dist.isend, out, right), dist.P2POp(dist.irecv, into, left)])
        for r in reqs:
            r.wait()
