# expect-fail: frozen_layer
"""A plausible wrong bucketer: it hooks every parameter, frozen or not. Fine while every parameter trains, but
a parameter with requires_grad=False cannot take a hook (register_post_accumulate_grad_hook raises), and it
would never become ready anyway."""
import torch
import torch.distributed as dist


class GradBucketer:
    def __init__(self, model, bucket_cap_bytes):
        self.world = dist.get_world_size()
        self.cap, self.bucket, self.size, self.works = bucket_cap_bytes, [], 0, []
        for p in model.parameters():
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
            flat /= self.world
            for p, g in zip(params, flat.split([p.numel() for p in params]), strict=True):
                p.grad.copy_(g.view_as(p))
        self.works = []
