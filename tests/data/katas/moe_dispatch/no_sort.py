# expect-fail: routes_to_owner
"""A plausible wrong dispatch: the per-rank counts are right and exchanged, but the tokens are sent in their
original order, not grouped by destination. all_to_all_single cuts the input into consecutive splits, so the
first count's worth of rows goes to rank 0 whatever their experts are."""
import torch
import torch.distributed as dist


def dispatch(tokens, expert_ids, num_experts):
    n = dist.get_world_size()
    send_counts = torch.bincount(expert_ids // (num_experts // n), minlength=n)
    recv_counts = torch.empty_like(send_counts)
    dist.all_to_all_single(recv_counts, send_counts)
    send_sizes, recv_sizes = send_counts.tolist(), recv_counts.tolist()
    received = tokens.new_empty(sum(recv_sizes), tokens.shape[1])
    dist.all_to_all_single(received, tokens, recv_sizes, send_sizes)
    received_ids = expert_ids.new_empty(sum(recv_sizes))
    dist.all_to_all_single(received_ids, expert_ids, recv_sizes, send_sizes)
    return received, received_ids, (send_sizes, recv_sizes)


def combine(expert_outputs, handle):
    send_sizes, recv_sizes = handle
    back = expert_outputs.new_empty(sum(send_sizes), expert_outputs.shape[1])
    dist.all_to_all_single(back, expert_outputs, send_sizes, recv_sizes)
    return back
