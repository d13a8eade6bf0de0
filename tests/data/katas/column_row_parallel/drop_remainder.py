# expect-fail: uneven_hidden
"""A plausible wrong TP MLP: every rank takes h // n hidden features, rows rank·(h//n) on, so when n does not
divide h the last h % n features belong to nobody and their contribution is lost."""
import torch.distributed as dist
import torch.nn.functional as F


def tp_mlp(x, w1, b1, w2, b2):
    rank, n = dist.get_rank(), dist.get_world_size()
    size = w1.shape[0] // n
    lo, hi = rank * size, (rank + 1) * size
    hidden = F.gelu(F.linear(x, w1[lo:hi], b1[lo:hi]))
    out = F.linear(hidden, w2[:, lo:hi])
    dist.all_reduce(out)
    return out + b2
