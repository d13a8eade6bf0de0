"""The judge of zero1_step: parameters equal to single-process Adam on the mean gradient, state 1/n per rank.

Each case builds the same parameters on every rank from a seeded generator and, for every step, draws every
rank's gradient from generators that any rank can repeat. The expected parameters come from Adam run in this
process on the mean of those gradients: `PlainAdam` below, torch.optim.Adam's single-tensor update written
out (bit for bit the same as torch.optim.Adam(foreach=False); torch.optim itself is not used because building
one imports torch._dynamo, seconds per check). The expected moments of shard r are its m and v, flattened in
parameter order and cut with tensor_split. Nothing is communicated to get the answer.
The state check reads `exp_avg` and `exp_avg_sq`, then adds up the distinct storages of the tensors the
optimizer holds (attributes, through lists, tuples and dicts), leaving out the parameters and their gradients.
"""

from __future__ import annotations

import math
from types import ModuleType

import torch
from torch import nn

from labs.kata.cases import Case, Ctx, Outcome, fail, ok, same


def draw(ctx: Ctx, shape: tuple[int, ...], rank: int, salt: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(ctx.seed * 1_000_003 + salt * 101 + rank)
    return torch.randn(shape, generator=g)


class PlainAdam:
    """torch.optim.Adam's update without weight decay or amsgrad, as its single-tensor code computes it."""

    def __init__(self, params: list[nn.Parameter], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8) -> None:
        self.params, self.lr, self.betas, self.eps, self.t = params, lr, betas, eps, 0
        self.exp_avg = [torch.zeros_like(p) for p in params]
        self.exp_avg_sq = [torch.zeros_like(p) for p in params]

    @torch.no_grad()
    def step(self) -> None:
        self.t += 1
        b1, b2 = self.betas
        for p, m, v in zip(self.params, self.exp_avg, self.exp_avg_sq, strict=True):
            m.lerp_(p.grad, 1 - b1)
            v.mul_(b2).addcmul_(p.grad, p.grad, value=1 - b2)
            denom = (v.sqrt() / math.sqrt(1 - b2 ** self.t)).add_(self.eps)
            p.addcdiv_(m, denom, value=-self.lr / (1 - b1 ** self.t))


def make_params(ctx: Ctx, shapes: list[tuple[int, ...]], salt: int) -> list[nn.Parameter]:
    """The same parameters on every rank (drawn with rank 0's generator)."""
    return [nn.Parameter(draw(ctx, s, 0, salt * 10 + i)) for i, s in enumerate(shapes)]


def grad(ctx: Ctx, shape: tuple[int, ...], rank: int, salt: int, step: int, i: int, scale: float) -> torch.Tensor:
    return draw(ctx, shape, rank, salt * 1000 + step * 10 + i) * scale


class Run:
    """One case: the user's optimizer on this rank's gradients, single-process Adam on the mean, step by step."""

    def __init__(self, sol: ModuleType, ctx: Ctx, shapes: list[tuple[int, ...]], salt: int, scale: float = 1.0,
                 **hyper: object) -> None:
        self.ctx, self.shapes, self.salt, self.scale = ctx, shapes, salt, scale
        self.params = make_params(ctx, shapes, salt)
        self.ref = make_params(ctx, shapes, salt)
        self.adam = PlainAdam(self.ref, **hyper)
        self.opt = sol.Zero1Adam(self.params, **hyper)

    def step(self, step: int) -> Outcome:
        ctx = self.ctx
        for i, (p, q, s) in enumerate(zip(self.params, self.ref, self.shapes, strict=True)):
            p.grad = grad(ctx, s, ctx.rank, self.salt, step, i, self.scale)
            q.grad = torch.stack([grad(ctx, s, r, self.salt, step, i, self.scale) for r in range(ctx.world)]).mean(0)
        self.opt.step()
        self.adam.step()
        for i, (p, q) in enumerate(zip(self.params, self.ref, strict=True)):
            got = same(p.detach(), q.detach(), f"after step {step}, parameter {i} (shape {list(q.shape)})",
                       atol=1e-6, rtol=1e-6)
            if not got.passed:
                return got
        return ok()

    def steps(self, count: int) -> Outcome:
        for step in range(1, count + 1):
            outcome = self.step(step)
            if not outcome.passed:
                return outcome
        return ok()

    def moment(self, key: str, padded: bool = False) -> torch.Tensor:
        """Adam's moment for this rank's shard: tensor_split's, or (padded) the slice [r·L, (r+1)·L) of the flat
        vector padded with zeros to L·n, L = ceil(P/n), the layout reduce_scatter_tensor wants."""
        flat = torch.cat([t.reshape(-1) for t in getattr(self.adam, key)])
        if not padded:
            return flat.tensor_split(self.ctx.world)[self.ctx.rank]
        size = math.ceil(flat.numel() / self.ctx.world)
        flat = torch.cat([flat, flat.new_zeros(size * self.ctx.world - flat.numel())])
        return flat[self.ctx.rank * size:(self.ctx.rank + 1) * size]


def tensors_in(obj: object, depth: int = 0) -> list[torch.Tensor]:
    if isinstance(obj, torch.Tensor):
        return [obj]
    if depth >= 4:
        return []
    if isinstance(obj, dict):
        return [t for k, v in obj.items() for t in tensors_in(k, depth + 1) + tensors_in(v, depth + 1)]
    if isinstance(obj, (list, tuple)):
        return [t for v in obj for t in tensors_in(v, depth + 1)]
    return []


def held_bytes(opt: object, params: list[nn.Parameter]) -> int:
    """Bytes of the distinct storages the optimizer's attributes hold, not counting the params and grads."""
    skip = {t.untyped_storage().data_ptr() for p in params for t in (p, p.grad) if t is not None}
    storages: dict[int, int] = {}
    for t in tensors_in(list(vars(opt).values())):
        s = t.untyped_storage()
        if s.nbytes() and s.data_ptr() not in skip:
            storages[s.data_ptr()] = s.nbytes()
    return sum(storages.values())


def matches_adam(shapes: list[tuple[int, ...]], salt: int, steps: int, scale: float, **hyper: object):
    def run(sol: ModuleType, ctx: Ctx) -> Outcome:
        return Run(sol, ctx, shapes, salt, scale, **hyper).steps(steps)
    return run


def state_is_sharded(sol: ModuleType, ctx: Ctx) -> Outcome:
    shapes = [(12, 20), (60,), (1,)]  # P = 301: shards of 101, 100, 100
    run = Run(sol, ctx, shapes, 4, scale=1.0, lr=0.01, betas=(0.8, 0.9), eps=1e-8)
    outcome = run.steps(2)
    if not outcome.passed:
        return outcome
    total = sum(math.prod(s) for s in shapes)
    size = len(torch.empty(total).tensor_split(ctx.world)[ctx.rank])
    for key in ("exp_avg", "exp_avg_sq"):
        got = getattr(run.opt, key, None)
        if not isinstance(got, torch.Tensor):
            return fail(f"self.{key} is {type(got).__name__}, expected a 1-D tensor of this rank's shard")
        padded = tuple(got.shape) == (math.ceil(total / ctx.world),) != (size,)  # the padded layout, also right
        if tuple(got.shape) != (size,) and not padded:
            return fail(f"self.{key} has shape {list(got.shape)}; shard {ctx.rank} of P = {total} has {size} "
                        f"elements, so it must be [{size}] (or [{math.ceil(total / ctx.world)}] padded)")
        outcome = same(got, run.moment(key, padded), f"self.{key} after 2 steps (Adam's, for shard {ctx.rank})")
        if not outcome.passed:
            return outcome
    held, limit = held_bytes(run.opt, run.params), 4 * math.ceil(total / ctx.world) * 4
    if held > limit:
        return fail(f"the optimizer holds {held} bytes of tensors besides the parameters and gradients; a ZeRO-1 "
                    f"rank may hold {limit} (4 shards of {math.ceil(total / ctx.world)} floats); the full "
                    f"Adam state would be {2 * total * 4}")
    return ok()


CASES = [
    Case("matches_adam", "3 steps, shapes 4x6, 6, 3x4 (P = 42 = 3 x 14), gradients near eps in size",
         "Average (sum, then divide by n) before Adam sees the gradient; keep m, v and the step count from one "
         "step to the next; and bring every shard back to every rank afterwards.",
         "梯度先求平均（求和后除以 n）再交给 Adam；m、v 和步数要跨步保留；更新后把每个分片送回每个 rank。",
         matches_adam([(4, 6), (6,), (3, 4)], 1, 3, 1e-3, lr=0.01, betas=(0.9, 0.99), eps=1e-3)),
    Case("uneven_shards", "3 steps, shapes 2x7, 5, 3x3x2 (P = 37: shards of 13, 12, 12, cutting through params)",
         "Find your shard by global offsets in the flat vector, not by parameter; pad the short shards to the "
         "same size for gloo's all-gather and drop the padding after.",
         "按展平向量中的全局偏移找到自己的分片，而不是按参数划分；为 gloo 的 all-gather 把较短的分片补齐到相同大小，"
         "收集后再去掉补齐部分。",
         matches_adam([(2, 7), (5,), (3, 3, 2)], 2, 3, 1.0, lr=0.01, betas=(0.9, 0.999), eps=1e-8)),
    Case("fewer_params_than_ranks", "3 steps, shapes 1 and 1x1 (P = 2): rank 2's shard is empty",
         "An empty shard still takes part in every collective: it updates nothing, but sends its padding and "
         "receives the others' shards.",
         "空分片照样要参加每一次集合通信：它什么都不更新，但要发送补齐的数据并接收其他分片。",
         matches_adam([(1,), (1, 1)], 3, 3, 1.0, lr=0.05, betas=(0.5, 0.9), eps=1e-8)),
    Case("state_is_sharded", "P = 301 on 3 ranks: exp_avg, exp_avg_sq of the shard's size and values; memory held",
         "State for your shard only: m and v sized like the shard, no full-size copy of parameters, gradients or "
         "moments kept between steps.",
         "只为自己的分片保存状态：m 和 v 的大小等于分片大小，两步之间不保留完整大小的参数、梯度或动量副本。",
         state_is_sharded),
]
