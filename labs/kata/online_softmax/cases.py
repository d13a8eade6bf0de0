"""The judge of online_softmax: ring attention equals full softmax attention, by send/recv only, at the ring's volume.

Each rank draws its block (q, k, v) from a seeded generator; the judge redraws every rank's block, stacks them
in rank order and computes softmax(Q·Kᵀ/sqrt(d))·V over the whole sequence in float64 (torch.softmax, which
subtracts the row maximum itself), then keeps this rank's rows. The blocks cover ordinary scores, large ones
(up to a few hundred, with the block scales growing along the ring so the running maximum moves), one row
per rank with a value width different from d, and a volume check: exactly (n-1)·(|k| + |v|) bytes sent.
"""

from __future__ import annotations

import math
from types import ModuleType

import torch

from labs.kata.cases import COLLECTIVES, Case, Ctx, Outcome, Traffic, fail, first_failure, ok, same


def draw(ctx: Ctx, rank: int, salt: int, s: int, d: int, dv: int, big: float) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(ctx.seed * 1_000_003 + salt * 101 + rank)
    q = torch.randn(s, d, generator=g) * big
    k = torch.randn(s, d, generator=g) * big * (1 + rank)  # later blocks score higher: the maximum moves
    v = torch.randn(s, dv, generator=g)
    return q, k, v


def full_attention(ctx: Ctx, salt: int, s: int, d: int, dv: int, big: float) -> torch.Tensor:
    blocks = [draw(ctx, r, salt, s, d, dv, big) for r in range(ctx.world)]
    q, k, v = (torch.cat([b[i] for b in blocks]).double() for i in range(3))
    out = torch.softmax(q @ k.T / math.sqrt(d), dim=-1) @ v
    return out[ctx.rank * s:(ctx.rank + 1) * s].float()


def attention_case(s: int, d: int, dv: int, big: float, salt: int, atol: float = 1e-5, rtol: float = 1e-4):
    def run(sol: ModuleType, ctx: Ctx) -> Outcome:
        q, k, v = draw(ctx, ctx.rank, salt, s, d, dv, big)
        kept = [t.clone() for t in (q, k, v)]
        with Traffic(forbid=COLLECTIVES):
            out = sol.ring_attention(q, k, v)
        what = f"attention, s_local={s}, d={d}, d_v={dv}" + (f", scores up to ~{peak(ctx, salt, s, d, dv, big)}"
                                                             if big > 1 else "")
        if isinstance(out, torch.Tensor) and out.shape == (s, dv) and not bool(torch.isfinite(out).all()):
            bad = int((~torch.isfinite(out)).sum())
            return fail(f"{what}: {bad} of {out.numel()} outputs are inf/NaN")
        untouched = next((fail(f"ring_attention changed its input {name} (receive into buffers of your own)")
                          for name, t, t0 in zip("qkv", (q, k, v), kept, strict=True) if not torch.equal(t, t0)), ok())
        return first_failure(same(out, full_attention(ctx, salt, s, d, dv, big), what, atol=atol, rtol=rtol),
                             untouched)
    return run


def peak(ctx: Ctx, salt: int, s: int, d: int, dv: int, big: float) -> int:
    blocks = [draw(ctx, r, salt, s, d, dv, big) for r in range(ctx.world)]
    q, k = torch.cat([b[0] for b in blocks]), torch.cat([b[1] for b in blocks])
    return int((q @ k.T / math.sqrt(d)).abs().max())


def ring_volume(sol: ModuleType, ctx: Ctx) -> Outcome:
    s, d, dv = 16, 32, 24
    q, k, v = draw(ctx, ctx.rank, 9, s, d, dv, 1.0)
    with Traffic(forbid=COLLECTIVES) as t:
        sol.ring_attention(q, k, v)
    kv = k.numel() * k.element_size() + v.numel() * v.element_size()
    ring = (ctx.world - 1) * kv
    if t.sent != ring:
        return fail(f"sent {t.sent} bytes; the ring sends the {kv}-byte K/V block n-1 = {ctx.world - 1} times: "
                    f"{ring} bytes ({t.sent / kv:.2f} blocks instead of {ctx.world - 1})")
    return ok()


CASES = [
    Case("matches_full_attention", "s_local=8, d=16 on 3 ranks, ordinary scores; q, k, v left as they were",
         "When the running maximum grows, everything summed so far (the denominator and the output accumulator) "
         "was relative to the old maximum: rescale both.",
         "运行最大值变大时，此前累加的一切（分母和输出累加器）都是相对旧最大值算的：两者都要重新缩放。",
         attention_case(8, 16, 16, 1.0, 1)),
    Case("large_logits", "scores in the hundreds, block scales growing along the ring",
         "exp(s) overflows float32 above s ≈ 88.7: only ever take exp of a score minus the running maximum.",
         "s 超过约 88.7 时 exp(s) 会超出 float32：只对“分数减去运行最大值”取 exp。",
         attention_case(6, 8, 8, 4.0, 2, atol=1e-4, rtol=1e-3)),
    Case("single_row_blocks", "s_local=1 on every rank, d=4, d_v=3",
         "Keep the per-row statistics as (s_local, 1) columns and size the accumulator by v's width, not q's.",
         "每行的统计量保持为 (s_local, 1) 的列向量，累加器的宽度按 v 的宽度而不是 q 的宽度来定。",
         attention_case(1, 4, 3, 1.0, 3)),
    Case("value_width_differs", "s_local=5, d=8, d_v=12: a moderate spread of scores",
         "The output has v's width; the scale is 1/sqrt(d) with d the width of q and k.",
         "输出的宽度是 v 的宽度；缩放系数是 1/sqrt(d)，d 是 q 和 k 的宽度。", attention_case(5, 8, 12, 2.0, 4)),
    Case("ring_volume", "s_local=16, d=32, d_v=24: bytes sent vs (n-1)·(|k| + |v|)",
         "n-1 hops are enough: the block a rank holds after the last hop is used, not sent on; q never travels.",
         "n-1 跳就够了：最后一跳收到的块用完即可，不必再发出去；q 从不需要发送。", ring_volume),
]
