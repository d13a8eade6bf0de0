"""Kata: ring all-reduce (average) from send/recv · 用 send/recv 手写 ring all-reduce（求平均）

Write `ring_all_reduce_mean(tensor)`. When it returns, every rank's `tensor` holds, in place, the
element-wise mean of that tensor over all ranks, as DDP needs for gradients.

Given: the default process group is up (gloo, CPU); any world size n >= 2; a float tensor of any shape,
whose element count need not divide by n and may be smaller than n.
Must hold: the mean within float tolerance, in the same tensor (same storage); only point-to-point
messages (dist.send/recv, isend/irecv, batch_isend_irecv): the collectives are switched off; each rank
sends about 2(n-1)/n of the tensor's bytes, the ring's volume (reduce-scatter, then all-gather).

实现 `ring_all_reduce_mean(tensor)`：返回时，每个 rank 的 `tensor` 原地变为所有 rank 上该张量的逐元素平均值
（DDP 对梯度就是这样做的）。
已知：默认进程组已初始化（gloo，CPU）；world size n >= 2 任意；浮点张量形状任意，元素个数不一定能被 n 整除，
也可能小于 n。
要求：结果在浮点误差内等于平均值，且写回同一个张量（同一块存储）；只能用点对点通信（dist.send/recv、isend/irecv、
batch_isend_irecv），集合通信已被禁用；每个 rank 发送的字节数约为张量字节数的 2(n-1)/n，即 ring 的通信量
（先 reduce-scatter，再 all-gather）。
"""

import torch
import torch.distributed as dist


def ring_all_reduce_mean(tensor: torch.Tensor) -> None:
    rank, n = dist.get_rank(), dist.get_world_size()
    raise NotImplementedError("your ring goes here")
