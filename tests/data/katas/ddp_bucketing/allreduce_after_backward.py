# expect-fail: overlaps_backward
"""A plausible wrong bucketer: the hooks only note which gradients are ready, and finish() all-reduces all of
them in one flat tensor after backward. Right gradients, but no overlap with backward (and one call, not one
per bucket)."""
import torch
import torch.distributed as dist


class GradBucketer:
    def __init__(self, model, bucket_cap_bytes):
        self.world, self.ready = dist.get_world_size(), []
        for p in model.parameters():
            if p.requires_grad:
                p.register_post_accumulate_grad_hook(self.ready.append)

    def finish(self):
        flat = torch.cat([p.grad.flatten() for p in self.ready])
        dist.all_reduce(flat)
        flat /= self.world
        for p, g in zip(self.ready, flat.split([p.numel() for p in self.ready]), strict=True):
            p.grad.copy_(g.view_as(p))
        self.ready = []
