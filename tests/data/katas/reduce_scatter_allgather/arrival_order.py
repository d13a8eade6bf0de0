# expect-fail: gather_rank_order
"""A plausible wrong all-gather: the ring itself is right, but the chunks are concatenated in the order they
arrive (own chunk first, then r-1, r-2, ...), not in rank order. The reduce-scatter is right."""
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
        out, into = chunks[(rank - s - 1) % n], chunks[(rank - s - 2) % n]
        incoming = torch.empty_like(into)
        swap(out, incoming, right, left)
        into.add_(incoming)
    return chunks[rank]


def all_gather_concat(chunk: torch.Tensor, numel: int) -> torch.Tensor:
    rank, n = dist.get_rank(), dist.get_world_size()
    sizes = [len(c) for c in torch.empty(numel).tensor_split(n)]
    received, current = [chunk], chunk
    for s in range(n - 1):
        incoming = torch.empty(sizes[(rank - s - 1) % n], dtype=chunk.dtype)
        swap(current, incoming, (rank + 1) % n, (rank - 1) % n)
        received.append(incoming)
        current = incoming
    return torch.cat(received)
