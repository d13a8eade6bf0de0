"""Collectives written by hand with point-to-point messages, apart from the labs that time and check them.

`ring_allreduce` is the algorithm NCCL and gloo use for large messages: the tensor is cut into n chunks;
in the reduce-scatter phase each rank sends one chunk to its right neighbour and adds the chunk coming
from its left one, n-1 times, after which rank r holds the full sum of chunk r+1; in the all-gather phase
the finished chunks travel once more around the ring, n-1 times. Every message is S/n bytes and there are
2(n-1) of them, so each rank sends 2(n-1)/n·S bytes whatever n is: the bandwidth-optimal volume.

`naive_allreduce` (every rank sends its whole tensor to every peer) gives the same sum for (n-1)·S bytes
per rank: as cheap as the ring for n = 2, worse from n = 3 on. Both return the bytes they sent, counted
from the tensors they actually passed to the send calls.

`BucketWatch` is a DDP communication hook: DDP's default averaging all-reduce of each gradient bucket,
plus a note of the bucket (index, size) and of when its all-reduce started and finished.
"""

# No `from __future__ import annotations` here: DDP checks a comm hook's annotations against the real classes.
import time
from typing import Any

import torch
import torch.distributed as dist
from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook


def exchange(send: torch.Tensor, recv: torch.Tensor, to: int, frm: int) -> int:
    """Send `send` to rank `to` while receiving into `recv` from rank `frm`; returns the bytes sent.

    Both messages go in one batch_isend_irecv: with NCCL, a lone blocking send to a neighbour that is
    itself sending would deadlock; batched, the send and the receive are posted together (gloo too)."""
    ops = [dist.P2POp(dist.isend, send, to), dist.P2POp(dist.irecv, recv, frm)]
    for req in dist.batch_isend_irecv(ops):
        req.wait()
    return send.numel() * send.element_size()


def ring_allreduce(tensor: torch.Tensor) -> int:
    """Sum `tensor` over all ranks in place with a chunked ring; returns the bytes this rank sent."""
    rank, n = dist.get_rank(), dist.get_world_size()
    if n == 1:
        return 0
    chunks = list(tensor.view(-1).tensor_split(n))  # views: the result lands in `tensor` itself
    right, left = (rank + 1) % n, (rank - 1) % n
    sent = 0
    # Reduce-scatter: at step s, pass on the partial sum of chunk (rank - s) and add to chunk (rank - s - 1).
    for s in range(n - 1):
        out, into = chunks[(rank - s) % n], chunks[(rank - s - 1) % n]
        incoming = torch.empty_like(into)
        sent += exchange(out, incoming, right, left)
        into.add_(incoming)
    # All-gather: rank r now owns the full sum of chunk r+1; forward finished chunks around the ring.
    for s in range(n - 1):
        out, into = chunks[(rank + 1 - s) % n], chunks[(rank - s) % n]
        sent += exchange(out, into, right, left)
    return sent


def naive_allreduce(tensor: torch.Tensor) -> int:
    """Sum `tensor` over all ranks in place by sending all of it to every peer; returns the bytes sent."""
    rank, n = dist.get_rank(), dist.get_world_size()
    parts = [tensor.clone() if r == rank else torch.empty_like(tensor) for r in range(n)]
    ops, sent = [], 0
    for peer in range(n):
        if peer != rank:
            ops += [dist.P2POp(dist.isend, parts[rank], peer), dist.P2POp(dist.irecv, parts[peer], peer)]
            sent += parts[rank].numel() * parts[rank].element_size()
    for req in dist.batch_isend_irecv(ops) if ops else []:
        req.wait()
    tensor.copy_(torch.stack(parts).sum(0))  # in rank order, the same on every rank
    return sent


ALGORITHMS = {"ring": ring_allreduce, "naive": naive_allreduce}


class BucketWatch:
    """A DDP comm hook: the default averaging all-reduce, plus a note of every bucket and its timing."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self.step, self.micro, self.communicate = 0, 0, True

    def hook(self, state: object, bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
        buf = bucket.buffer()
        call = {"step": self.step, "micro": self.micro, "index": bucket.index(), "numel": buf.numel(),
                "bytes": buf.numel() * buf.element_size(), "t0": time.perf_counter(), "t1": None}
        self.calls.append(call)
        if not self.communicate:  # timing baseline: keep the local gradient, send nothing
            fut: torch.futures.Future[torch.Tensor] = torch.futures.Future()
            fut.set_result(buf)
            return fut

        def done(f: torch.futures.Future[torch.Tensor]) -> torch.Tensor:
            call["t1"] = time.perf_counter()
            return f.value()

        return allreduce_hook(None, bucket).then(done)
