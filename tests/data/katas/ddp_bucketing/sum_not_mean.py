# expect-fail: averaged_grads
"""A plausible wrong bucketer: buckets, hooks and overlap are right, but it writes back the all-reduce's result
as it is: the sum of the ranks' gradients, not their mean (no division by the world size)."""
import torch
import torch.distributed as dist


class GradBucketer:
    def __init__(self, model, bucket_cap_bytes):
        self.cap, self.bucket, self.size, self.works = bucket_cap_bytes, [], 0, []
        for p in model.parameters():
            if p.requires_grad:
                p.register_post_accumulate_grad_hook(self.hook)

    def hook(self, p):
        self.bucket.append(p)
        self.size += p.grad.numel() * p.grad.element_size()
        if self.size >= self.cap:
            self.launch()

    def launch(self):
        flat = torch.cat([p.grad.flatten() for p in self.bucket])
        self.works.append((self.bucket, flat, dist.all_reduce(flat, async_op=True)))
        self.bucket, self.size = [], 0

    def finish(self):
        if self.bucket:
            self.launch()
        for params, flat, work in self.works:
            work.wait()
            offset = 0
            for p in params:
                p.grad.copy_(flat[offset:offset + p.numel()].view_as(p))
                offset += p.numel()
        self.works = []
