"""Kata: dynamic loss scaler for data-parallel fp16 · 手写数据并行 fp16 的动态 loss scaler

Write `DynamicLossScaler`, the dynamic loss scaling torch.amp.GradScaler does, without GradScaler. The API is a
single `step` per iteration: it does what GradScaler's unscale_, step and update do together.
    loss = ...; scaler.scale(loss).backward(); stepped = scaler.step(optimizer, params); optimizer.zero_grad()

Given: the default process group is up (gloo, CPU, 2 ranks); every rank calls `step` once per iteration. `params`
is a list of parameters, 1-D and 2-D, some with `.grad` None (they took no part in the loss). On some steps a
gradient holds inf or NaN, on every rank or on one rank only.
Must hold: `scale(loss)` returns loss times the current scale, a tensor to call backward on; `get_scale()` returns
the current scale as a float. `step(optimizer, params)`: divides every existing `.grad` of `params` by the scale,
in place (params whose grad is None are skipped); if any of them holds an inf or a NaN on ANY rank, all ranks
agree on it (all-reduce the found-inf flag with MAX, every rank, every step), skip optimizer.step(), multiply the
scale by backoff_factor, reset the count of consecutive good steps to 0 and return False; otherwise call
optimizer.step(), count the good step, and when the count reaches growth_interval multiply the scale by
growth_factor and reset the count; return True. The defaults are GradScaler's: 2**16, 2.0, 0.5, 2000. The judge
compares, after every step, the returned flag, the scale, the unscaled grads and the parameters.

实现 `DynamicLossScaler`：不用 GradScaler，写出 torch.amp.GradScaler 所做的动态 loss scaling。接口是每次迭代调用一次
`step`，它一次完成 GradScaler 的 unscale_、step 和 update 三件事：
    loss = ...; scaler.scale(loss).backward(); stepped = scaler.step(optimizer, params); optimizer.zero_grad()
已知：默认进程组已初始化（gloo，CPU，2 个 rank）；每个 rank 每次迭代调用一次 `step`。`params` 是参数列表，
有一维也有二维，其中一些的 `.grad` 为 None（它们没有参与 loss）。某些步里梯度含有 inf 或 NaN，可能所有 rank 都有，
也可能只有一个 rank 有。
要求：`scale(loss)` 返回 loss 乘以当前 scale 的张量，可以在它上面调用 backward；`get_scale()` 以 float 返回当前 scale。
`step(optimizer, params)`：把 `params` 里每个存在的 `.grad` 原地除以 scale（grad 为 None 的跳过）；只要任何一个 rank 上
有一个梯度含 inf 或 NaN，所有 rank 就要达成一致（每个 rank 每一步都对“发现溢出”标志做 MAX 的 all-reduce），跳过
optimizer.step()，把 scale 乘以 backoff_factor，把连续无溢出步数清零，并返回 False；否则调用 optimizer.step()，计入一次
无溢出步，计数达到 growth_interval 时把 scale 乘以 growth_factor 并清零计数，返回 True。默认值与 GradScaler 相同：
2**16、2.0、0.5、2000。评测在每一步之后比较返回值、scale、unscale 后的梯度和参数。
"""

import torch
import torch.distributed as dist


class DynamicLossScaler:
    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000) -> None:
        raise NotImplementedError("keep the scale and the count of consecutive good steps")

    def get_scale(self) -> float:
        raise NotImplementedError

    def scale(self, loss: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def step(self, optimizer: torch.optim.Optimizer, params: list[torch.nn.Parameter]) -> bool:
        rank, n = dist.get_rank(), dist.get_world_size()
        raise NotImplementedError("unscale, agree on inf/NaN over the ranks, then step or back off")
