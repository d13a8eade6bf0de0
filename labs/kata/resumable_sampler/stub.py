"""Kata: resumable distributed sampler · 可续训的分布式采样器

Write `ResumableSampler`: it hands this rank its batches of dataset indices, epoch after epoch, and after the
job is killed mid-epoch a NEW instance (a restarted process) continues from its saved state exactly where the
old one stopped.

Given: `dataset_len` >= 1 (it need not divide by `world_size` or by `batch_size`, and may be smaller than
`world_size`), `rank` in [0, world_size), a `seed` shared by all ranks, `batch_size` >= 1. The epoch is 0 until
`set_epoch` is called. The global random generators (random, torch) hold different states on different ranks.
Must hold: epoch e uses one permutation of range(dataset_len), the same on every rank:
`torch.randperm(dataset_len, generator=torch.Generator().manual_seed(seed + e))`. Rank r takes its positions
r, r + world_size, r + 2·world_size, ... in that order, and `__iter__` yields them as lists of ints of
`batch_size` (the last one may be shorter; a rank with no indices yields nothing). No padding: over all ranks
every index comes exactly once per epoch. `set_epoch(e)` starts epoch e from its first batch at the next
`iter()`. `state_dict()` counts the batches handed out so far (taken with next(), not merely computed) and must
survive torch.save / torch.load(weights_only=True) (plain ints, lists, dicts). For a new instance built with the
same arguments, `load_state_dict(sd)` then `iter()` yields the rest of the saved epoch: nothing replayed,
nothing lost, also after a second restart, and nothing at all when the epoch had been finished.

实现 `ResumableSampler`：逐个 epoch 把数据集下标按 batch 交给本 rank；任务在 epoch 中途被杀后，一个新的实例
（重启后的进程）从保存的状态出发，恰好从旧实例停下的地方继续。
已知：`dataset_len` >= 1（不一定能被 `world_size` 或 `batch_size` 整除，也可能小于 `world_size`）；`rank` 属于
[0, world_size)；所有 rank 共用同一个 `seed`；`batch_size` >= 1。调用 `set_epoch` 之前 epoch 为 0。各 rank 上全局随机数
生成器（random、torch）的状态各不相同。
要求：第 e 个 epoch 使用 range(dataset_len) 的一个排列，所有 rank 相同：
`torch.randperm(dataset_len, generator=torch.Generator().manual_seed(seed + e))`。rank r 按顺序取排列中第
r、r + world_size、r + 2·world_size……个位置，`__iter__` 把它们按 `batch_size` 切成 int 列表依次产出（最后一个可以更短；
分不到下标的 rank 什么也不产出）。不补齐：每个 epoch 里所有 rank 合起来，每个下标恰好出现一次。`set_epoch(e)` 使下一次
`iter()` 从第 e 个 epoch 的第一个 batch 开始。`state_dict()` 记录已经交出去的 batch 数（被 next() 取走的，
而不只是算出来的），并且要能经受 torch.save / torch.load(weights_only=True)（只用 int、list、dict 等普通类型）。
用相同参数新建的实例，调用 `load_state_dict(sd)` 后再 `iter()`，产出所保存 epoch 的剩余部分：不重复、不遗漏，
第二次重启后也一样；如果那个 epoch 已经走完，就什么也不产出。
"""

from collections.abc import Iterator

import torch  # noqa: F401 - torch.randperm, torch.Generator


class ResumableSampler:
    def __init__(self, dataset_len: int, rank: int, world_size: int, seed: int, batch_size: int) -> None:
        raise NotImplementedError("keep what you need to rebuild the epoch's order and the position in it")

    def set_epoch(self, epoch: int) -> None:
        raise NotImplementedError

    def __iter__(self) -> Iterator[list[int]]:
        raise NotImplementedError

    def state_dict(self) -> dict:
        raise NotImplementedError

    def load_state_dict(self, sd: dict) -> None:
        raise NotImplementedError
