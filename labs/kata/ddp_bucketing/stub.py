"""Kata: DDP gradient bucketing, all-reduce during backward · 手写 DDP 梯度分桶：反向过程中发起 all-reduce

Write `class GradBucketer`, the core of DDP without DDP. `__init__(model, bucket_cap_bytes)` registers a
`Tensor.register_post_accumulate_grad_hook` on every parameter that requires a gradient. During backward,
gradients go into the current bucket in the order they become ready (for the judge's models, the reverse of
`model.parameters()`). When a gradient brings the bucket's size (sum of numel × element_size of its gradients)
to `bucket_cap_bytes` or more, the bucket is full: start ONE `dist.all_reduce(flat, async_op=True)` on a flat
tensor holding its gradients, right there in the hook, and open a new bucket. The gradient that fills a bucket
stays in it (a bucket may pass the cap; one gradient over the cap fills whatever bucket it joins, even an empty
one). `finish()`, called after `loss.backward()` returns, starts the all-reduce of the last bucket if it is
not empty (it is partial), waits for every all-reduce, divides by the world size and writes the averages into
each `param.grad`.

Given: the default process group is up (gloo, CPU); 2 ranks with the same model (a small MLP of float32
nn.Linear layers) and different data; some parameters may be frozen (requires_grad=False: they get no hook
and their .grad stays None); the same GradBucketer serves several iterations, each one
`model.zero_grad(set_to_none=True)`, a forward, `loss.backward()`, `finish()`, then maybe an SGD step.
Must hold: after finish(), every trainable param.grad equals the average over ranks of that rank's own
gradient (float tolerance); exactly one all-reduce per bucket per iteration (as many as the rule above gives:
not one per parameter, not one for everything); every full bucket's all-reduce starts before loss.backward()
returns, only the last partial one from finish(); the second iteration is as right as the first (buckets
start empty again). Use dist.all_reduce (the sum); the other collectives are switched off.

实现 `class GradBucketer`，即不借助 DDP 写出 DDP 的核心。`__init__(model, bucket_cap_bytes)` 给每个需要梯度的参数注册
`Tensor.register_post_accumulate_grad_hook`。反向过程中，梯度按就绪的顺序（对评测用的模型来说就是 `model.parameters()`
的逆序）放进当前桶；当某个梯度使桶的大小（桶内各梯度 numel × element_size 之和）达到或超过 `bucket_cap_bytes` 时，
桶就满了：立即在钩子里对装有这些梯度的一块扁平张量发起一次 `dist.all_reduce(flat, async_op=True)`，然后开一个新桶。
使桶变满的那个梯度留在这个桶里（桶可以超过上限；单个超过上限的梯度会使它加入的桶变满，哪怕那个桶原本是空的）。
`finish()` 在 `loss.backward()` 返回后调用：若最后一个桶不为空（未满），为它发起 all-reduce；然后等待所有
all-reduce 完成，除以 world size，把平均值写回每个 `param.grad`。
已知：默认进程组已初始化（gloo，CPU）；2 个 rank，模型相同（由 float32 nn.Linear 组成的小 MLP），数据不同；有的参数
可能被冻结（requires_grad=False：不挂钩子，其 .grad 保持 None）；同一个 GradBucketer 要服务多次迭代，每次依次为
`model.zero_grad(set_to_none=True)`、前向、`loss.backward()`、`finish()`，之后可能做一步 SGD。
要求：finish() 之后，每个可训练参数的 param.grad 在浮点误差内等于各 rank 自身梯度的平均值；每次迭代每个桶恰好一次
all-reduce（次数等于上述规则给出的桶数：不是每个参数一次，也不是全部合成一次）；每个满桶的 all-reduce 都在
loss.backward() 返回之前发起，只有最后一个未满的桶在 finish() 中发起；第二次迭代和第一次一样正确（桶重新从空开始）。
使用 dist.all_reduce（求和）；其他集合通信已被禁用。
"""

import torch.distributed as dist
from torch import nn


class GradBucketer:
    def __init__(self, model: nn.Module, bucket_cap_bytes: int) -> None:
        self.world = dist.get_world_size()
        raise NotImplementedError("register your hooks here")

    def finish(self) -> None:
        raise NotImplementedError("flush, wait, average, write back")
