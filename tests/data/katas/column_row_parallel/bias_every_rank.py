# expect-fail: bias_added_once
"""A plausible wrong TP MLP: the row-parallel layer adds b2 on every rank before the all-reduce, as a plain
nn.Linear would, so the sum carries n copies of the bias."""
import torch
import torch.distributed as dist
import torch.nn.functional as F


def tp_mlp(x, w1, b1, w2, b2):
    rank, n = dist.get_rank(), dist.get_world_size()
    rows = torch.arange(w1.shape[0]).tensor_split(n)[rank]
    hidden = F.gelu(F.linear(x, w1[rows], b1[rows]))
    out = F.linear(hidden, w2[:, rows], b2)
    dist.all_reduce(out)
    return out
