"""Reference: top-1 MoE dispatch and combine over all_to_all_single.

all_to_all_single sends input rows in rank order: the first input_split_sizes[0] rows to rank 0, the next to
rank 1, and so on. So the tokens are first sorted by destination (a stable sort by expert id does it, since
each rank's experts are consecutive), the permutation is kept, and the per-rank counts are exchanged with one
all_to_all_single of their own: nobody knows in advance how many rows will arrive from each peer, and both the
receive buffer's size and its split depend on it. The rows of the self-split never leave the rank. The return
trip is the same all-to-all with the two split lists swapped, and the inverse of the sort puts the results
back in token order.
"""

import torch
import torch.distributed as dist


def dispatch(tokens: torch.Tensor, expert_ids: torch.Tensor, num_experts: int) -> tuple[torch.Tensor, torch.Tensor,
                                                                                         object]:
    n = dist.get_world_size()
    order = torch.argsort(expert_ids, stable=True)  # grouped by expert, hence by destination rank
    dest = expert_ids[order] // (num_experts // n)
    send_counts = torch.bincount(dest, minlength=n)
    recv_counts = torch.empty_like(send_counts)
    dist.all_to_all_single(recv_counts, send_counts)  # one count per peer, each way
    send_sizes, recv_sizes = send_counts.tolist(), recv_counts.tolist()
    received = tokens.new_empty(sum(recv_sizes), tokens.shape[1])
    dist.all_to_all_single(received, tokens[order], recv_sizes, send_sizes)
    received_ids = expert_ids.new_empty(sum(recv_sizes))  # the expert ids travel the same way as their rows
    dist.all_to_all_single(received_ids, expert_ids[order], recv_sizes, send_sizes)
    return received, received_ids, (order, send_sizes, recv_sizes)


def combine(expert_outputs: torch.Tensor, handle: object) -> torch.Tensor:
    order, send_sizes, recv_sizes = handle
    back = expert_outputs.new_empty(len(order), expert_outputs.shape[1])
    dist.all_to_all_single(back, expert_outputs.contiguous(), send_sizes, recv_sizes)  # the splits swapped
    out = torch.empty_like(back)
    out[order] = back  # row k of `back` is token order[k]: scatter it there (the inverse permutation)
    return out
