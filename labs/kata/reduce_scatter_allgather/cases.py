"""The judge of reduce_scatter_allgather: rank r's chunk of the sum, the whole tensor in rank order, the ring's volume.

Chunks are `x.reshape(-1).tensor_split(n)`. Each case draws tensors from seeded generators: a per-rank
tensor for the reduce-scatter (the expected sum is computed from every rank's draw, which every rank can
repeat, so no collective is needed for the answer) and one tensor shared by all ranks for the all-gather
(each rank passes its own chunk of it, the expected result is the tensor itself). Sizes cover an even
split, a 2-D tensor n does not divide, fewer elements than ranks (an empty chunk), float64 and a byte count.
Collectives are switched off in every case.
"""

from __future__ import annotations

from types import ModuleType

import torch

from labs.kata.cases import COLLECTIVES, Case, Ctx, Outcome, Traffic, fail, first_failure, ok, same


def draw(ctx: Ctx, shape: tuple[int, ...], rank: int, salt: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    g = torch.Generator().manual_seed(ctx.seed * 1_000_003 + salt * 101 + rank)
    return torch.randn(shape, generator=g, dtype=dtype)


def expected_sum(ctx: Ctx, shape: tuple[int, ...], salt: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.stack([draw(ctx, shape, r, salt, dtype) for r in range(ctx.world)]).sum(0)


def own_chunk(flat: torch.Tensor, ctx: Ctx) -> torch.Tensor:
    return flat.reshape(-1).tensor_split(ctx.world)[ctx.rank]


def reduce_scatter_case(shape: tuple[int, ...], salt: int):
    def run(sol: ModuleType, ctx: Ctx) -> Outcome:
        x = draw(ctx, shape, ctx.rank, salt)
        with Traffic(forbid=COLLECTIVES):
            got = sol.reduce_scatter_sum(x)
        return same(got, own_chunk(expected_sum(ctx, shape, salt), ctx),
                    f"reduce_scatter_sum of shape {list(shape)}: chunk {ctx.rank} of the sum")
    return run


def all_gather_case(numel: int, salt: int):
    def run(sol: ModuleType, ctx: Ctx) -> Outcome:
        whole = draw(ctx, (numel,), 0, salt)  # the same tensor on every rank; each passes its own chunk
        with Traffic(forbid=COLLECTIVES):
            got = sol.all_gather_concat(own_chunk(whole, ctx).clone(), numel)
        return same(got, whole, f"all_gather_concat of {numel} elements")
    return run


def fewer_elements_than_ranks(sol: ModuleType, ctx: Ctx) -> Outcome:
    x = draw(ctx, (2,), ctx.rank, 3)
    whole = draw(ctx, (2,), 0, 4)
    with Traffic(forbid=COLLECTIVES):
        scattered = sol.reduce_scatter_sum(x)
        gathered = sol.all_gather_concat(own_chunk(whole, ctx).clone(), 2)
    return first_failure(same(scattered, own_chunk(expected_sum(ctx, (2,), 3), ctx),
                              f"reduce_scatter_sum of 2 elements: chunk {ctx.rank} of the sum"),
                         same(gathered, whole, "all_gather_concat of 2 elements"))


def round_trip_float64(sol: ModuleType, ctx: Ctx) -> Outcome:
    shape = (4, 25)
    x = draw(ctx, shape, ctx.rank, 6, torch.float64)
    with Traffic(forbid=COLLECTIVES):
        got = sol.all_gather_concat(sol.reduce_scatter_sum(x), x.numel())
    return same(got, expected_sum(ctx, shape, 6, torch.float64).reshape(-1),
                "all_gather_concat(reduce_scatter_sum(x)) of a 4x25 float64 tensor", atol=1e-12, rtol=1e-12)


def ring_volume(sol: ModuleType, ctx: Ctx) -> Outcome:
    n, numel = ctx.world, 3 * 4096
    x = draw(ctx, (numel,), ctx.rank, 7)
    size, ring = numel * 4, (n - 1) / n * numel * 4
    with Traffic(forbid=COLLECTIVES) as rs:
        chunk = sol.reduce_scatter_sum(x)
    with Traffic(forbid=COLLECTIVES) as ag:
        sol.all_gather_concat(chunk, numel)
    for what, sent in (("reduce_scatter_sum", rs.sent), ("all_gather_concat", ag.sent)):
        if sent > ring * 1.01:
            return fail(f"{what} sent {sent} bytes for a {size}-byte tensor: {sent / size:.2f}·S, a ring needs "
                        f"(n-1)/n·S = {ring:.0f} ({ring / size:.2f}·S)")
        if sent < ring * 0.99:
            return fail(f"{what} sent only {sent} bytes, less than the {ring:.0f} every rank must send in a ring")
    return ok()


CASES = [
    Case("owns_chunk_r", "reduce_scatter_sum of 3072 floats: rank r gets chunk r of the sum",
         "The ring all-reduce's first phase leaves rank r with chunk r+1; shift the chunk indices by one so the "
         "last addition lands on the chunk this rank owns.",
         "ring all-reduce 的第一阶段结束时 rank r 拿到的是第 r+1 块；把块下标整体平移一位，让最后一次累加落在本 rank "
         "拥有的块上。", reduce_scatter_case((3072,), 1)),
    Case("uneven_matrix", "reduce_scatter_sum of a 7x5 tensor: 35 elements in chunks of 12, 12, 11",
         "Flatten first, cut with tensor_split, and size every receive buffer like the chunk it belongs to.",
         "先展平，再用 tensor_split 切分；每个接收缓冲区的大小要和它对应的那一块一致。",
         reduce_scatter_case((7, 5), 2)),
    Case("gather_rank_order", "all_gather_concat of a 1000-element tensor, chunks of 334, 333, 333",
         "Chunks arrive from your left neighbour in ring order, not rank order: receive each one straight into "
         "its own place in the output.",
         "各块按 ring 的顺序从左邻到达，而不是按 rank 顺序：把每一块直接收进输出张量里它自己的位置。",
         all_gather_case(1000, 5)),
    Case("fewer_elements_than_ranks", "2 elements on 3 ranks: rank 2's chunk is empty, in both functions",
         "An empty chunk still takes its turn in the ring: send and receive zero elements, do not skip the step.",
         "空块同样要在 ring 中轮转：收发 0 个元素，不能跳过这一步。", fewer_elements_than_ranks),
    Case("round_trip_float64", "all_gather_concat(reduce_scatter_sum(x)) of a 4x25 float64 tensor equals the sum",
         "Allocate every buffer with the input's dtype: the two halves together must be an all-reduce, bit for bit "
         "in float64.",
         "所有缓冲区都用输入的 dtype 分配：两半拼起来必须是一次 all-reduce，float64 下同样成立。", round_trip_float64),
    Case("ring_volume", "12288 floats: bytes each function sends vs (n-1)/n·S",
         "Each rank sends n-1 chunks of S/n in each function, never the whole tensor.",
         "每个函数中每个 rank 发送 n-1 个大小为 S/n 的块，而不是整个张量。", ring_volume),
]
