# expect-fail: averaged_grads
"""A plausible wrong bucketer: it only ever all-reduces buckets that fill up in the hook. finish() waits and
averages those, but never starts the last, partial bucket, so the first layers keep their local gradients."""
import torch
import torch.distributed as dist


class GradBucketer:
    def __init__(self, model, bucket_cap_bytes):
        self.world = dist.get_world_size()
        self.cap, self.bucket, self.size, self.works = bucket_cap_bytes, [], 0, []
        for p in model.parameters():
            if p.requires_grad:
                p.register_post_accumulate_grad_hook(self.hook)

    def hook(self, p):
        self.bucket.append(p)
        self.size += p.grad.numel() * p.grad.element_size()
        if self.size >= self.cap:
            flat = torch.cat([q.grad.flatten() for q in self.bucket])
            self.works.append((self.bucket, flat, dist.all_reduce(flat, async_op=True)))
            self.bucket, self.size = [], 0

    def finish(self):
        for params, flat, work in self.works:
            work.wait()
            flat /= self.world
            offset = 0
            for p in params:
                p.grad.copy_(flat[offset:offset + p.numel()].view_as(p))
                offset += p.numel()
        self.works, self.bucket, self.size = [], [], 0
