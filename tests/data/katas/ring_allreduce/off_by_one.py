# expect-fail: even_split
"""A plausible wrong ring: the all-gather starts from chunk `rank` instead of `rank + 1`, the chunk this rank
has not finished, so stale partial sums overwrite finished ones."""
import torch
import torch.distributed as dist


def swap(send, recv, to, frm):
    for r in dist.batch_isend_irecv([dist.P2POp(dist.isend, send, to), dist.P2POp(dist.irecv, recv, frm)]):
        r.wait()


def ring_all_reduce_mean(tensor: torch.Tensor) -> None:
    rank, n = dist.get_rank(), dist.get_world_size()
    chunks = list(tensor.view(-1).tensor_split(n))
    right, left = (rank + 1) % n, (rank - 1) % n
    for s in range(n - 1):
        out, into = chunks[(rank - s) % n], chunks[(rank - s - 1) % n]
        incoming = torch.empty_like(into)
        swap(out, incoming, right, left)
        into.add_(incoming)
    for s in range(n - 1):
        out, into = chunks[(rank - s) % n], chunks[(rank - s - 1) % n]
        swap(out, into, right, left)
    tensor.div_(n)
