"""Kata: MoE token dispatch and combine with all_to_all_single · 用 all_to_all_single 实现 MoE 的 token 分发与回收

Write `dispatch` and `combine` for an expert-parallel MoE layer with top-1 routing. `dispatch(tokens, expert_ids,
num_experts)` sends every token to the rank that holds its expert and returns `(received, received_expert_ids,
handle)`: the tokens this rank's experts must process, their expert ids, and whatever `combine` will need. The
caller then runs each received row through its expert and calls `combine(expert_outputs, handle)`, which sends
the results back and returns them on the token's own rank, in the original token order.

Given: the default process group is up (gloo, CPU), n ranks; num_experts E is a multiple of n and rank r holds
experts r·E/n .. (r+1)·E/n - 1; tokens (T, d) float32 and expert_ids (T,) int64 in [0, E), with T different
on every rank and possibly 0; some experts may get no tokens, a rank may receive none, and all tokens may pick
one expert. `expert_outputs` (R, d) has one row per row of `received`, in the same order.
Must hold: `received` (R, d) float32 and `received_expert_ids` (R,) int64 hold exactly the (token, expert) pairs
routed to this rank's experts by all ranks, in any order, each row with its own expert id; `combine` returns
(T, d) whose row t is the expert output of token t; the inputs are left unchanged; only all_to_all_single
moves data (dist.all_to_all is accepted too; the other collectives are switched off), the split sizes
exchanged first with an all_to_all_single of their own; the token data moves once per token that leaves the
rank: dispatch sends d floats for every token whose expert is on another rank, combine sends d floats back for
every token received from another rank, no padding and no copies to other ranks (integer tensors such as
counts and expert ids are not counted).

实现专家并行 MoE 层（top-1 路由）的 `dispatch` 和 `combine`。`dispatch(tokens, expert_ids, num_experts)` 把每个
token 发到持有其专家的 rank，返回 `(received, received_expert_ids, handle)`：本 rank 的专家要处理的 token、它们的
专家编号，以及 `combine` 需要的任何信息。调用方把收到的每一行交给对应专家计算，然后调用
`combine(expert_outputs, handle)`：把结果送回 token 原来所在的 rank，并按原来的 token 顺序返回。
已知：默认进程组已初始化（gloo，CPU），n 个 rank；专家数 E 是 n 的倍数，rank r 持有专家 r·E/n .. (r+1)·E/n - 1；
tokens (T, d) 为 float32，expert_ids (T,) 为 int64，取值在 [0, E)；每个 rank 的 T 不同，也可能为 0；有的专家可能
一个 token 都没有，某个 rank 可能什么都收不到，也可能所有 token 都选同一个专家。`expert_outputs` (R, d) 与
`received` 逐行对应、顺序相同。
要求：`received` (R, d) float32 和 `received_expert_ids` (R,) int64 恰好是所有 rank 路由给本 rank 专家的
(token, 专家) 对，顺序不限，但每一行要配上自己的专家编号；`combine` 返回 (T, d)，第 t 行是 token t 的专家输出；
不修改输入；只用 all_to_all_single 搬运数据（dist.all_to_all 也可以，其余集合通信已禁用），先用一次单独的
all_to_all_single 交换切分大小；token 数据对每个离开本 rank 的 token 只搬一次：dispatch 为每个专家在其他 rank
上的 token 发送 d 个浮点数，combine 为每个从其他 rank 收到的 token 发回 d 个浮点数，不补齐、不多发副本（计数、
专家编号等整数张量不计入）。
"""

import torch
import torch.distributed as dist


def dispatch(tokens: torch.Tensor, expert_ids: torch.Tensor, num_experts: int) -> tuple[torch.Tensor, torch.Tensor,
                                                                                         object]:
    rank, n = dist.get_rank(), dist.get_world_size()
    raise NotImplementedError("your dispatch goes here")


def combine(expert_outputs: torch.Tensor, handle: object) -> torch.Tensor:
    raise NotImplementedError("your combine goes here")
