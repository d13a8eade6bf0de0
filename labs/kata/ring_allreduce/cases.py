"""The judge of ring_allreduce: the mean on every rank, in place, by send/recv only, with the ring's volume.

Each case draws a per-rank tensor from a seeded generator and computes the expected mean from every
rank's draw (the generators are known, so no collective is needed for the answer). Shapes cover an
even split, an element count n does not divide, fewer elements than ranks and a 2-D tensor.
"""

from __future__ import annotations

from types import ModuleType

import torch

from labs.kata.cases import COLLECTIVES, Case, Ctx, Outcome, Traffic, fail, first_failure, ok, same


def draw(ctx: Ctx, shape: tuple[int, ...], rank: int, salt: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(ctx.seed * 1_000_003 + salt * 101 + rank)
    return torch.randn(shape, generator=g)


def mean_case(shape: tuple[int, ...], salt: int):
    def run(sol: ModuleType, ctx: Ctx) -> Outcome:
        x = draw(ctx, shape, ctx.rank, salt)
        ptr = x.data_ptr()
        expected = torch.stack([draw(ctx, shape, r, salt) for r in range(ctx.world)]).mean(0)
        with Traffic(forbid=COLLECTIVES):
            sol.ring_all_reduce_mean(x)
        in_place = ok() if x.data_ptr() == ptr else fail("the result is not in the tensor passed in (in place)")
        return first_failure(same(x, expected, f"mean of shape {list(shape)}"), in_place)
    return run


def ring_volume(sol: ModuleType, ctx: Ctx) -> Outcome:
    n, numel = ctx.world, 3 * 4096
    x = draw(ctx, (numel,), ctx.rank, 5)
    with Traffic(forbid=COLLECTIVES) as t:
        sol.ring_all_reduce_mean(x)
    size = numel * 4
    ring = 2 * (n - 1) / n * size
    if t.sent > ring * 1.01:
        return fail(f"sent {t.sent} bytes for a {size}-byte tensor: {t.sent / size:.2f}·S, the ring needs "
                    f"2(n-1)/n·S = {ring:.0f} ({ring / size:.2f}·S)")
    if t.sent < ring * 0.99:
        return fail(f"sent only {t.sent} bytes, less than the {ring:.0f} every rank must send in a ring")
    return ok()


CASES = [
    Case("even_split", "3072 floats, n divides them", "Check the division: a mean, not a sum.",
         "检查除法：要的是平均值，不是和。", mean_case((3072,), 1)),
    Case("uneven_split", "1000 floats, n = 3 does not divide them",
         "Cut with tensor_split (chunk sizes differ by one) and send each chunk at its own size.",
         "用 tensor_split 切分（块大小最多差 1），每块按自己的大小收发。", mean_case((1000,), 2)),
    Case("fewer_elements_than_ranks", "2 floats on 3 ranks: one chunk is empty",
         "An empty chunk still takes part in the ring: send and receive zero elements, do not skip the step.",
         "空块也要参与 ring：收发 0 个元素，不能跳过这一步。", mean_case((2,), 3)),
    Case("matrix_in_place", "a 7x5 tensor: flatten, reduce, write back into the same tensor",
         "Work on a flat view or copy, then copy_ the result back into the tensor you were given.",
         "在展平的视图或副本上计算，最后用 copy_ 写回传入的张量。", mean_case((7, 5), 4)),
    Case("ring_volume", "12288 floats: bytes sent vs 2(n-1)/n·S",
         "Each rank sends n-1 chunks in the reduce-scatter and n-1 in the all-gather, never the whole tensor.",
         "每个 rank 在 reduce-scatter 和 all-gather 中各发送 n-1 个块，而不是整个张量。", ring_volume),
]
