"""Kata: tensor-parallel MLP, column-parallel then row-parallel · 张量并行 MLP：先列并行、再行并行

Write `tp_mlp(x, w1, b1, w2, b2)`: the forward pass of the MLP  y = gelu(x @ w1.T + b1) @ w2.T + b2  split over
the n ranks the Megatron way. Rank r uses only its shard: the rows `torch.arange(h).tensor_split(n)[r]` of w1 and
b1 (the first linear is column-parallel: its output features are split) and the same columns of w2 (the second
linear is row-parallel: its input features are split). gelu is torch.nn.functional.gelu in its default, exact
(erf) form.

Given: the default process group is up (gloo, CPU), n >= 2 ranks; x (tokens, d) is the same on every rank; w1
(h, d), b1 (h,), w2 (d, h), b2 (d,) are float32 in nn.Linear layout (out x in), passed whole on every rank, but
only this rank's shard is meaningful: the rows of w1/b1 and the columns of w2 outside it may hold anything
(NaN, garbage). The hidden size h is any size, not necessarily 4d and not necessarily divisible by n.
Must hold: the result is the full MLP's output (tokens, d), float32, on every rank; exactly one collective per
call, one dist.all_reduce (sum) of the (tokens, d) partial outputs; b2 counted once; the rows and columns outside
the shard are not read, and the matrix products on a rank cost no more than its shard's (about 1/n of the
MLP's FLOPs); the inputs are left unchanged.

实现 `tp_mlp(x, w1, b1, w2, b2)`：按 Megatron 的方式把 MLP  y = gelu(x @ w1.T + b1) @ w2.T + b2  的前向拆到 n 个
rank 上。rank r 只用自己的分片：w1 和 b1 的第 `torch.arange(h).tensor_split(n)[r]` 行（第一个线性层是列并行，
按输出特征切分），以及 w2 的相同列（第二个线性层是行并行，按输入特征切分）。gelu 用 torch.nn.functional.gelu
的默认精确（erf）形式。
已知：默认进程组已初始化（gloo，CPU），n >= 2 个 rank；x (tokens, d) 在每个 rank 上相同；w1 (h, d)、b1 (h,)、
w2 (d, h)、b2 (d,) 为 float32，采用 nn.Linear 的布局（输出 x 输入），每个 rank 都拿到完整张量，但只有本 rank
的分片有意义：分片之外的 w1/b1 行和 w2 列可能是任意值（NaN、垃圾数据）。隐藏维 h 任意，不一定是 4d，也不一定
能被 n 整除。
要求：每个 rank 上的结果都等于完整 MLP 的输出 (tokens, d)，float32；每次调用恰好一次集合通信，即对 (tokens, d)
的部分输出做一次 dist.all_reduce（求和）；b2 只计入一次；不读取分片之外的行和列，一个 rank 上矩阵乘法的计算量不超过
它的分片所需（约为整个 MLP FLOPs 的 1/n）；不修改输入。
"""

import torch
import torch.distributed as dist
import torch.nn.functional as F  # noqa: F401 - gelu and linear are there


def tp_mlp(x: torch.Tensor, w1: torch.Tensor, b1: torch.Tensor, w2: torch.Tensor, b2: torch.Tensor) -> torch.Tensor:
    rank, n = dist.get_rank(), dist.get_world_size()
    raise NotImplementedError("your tensor-parallel MLP goes here")
