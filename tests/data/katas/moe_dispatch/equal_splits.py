# expect-fail: routes_to_owner
"""A plausible wrong dispatch: the tokens are sorted by destination, but no counts are exchanged and
all_to_all_single is called without split sizes, as if every rank sent every other rank the same number of
tokens. With top-1 routing the counts differ, so the rows cannot be split evenly (or go to the wrong rank)."""
import torch
import torch.distributed as dist


def dispatch(tokens, expert_ids, num_experts):
    order = torch.argsort(expert_ids, stable=True)
    received = torch.empty_like(tokens)
    dist.all_to_all_single(received, tokens[order])
    received_ids = torch.empty_like(expert_ids)
    dist.all_to_all_single(received_ids, expert_ids[order])
    return received, received_ids, order


def combine(expert_outputs, handle):
    order = handle
    back = torch.empty_like(expert_outputs)
    dist.all_to_all_single(back, expert_outputs)
    out = torch.empty_like(back)
    out[order] = back
    return out
