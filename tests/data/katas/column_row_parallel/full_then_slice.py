# expect-fail: shard_flops
"""A plausible wrong TP MLP: it computes the whole first linear, x @ w1.T for all h features, and slices this
rank's columns afterwards. The output is right (even with NaN outside the shard, which stays in the columns
thrown away), but every rank does the whole first product: no saving from tensor parallelism there."""
import torch
import torch.distributed as dist
import torch.nn.functional as F


def tp_mlp(x, w1, b1, w2, b2):
    rank, n = dist.get_rank(), dist.get_world_size()
    rows = torch.arange(w1.shape[0]).tensor_split(n)[rank]
    hidden = F.gelu(F.linear(x, w1, b1)[:, rows])
    out = F.linear(hidden, w2[:, rows])
    dist.all_reduce(out)
    return out + b2
