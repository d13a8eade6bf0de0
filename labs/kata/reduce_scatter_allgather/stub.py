"""Kata: reduce-scatter and all-gather from send/recv · 用 send/recv 分别手写 reduce-scatter 和 all-gather

Write two functions, the two halves of a ring all-reduce, used apart as ZeRO and FSDP use them.
Both cut a flat tensor the same way: chunk i is `x.reshape(-1).tensor_split(n)[i]`, and rank r owns chunk r.
- `reduce_scatter_sum(tensor)` returns a new 1-D tensor: chunk r (this rank's) of the element-wise SUM of
  `tensor` over all ranks.
- `all_gather_concat(chunk, numel)`: every rank r passes its chunk r of some flat tensor of `numel` elements;
  it returns that whole flat tensor (`numel` elements, chunks in rank order 0, 1, ..., n-1) on every rank.

Given: the default process group is up (gloo, CPU); any world size n >= 2; float tensors of any shape and
dtype (float32 or float64); the element count need not divide by n and may be smaller than n (then some
chunks are empty, and an empty chunk is a 0-element tensor). The judge does not look at `tensor` afterwards.
Must hold: the values within float tolerance, the result's dtype equal to the input's, the shapes (numel of
chunk r,) and (numel,); all_gather_concat(reduce_scatter_sum(x), x.numel()) equals the full sum; only
point-to-point messages (dist.send/recv, isend/irecv, batch_isend_irecv): the collectives are switched off;
each function sends about (n-1)/n of the full tensor's bytes per rank (a ring), never the whole tensor.

实现两个函数，即 ring all-reduce 的两半，像 ZeRO 和 FSDP 那样分开使用。两者对展平张量的切法相同：第 i 块是
`x.reshape(-1).tensor_split(n)[i]`，rank r 拥有第 r 块。
- `reduce_scatter_sum(tensor)` 返回一个新的一维张量：所有 rank 上 `tensor` 逐元素求和（SUM）结果的第 r 块
  （本 rank 的块）。
- `all_gather_concat(chunk, numel)`：每个 rank r 传入某个 `numel` 个元素的展平张量的第 r 块；在每个 rank 上返回整个
  展平张量（`numel` 个元素，按 rank 顺序 0, 1, ..., n-1 排列各块）。
已知：默认进程组已初始化（gloo，CPU）；world size n >= 2 任意；浮点张量形状任意、dtype 为 float32 或 float64；元素个数
不一定能被 n 整除，也可能小于 n（此时有的块为空，空块是 0 个元素的张量）。评测之后不再查看 `tensor`。
要求：数值在浮点误差内正确，结果的 dtype 与输入相同，形状分别为 (第 r 块的元素数,) 和 (numel,)；
all_gather_concat(reduce_scatter_sum(x), x.numel()) 等于完整的和；只能用点对点通信（dist.send/recv、isend/irecv、
batch_isend_irecv），集合通信已被禁用；每个函数每个 rank 发送的字节数约为整个张量的 (n-1)/n（ring），
绝不能发送整个张量。
"""

import torch
import torch.distributed as dist


def reduce_scatter_sum(tensor: torch.Tensor) -> torch.Tensor:
    rank, n = dist.get_rank(), dist.get_world_size()
    raise NotImplementedError(f"your reduce-scatter goes here (rank {rank} of {n})")


def all_gather_concat(chunk: torch.Tensor, numel: int) -> torch.Tensor:
    rank, n = dist.get_rank(), dist.get_world_size()
    raise NotImplementedError(f"your all-gather goes here (rank {rank} of {n})")
