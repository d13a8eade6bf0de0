# expect-fail: one_all_reduce
"""A plausible wrong TP MLP: after the column-parallel linear it rebuilds the whole hidden activation (its own
columns, zeros elsewhere, then an all-reduce) and runs the second linear on all h features. The answer is
right, but it costs a second all-reduce of tokens·h elements, 4x the first, and the full w2."""
import torch
import torch.distributed as dist
import torch.nn.functional as F


def tp_mlp(x, w1, b1, w2, b2):
    rank, n = dist.get_rank(), dist.get_world_size()
    rows = torch.arange(w1.shape[0]).tensor_split(n)[rank]
    full = x.new_zeros(x.shape[0], w1.shape[0])
    full[:, rows] = F.gelu(F.linear(x, w1[rows], b1[rows]))
    dist.all_reduce(full)
    out = F.linear(full[:, rows], w2[:, rows])
    dist.all_reduce(out)
    return out + b2
