# expect-fail: only_own_shard
"""A plausible wrong TP MLP: "column-parallel" read as cutting w1 by its columns (the input features), with x cut
to match. Each rank then holds a partial sum of the pre-activation for all h features, passes it through gelu
(which is not additive) and reads every row of w1, the other rank's included."""
import torch.distributed as dist
import torch.nn.functional as F


def tp_mlp(x, w1, b1, w2, b2):
    rank, n = dist.get_rank(), dist.get_world_size()
    cols = x.shape[1]
    lo, hi = rank * cols // n, (rank + 1) * cols // n
    hidden = F.gelu(F.linear(x[:, lo:hi], w1[:, lo:hi], b1 / n))
    out = F.linear(hidden, w2) / n
    dist.all_reduce(out)
    return out + b2
