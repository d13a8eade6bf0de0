"""The judge of ddp_bucketing: averaged gradients, one all-reduce per bucket, started while backward runs.

Every rank builds the same small MLP from a seeded generator and draws its own batch. The expected gradient
is computed here without any communication: a hook-free copy of the model runs every rank's batch in turn
(each rank can draw them all), and the per-rank gradients are averaged. The same copy records the order in
which gradients become ready, from which the bucket rule gives the expected buckets. All-reduce calls are
counted on the process group's own `allreduce` (where every dist.all_reduce ends), each stamped with whether
`loss.backward()` had already returned; the other collectives are switched off.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import torch
from torch import nn

from labs.kata.cases import (
    COLLECTIVES,
    Case,
    Ctx,
    Outcome,
    Traffic,
    fail,
    first_failure,
    ok,
    patched_process_group,
    same,
)

OTHER_COLLECTIVES = tuple(c for c in COLLECTIVES if c != "allreduce")


def mlp(ctx: Ctx, salt: int, frozen_first: bool = False) -> nn.Sequential:
    """The same model on every rank: 8 -> 16 -> 16 -> 4, weights drawn from a generator, not the global RNG."""
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 4))
    g = torch.Generator().manual_seed(ctx.seed * 1_000_003 + salt * 101 + 77)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.4)
    if frozen_first:
        model[0].requires_grad_(False)
    return model


def batch(ctx: Ctx, rank: int, salt: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(ctx.seed * 1_000_003 + salt * 101 + 1000 + rank)
    return torch.randn(6, 8, generator=g), torch.randn(6, 4, generator=g)


def loss_of(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return ((model(x) - y) ** 2).mean()


def expected(ctx: Ctx, model: nn.Module, salt: int) -> tuple[dict[str, torch.Tensor], list[str]]:
    """The mean over ranks of each rank's gradient, and the order gradients become ready, from a copy of `model`
    (same weights, no hooks of the user's) run on every rank's batch."""
    ref = mlp(ctx, 0)
    ref.load_state_dict(model.state_dict())
    for (_, p), (_, q) in zip(ref.named_parameters(), model.named_parameters(), strict=True):
        p.requires_grad_(q.requires_grad)
    names = {p: n for n, p in ref.named_parameters()}
    order: list[str] = []
    for p in ref.parameters():
        if p.requires_grad:
            p.register_post_accumulate_grad_hook(lambda p: order.append(names[p]))
    total: dict[str, torch.Tensor] = {}
    for r in range(ctx.world):
        ref.zero_grad(set_to_none=True)
        order.clear()
        loss_of(ref, *batch(ctx, r, salt)).backward()
        for n, p in ref.named_parameters():
            if p.grad is not None:
                total[n] = total.get(n, 0) + p.grad
    return {n: g / ctx.world for n, g in total.items()}, order


def buckets(model: nn.Module, order: list[str], cap: int) -> tuple[list[list[str]], bool]:
    """The bucket rule: in ready order, a bucket is full once its bytes reach the cap; the rest is partial."""
    params = dict(model.named_parameters())
    out, current, size = [], [], 0
    for n in order:
        current.append(n)
        size += params[n].numel() * params[n].element_size()
        if size >= cap:
            out.append(current)
            current, size = [], 0
    return (out + [current], True) if current else (out, False)


class AllReduceLog:
    """Records every ProcessGroup.allreduce call: True when it started after loss.backward() returned."""

    def __init__(self) -> None:
        self.after_backward: list[bool] = []
        self.backward_returned = False

    def __enter__(self) -> AllReduceLog:
        def logging(real: Callable) -> Callable:
            def allreduce(group: object, *args: object, **kwargs: object) -> object:
                self.after_backward.append(self.backward_returned)
                return real(group, *args, **kwargs)
            return allreduce

        self.patch = patched_process_group({"allreduce": logging})
        self.patch.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.patch.__exit__(*exc)


def iteration(model: nn.Module, bucketer: object, ctx: Ctx, salt: int) -> AllReduceLog:
    """One training iteration as the stub describes it; returns the all-reduce calls it made."""
    model.zero_grad(set_to_none=True)
    with Traffic(forbid=OTHER_COLLECTIVES), AllReduceLog() as log:
        loss_of(model, *batch(ctx, ctx.rank, salt)).backward()
        log.backward_returned = True
        bucketer.finish()
    return log


def check_grads(model: nn.Module, want: dict[str, torch.Tensor], when: str = "") -> Outcome:
    for n, p in model.named_parameters():
        if n not in want:
            if p.grad is not None:
                return fail(f"{n} is frozen (requires_grad=False) but has a .grad{when}")
            continue
        if p.grad is None:
            return fail(f"{n}.grad is None after finish(){when}")
        got = same(p.grad, want[n], f"{n}.grad{when} (expected: the mean over ranks)")
        if not got.passed:
            return got
    return ok()


def check_calls(log: AllReduceLog, plan: list[list[str]], cap: int, when: str = "") -> Outcome:
    if len(log.after_backward) != len(plan):
        shown = " | ".join(", ".join(b) for b in plan)
        return fail(f"{len(log.after_backward)} all-reduce calls{when}, but a cap of {cap} bytes makes "
                    f"{len(plan)} bucket(s) (in ready order: {shown}): one all-reduce per bucket")
    return ok()


def check_overlap(log: AllReduceLog, plan: list[list[str]], partial: bool) -> Outcome:
    full = len(plan) - partial
    late = [i for i, after in enumerate(log.after_backward[:full]) if after]
    if not log.after_backward:
        return fail("no all-reduce at all")
    if late:
        return fail(f"all-reduce #{late[0] + 1} of {len(log.after_backward)} started after loss.backward() "
                    f"returned, but the first {full} bucket(s) are full during backward: start a full bucket's "
                    f"all-reduce in the hook")
    return ok()


def averaged_grads(sol: ModuleType, ctx: Ctx) -> Outcome:
    model, cap = mlp(ctx, 1), 600
    want, _ = expected(ctx, model, 11)
    bucketer = sol.GradBucketer(model, cap)
    iteration(model, bucketer, ctx, 11)
    return check_grads(model, want)


def one_call_per_bucket(sol: ModuleType, ctx: Ctx) -> Outcome:
    for salt, cap in ((2, 1), (3, 300), (4, 10**6)):  # every gradient alone; three full buckets; one partial
        model = mlp(ctx, salt)
        want, order = expected(ctx, model, 20 + salt)
        plan, _ = buckets(model, order, cap)
        bucketer = sol.GradBucketer(model, cap)
        log = iteration(model, bucketer, ctx, 20 + salt)
        outcome = first_failure(check_calls(log, plan, cap), check_grads(model, want, f" (cap {cap} B)"))
        if not outcome.passed:
            return outcome
    return ok()


def overlaps_backward(sol: ModuleType, ctx: Ctx) -> Outcome:
    model, cap = mlp(ctx, 5), 300
    want, order = expected(ctx, model, 31)
    plan, partial = buckets(model, order, cap)
    bucketer = sol.GradBucketer(model, cap)
    log = iteration(model, bucketer, ctx, 31)
    return first_failure(check_overlap(log, plan, partial), check_calls(log, plan, cap), check_grads(model, want))


def frozen_layer(sol: ModuleType, ctx: Ctx) -> Outcome:
    model, cap = mlp(ctx, 6, frozen_first=True), 300
    want, order = expected(ctx, model, 41)
    plan, partial = buckets(model, order, cap)
    bucketer = sol.GradBucketer(model, cap)
    log = iteration(model, bucketer, ctx, 41)
    return first_failure(check_grads(model, want), check_calls(log, plan, cap), check_overlap(log, plan, partial))


def second_iteration(sol: ModuleType, ctx: Ctx) -> Outcome:
    model, cap, lr = mlp(ctx, 7), 600, 0.1
    bucketer = sol.GradBucketer(model, cap)
    for step, salt in enumerate((51, 52), start=1):
        want, order = expected(ctx, model, salt)
        plan, _ = buckets(model, order, cap)
        log = iteration(model, bucketer, ctx, salt)
        when = f" in iteration {step}"
        outcome = first_failure(check_grads(model, want, when), check_calls(log, plan, cap, when))
        if not outcome.passed:
            return outcome
        with torch.no_grad():  # an SGD step with the averaged gradients: every rank stays identical
            for p in model.parameters():
                p.sub_(lr * p.grad)
    return ok()


CASES = [
    Case("averaged_grads", "2 ranks, different batches, cap 600 bytes: one full bucket, then a partial one",
         "all_reduce sums; the gradient you want is the mean. The last bucket never fills up: finish() must "
         "start it.",
         "all_reduce 做的是求和，要的是平均值。最后一个桶永远填不满：必须由 finish() 发起它的通信。", averaged_grads),
    Case("one_call_per_bucket", "caps of 1 byte, 300 bytes and 1 MB: 6, 3 and 1 all-reduce calls",
         "Count bytes as gradients arrive and start one all-reduce on one flat tensor per bucket, not one per "
         "parameter and not one for the whole model.",
         "梯度到达时累计字节数，每个桶对一块扁平张量发起一次 all-reduce：不是每个参数一次，也不是整个模型一次。",
         one_call_per_bucket),
    Case("overlaps_backward", "cap 300 bytes: three full buckets, each all-reduced before backward returns",
         "Start a full bucket's all-reduce inside the hook, with async_op=True, and wait only in finish(): that is "
         "the overlap with the rest of backward.",
         "桶满时就在钩子里用 async_op=True 发起 all-reduce，只在 finish() 里等待：这正是与剩余反向计算的重叠。",
         overlaps_backward),
    Case("frozen_layer", "the first Linear frozen (requires_grad=False): no hook, no gradient, cap 300 bytes",
         "Only parameters that require a gradient can take a hook and ever become ready; leave the others out of "
         "every bucket.",
         "只有需要梯度的参数才能注册钩子、才会就绪；其他参数不要放进任何桶。", frozen_layer),
    Case("second_iteration", "two iterations with one GradBucketer, an SGD step between, cap 600 bytes",
         "finish() must leave the bucketer as it found it: the open bucket empty, no old all-reduce handles or "
         "parameters carried into the next iteration.",
         "finish() 结束时要把状态复原：当前桶清空，不要把旧的 all-reduce 句柄或参数带进下一次迭代。", second_iteration),
]
