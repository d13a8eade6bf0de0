# expect-fail: routes_to_owner
"""A plausible wrong dispatch: tokens sorted and split by destination, but the counts are not exchanged; the
receiver sizes its buffer and splits with its own send counts, as if every pair of ranks traded as many
tokens each way. The receive sizes do not match what the peers send."""
import torch
import torch.distributed as dist


def dispatch(tokens, expert_ids, num_experts):
    n = dist.get_world_size()
    order = torch.argsort(expert_ids, stable=True)
    sizes = torch.bincount(expert_ids // (num_experts // n), minlength=n).tolist()
    received = tokens.new_empty(sum(sizes), tokens.shape[1])
    dist.all_to_all_single(received, tokens[order], sizes, sizes)
    received_ids = expert_ids.new_empty(sum(sizes))
    dist.all_to_all_single(received_ids, expert_ids[order], sizes, sizes)
    return received, received_ids, (order, sizes)


def combine(expert_outputs, handle):
    order, sizes = handle
    back = expert_outputs.new_empty(len(order), expert_outputs.shape[1])
    dist.all_to_all_single(back, expert_outputs, sizes, sizes)
    out = torch.empty_like(back)
    out[order] = back
    return out
