# expect-fail: bytes_moved
"""A plausible wrong dispatch: every rank sends all its tokens to every rank and each receiver keeps the ones
for its own experts. The answers are right, but each token crosses the network n - 1 times instead of once
(at most), (n - 1)·T·d floats per rank instead of the tokens that actually leave."""
import torch
import torch.distributed as dist


def dispatch(tokens, expert_ids, num_experts):
    rank, n = dist.get_rank(), dist.get_world_size()
    per = num_experts // n
    mine = torch.tensor([len(tokens)] * n)
    theirs = torch.empty_like(mine)
    dist.all_to_all_single(theirs, mine)
    sizes = theirs.tolist()
    everything = tokens.new_empty(sum(sizes), tokens.shape[1])
    dist.all_to_all_single(everything, tokens.repeat(n, 1), sizes, [len(tokens)] * n)
    all_ids = expert_ids.new_empty(sum(sizes))
    dist.all_to_all_single(all_ids, expert_ids.repeat(n), sizes, [len(tokens)] * n)
    keep = all_ids // per == rank
    # what goes back: per sender, how many of its tokens this rank kept
    kept = [int(k.sum()) for k in keep.split(sizes)]
    order = torch.argsort(expert_ids // per, stable=True)
    back_sizes = torch.bincount(expert_ids // per, minlength=n).tolist()
    return everything[keep], all_ids[keep], (order, kept, back_sizes)


def combine(expert_outputs, handle):
    order, kept, back_sizes = handle
    back = expert_outputs.new_empty(len(order), expert_outputs.shape[1])
    dist.all_to_all_single(back, expert_outputs, back_sizes, kept)
    out = torch.empty_like(back)
    out[order] = back
    return out
