"""Reference: gradient buckets filled by post-accumulate hooks, all-reduced while backward still runs.

A hook fires once a parameter's .grad holds this step's gradient. The gradient joins the open bucket; when
the bucket reaches the cap, its gradients are copied into one flat tensor and a single asynchronous
all-reduce starts on it, so the network works on the layers near the output while autograd computes the
layers near the input. Large buckets mean few messages (less fixed latency per message), small ones an
earlier start. Only the last bucket can be partial: no later gradient will fill it, so finish() starts it.
Waiting, dividing and writing back wait for finish(): the optimizer must not read a gradient before its
bucket's all-reduce is done. Every rank runs the same model, so gradients become ready in the same order
and every rank starts the same buckets in the same order, which collectives require.
"""

import torch
import torch.distributed as dist
from torch import nn


class GradBucketer:
    def __init__(self, model: nn.Module, bucket_cap_bytes: int) -> None:
        self.world = dist.get_world_size()
        self.cap = bucket_cap_bytes
        self.open: list[torch.Tensor] = []  # parameters whose gradients sit in the open bucket
        self.open_bytes = 0
        self.started: list[tuple[list[torch.Tensor], torch.Tensor, dist.Work]] = []
        for p in model.parameters():
            if p.requires_grad:  # a frozen parameter cannot take a hook, and gets no gradient anyway
                p.register_post_accumulate_grad_hook(self._ready)

    def _ready(self, p: torch.Tensor) -> None:
        self.open.append(p)
        self.open_bytes += p.grad.numel() * p.grad.element_size()
        if self.open_bytes >= self.cap:
            self._start()

    def _start(self) -> None:
        params = self.open
        # One flat copy per bucket: one message instead of one per parameter. (DDP keeps persistent bucket
        # buffers, and with gradient_as_bucket_view makes .grad a view of them to save this copy.)
        flat = torch.cat([p.grad.reshape(-1) for p in params])
        self.started.append((params, flat, dist.all_reduce(flat, async_op=True)))
        self.open, self.open_bytes = [], 0

    def finish(self) -> None:
        if self.open:  # the last, partial bucket
            self._start()
        for params, flat, work in self.started:
            work.wait()
            flat.div_(self.world)  # all_reduce sums; the gradient DDP wants is the mean
            for p, g in zip(params, flat.split([p.numel() for p in params]), strict=True):
                p.grad.copy_(g.view_as(p.grad))
        self.started = []  # the next iteration starts from nothing
