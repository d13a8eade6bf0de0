"""The judge of loss_scaler: a scripted run of steps, some with inf/NaN, against a trajectory computed here.

Every rank owns a 1-D and a 2-D parameter (plus one that never gets a gradient) and, at step t, a true
gradient drawn from a seeded generator; the loss is sum(w * g), so backward of scale(loss) leaves exactly
scale * g in .grad. Some steps plant an inf or a NaN in g, on every rank or on one rank only. The expected
run is worked out here from the rules alone: a step is clean when no rank planted anything; a clean step
moves each parameter by -lr * g (SGD) and counts towards growth; any other step leaves the parameters
alone, halves the scale and restarts the count. Scales are powers of two and lr = 0.25, so every expected
value is exact. After each step the judge compares the returned flag, the scale, the unscaled gradients
and the parameters; every rank runs every step even after a mismatch, so the collectives stay paired.
"""

from __future__ import annotations

from types import ModuleType

import torch

from labs.kata.cases import Case, Ctx, Outcome, fail, ok, same

LR = 0.25


def gen(ctx: Ctx, salt: int) -> torch.Generator:
    return torch.Generator().manual_seed(ctx.seed * 1_000_003 + salt * 101 + ctx.rank)


def true_grads(ctx: Ctx, salt: int, t: int, planted: str | None) -> tuple[torch.Tensor, torch.Tensor]:
    g = gen(ctx, salt * 1000 + t + 1)
    gw, gW = torch.randn(6, generator=g), torch.randn(3, 4, generator=g)
    if planted == "inf":
        gW[1, 2] = float("inf")
    elif planted == "nan":
        gw[4] = float("nan")
    return gw, gW


def label(bad: dict[int, str], world: int) -> str:
    if not bad:
        return "a clean step"
    kinds = sorted(set(bad.values()))
    where = "every rank" if len(bad) == world else f"rank {sorted(bad)[0]} only"
    return f"a step with {'/'.join(kinds)} on {where}"


def scripted(steps: int, init: float, interval: int, bad: dict[int, dict[int, str]], salt: int):
    """`bad[t] = {rank: 'inf' | 'nan'}`: what is planted in step t's gradients, and where."""
    def run(sol: ModuleType, ctx: Ctx) -> Outcome:
        g = gen(ctx, salt)
        ps = [torch.nn.Parameter(torch.randn(6, generator=g)), torch.nn.Parameter(torch.randn(3, 4, generator=g)),
              torch.nn.Parameter(torch.randn(2, generator=g))]  # the last takes no part in the loss: grad None
        expect = [p.detach().clone() for p in ps]
        opt = torch.optim.SGD(ps, lr=LR)
        scaler = sol.DynamicLossScaler(init_scale=init, growth_interval=interval)
        scale, good, first = init, 0, ok()
        for t in range(steps):
            now = label(bad.get(t, {}), ctx.world)
            gw, gW = true_grads(ctx, salt, t, bad.get(t, {}).get(ctx.rank))
            clean = t not in bad
            loss = (ps[0] * gw).sum() + (ps[1] * gW).sum()
            scaled = scaler.scale(loss)
            checks = [same(scaled.detach(), loss.detach() * scale, f"step {t}: scale(loss)")] if clean else []
            scaled.backward()
            stepped = scaler.step(opt, ps)
            if clean:
                checks += [same(ps[0].grad, gw, f"step {t}: the 1-D grad after step (unscaled in place)"),
                           same(ps[1].grad, gW, f"step {t}: the 2-D grad after step (unscaled in place)")]
                expect = [expect[0] - LR * gw, expect[1] - LR * gW, expect[2]]
                good += 1
                if good == interval:
                    scale, good = scale * 2.0, 0
            else:
                scale, good = scale * 0.5, 0
            if bool(stepped) != clean:
                checks.insert(0, fail(f"step {t} ({now}): step returned {stepped!r}, expected {clean}"))
            got_scale = scaler.get_scale()
            if float(got_scale) != scale:
                checks.append(fail(f"after step {t} ({now}) the scale is {float(got_scale):g}, expected {scale:g}"))
            checks += [same(p.detach(), e, f"after step {t} ({now}), parameter {i}")
                       for i, (p, e) in enumerate(zip(ps, expect, strict=True))]
            if first.passed:
                first = next((c for c in checks if not c.passed), ok())
            opt.zero_grad(set_to_none=True)
        return first
    return run


def defaults(sol: ModuleType, ctx: Ctx) -> Outcome:
    s = sol.DynamicLossScaler()
    if float(s.get_scale()) != 2.0**16:
        return fail(f"DynamicLossScaler() starts at scale {float(s.get_scale()):g}, expected 65536 (GradScaler's)")
    return scripted(7, 2.0**10, 3, {}, 1)(sol, ctx)


CASES = [
    Case("clean_steps_grow", "defaults; 7 clean steps with growth_interval=3: scale, unscaled grads, parameters",
         "Divide the grads by the scale in place before optimizer.step(); grow after growth_interval good steps.",
         "在 optimizer.step() 之前把梯度原地除以 scale；连续 growth_interval 步无溢出后增长。", defaults),
    Case("overflow_skips_step", "inf, then NaN, then inf on every rank between clean steps",
         "A step with inf/NaN gradients must not reach the optimizer: skip it and back the scale off.",
         "含 inf/NaN 梯度的那一步不能交给优化器：跳过它，并把 scale 调小。",
         scripted(6, 2.0**12, 100, {1: {0: "inf", 1: "inf"}, 3: {0: "nan", 1: "nan"}, 4: {0: "inf", 1: "inf"}}, 2)),
    Case("overflow_resets_growth", "growth_interval=3: clean, clean, inf, then 4 clean steps",
         "Growth needs growth_interval good steps in a row: an overflow restarts the count from zero.",
         "增长要求连续 growth_interval 步无溢出：一次溢出就让计数从零开始。",
         scripted(7, 2.0**11, 3, {2: {0: "inf", 1: "inf"}}, 3)),
    Case("inf_on_one_rank", "inf on rank 1 only, later NaN on rank 0 only",
         "One rank's overflow must stop every rank's step: reduce the found-inf flag over all ranks (MAX).",
         "一个 rank 溢出，所有 rank 都要跳过这一步：把溢出标志在所有 rank 间做 MAX 归约。",
         scripted(6, 2.0**10, 2, {1: {1: "inf"}, 3: {0: "nan"}}, 4)),
    Case("nan_only", "a NaN (no inf) in the gradients on every rank",
         "NaN is an overflow too, and NaN compares false with everything: test with isfinite, not isinf or == inf.",
         "NaN 也是溢出，而且 NaN 与任何值比较都为假：用 isfinite 判断，而不是 isinf 或 == inf。",
         scripted(4, 2.0**10, 100, {2: {0: "nan", 1: "nan"}}, 5)),
]
