"""Kata: ZeRO-1, Adam with sharded optimizer state · ZeRO-1：优化器状态分片的 Adam

Write `class Zero1Adam`. Think of every parameter flattened and concatenated in the order given:
`flat = torch.cat([p.reshape(-1) for p in params])`, P elements. Rank r owns shard r, the elements
`flat.tensor_split(n)[r]` (sizes differ by at most one; the first P % n shards are the longer ones).
`step()` averages the gradients over the ranks, updates the rank's own shard with Adam, then gathers the
shards so that every rank's parameters hold all the updated values.

Given: the default process group is up (gloo, CPU); 3 ranks; float32 parameters (nn.Parameter, several
shapes) equal on every rank; before each step() every p.grad holds this rank's own gradient, different on
each rank. P need not divide by n and may be smaller than n (then a shard is empty). Any collective may be
used, but gloo's all_gather and all_gather_into_tensor want the same size on every rank: pad a short shard.
Adam as torch.optim.Adam computes it: t counts steps from 1; m = β1·m + (1-β1)·g; v = β2·v + (1-β2)·g²;
p -= lr · (m / (1-β1^t)) / (sqrt(v / (1-β2^t)) + eps); no weight decay, no amsgrad.
Must hold: after each of several steps, the parameters on every rank equal those of one process running
torch.optim.Adam on the averaged gradients (within 1e-6). The moments live in `self.exp_avg` and
`self.exp_avg_sq`: 1-D float32 tensors with exactly as many elements as shard r, holding m and v of those
elements (the padded layout is accepted too: L = ceil(P/n) elements, slice [r·L, (r+1)·L) of the flat vector
padded with zeros to L·n, as reduce_scatter_tensor wants). Between steps the optimizer's tensors (its
attributes, looked into through lists, tuples and dicts; not the parameters or their .grad; counted by storage,
so a slice of a bigger tensor counts as all of it) add up to at most 4 shards, 4·ceil(P/n) float32 elements:
keep nothing of size P; temporaries inside step() are fine.

实现 `class Zero1Adam`。把所有参数按给定顺序展平并拼接：`flat = torch.cat([p.reshape(-1) for p in params])`，
共 P 个元素。rank r 拥有第 r 个分片，即 `flat.tensor_split(n)[r]` 中的元素（各分片大小最多差 1，前 P % n 个分片较长）。
`step()` 先在各 rank 间对梯度求平均，再用 Adam 更新本 rank 自己的分片，最后收集各分片，使每个 rank 的参数都是全部
更新后的值。
已知：默认进程组已初始化（gloo，CPU）；3 个 rank；float32 参数（nn.Parameter，形状各异）在各 rank 上相同；每次 step()
之前，每个 p.grad 是本 rank 自己的梯度，各 rank 不同。P 不一定能被 n 整除，也可能小于 n（此时有分片为空）。可以使用任何
集合通信，但 gloo 的 all_gather 和 all_gather_into_tensor 要求各 rank 的张量大小相同：较短的分片需要补齐。
Adam 与 torch.optim.Adam 的算法一致：t 从 1 开始计步；m = β1·m + (1-β1)·g；v = β2·v + (1-β2)·g²；
p -= lr · (m / (1-β1^t)) / (sqrt(v / (1-β2^t)) + eps)；没有权重衰减，不用 amsgrad。
要求：连续多步的每一步之后，每个 rank 上的参数都等于单进程用 torch.optim.Adam 在平均梯度上更新的结果（误差 1e-6 以内）。
动量存放在 `self.exp_avg` 和 `self.exp_avg_sq` 中：一维 float32 张量，元素个数恰好等于第 r 个分片的大小，存放这些元素
的 m 和 v（也接受补零的布局：L = ceil(P/n) 个元素，即展平向量补零到 L·n 后的 [r·L, (r+1)·L)，
reduce_scatter_tensor 要求的正是这种布局）。两步之间，优化器持有的张量（它的属性，会深入查看 list、tuple 和 dict；
不含参数及其 .grad；按存储计算，某个更大张量的切片按整块存储计）合计不超过 4 个分片，即 4·ceil(P/n) 个 float32 元素：
不要保留任何大小为 P 的东西；step() 内部的临时张量不受限制。
"""

from collections.abc import Iterable

import torch
import torch.distributed as dist


class Zero1Adam:
    def __init__(self, params: Iterable[torch.Tensor], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8) -> None:
        self.params = list(params)
        self.rank, self.world = dist.get_rank(), dist.get_world_size()
        self.exp_avg: torch.Tensor
        self.exp_avg_sq: torch.Tensor
        raise NotImplementedError("find your shard and create its state here")

    @torch.no_grad()
    def step(self) -> None:
        raise NotImplementedError("average, update your shard, gather")
