# expect-fail: combine_restores_order
"""A plausible wrong combine: dispatch is right, but the results are put back with the sort permutation itself,
back[order], instead of its inverse (out[order] = back), so the rows land on the wrong tokens."""
import torch
import torch.distributed as dist


def dispatch(tokens, expert_ids, num_experts):
    n = dist.get_world_size()
    order = torch.argsort(expert_ids, stable=True)
    send_counts = torch.bincount(expert_ids[order] // (num_experts // n), minlength=n)
    recv_counts = torch.empty_like(send_counts)
    dist.all_to_all_single(recv_counts, send_counts)
    send_sizes, recv_sizes = send_counts.tolist(), recv_counts.tolist()
    received = tokens.new_empty(sum(recv_sizes), tokens.shape[1])
    dist.all_to_all_single(received, tokens[order], recv_sizes, send_sizes)
    received_ids = expert_ids.new_empty(sum(recv_sizes))
    dist.all_to_all_single(received_ids, expert_ids[order], recv_sizes, send_sizes)
    return received, received_ids, (order, send_sizes, recv_sizes)


def combine(expert_outputs, handle):
    order, send_sizes, recv_sizes = handle
    back = expert_outputs.new_empty(len(order), expert_outputs.shape[1])
    dist.all_to_all_single(back, expert_outputs, send_sizes, recv_sizes)
    return back[order]
