"""The judge of resumable_sampler: each index once per epoch over all ranks, the spec's order, exact resumes.

The expected batches of (rank, epoch) are computed here from the spec alone: the permutation
torch.randperm(n, generator=Generator().manual_seed(seed + epoch)), positions rank, rank + world, ..., cut
into batch_size lists. Every rank's batches are gathered (all_gather_object) so a duplicate or a lost index
across ranks is named with the ranks involved. The global RNGs are seeded differently on every rank first,
so a sampler that shuffles with them makes ranks disagree. A restart is a state_dict() round trip through
torch.save / torch.load(weights_only=True) into a NEW instance, as a restarted process would do.
Every rank makes the same gather calls: an error in the user's code is held until after the gather.
"""

from __future__ import annotations

import io
import random
from collections import Counter
from collections.abc import Callable
from types import ModuleType

import numpy as np
import torch
import torch.distributed as dist

from labs.kata.cases import Case, Ctx, Outcome, fail, first_failure, ok

Batches = list[list[int]]


def expected(n: int, rank: int, world: int, seed: int, epoch: int, batch: int) -> Batches:
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(seed + epoch)).tolist()
    mine = perm[rank::world]
    return [mine[i:i + batch] for i in range(0, len(mine), batch)]


def scramble(ctx: Ctx, salt: int) -> None:
    """Different global RNG states on every rank: only a private generator gives every rank the same order."""
    s = ctx.seed * 7919 + salt * 131 + ctx.rank * 100_003
    random.seed(s)
    np.random.seed(s % 2**32)
    torch.manual_seed(s)


def plain(batches: object) -> Batches:
    return [[int(i) for i in b] for b in batches]


def attempt(fn: Callable[[], object]) -> tuple[object, BaseException | None]:
    try:
        return fn(), None
    except BaseException as exc:  # held until every rank has reached the gather
        return None, exc


def gathered(ctx: Ctx, value: object, exc: BaseException | None) -> list:
    out: list = [None] * ctx.world
    dist.all_gather_object(out, None if exc else value)
    if exc is not None:
        raise exc
    return out


def restart(sol: ModuleType, args: tuple, sd: dict) -> object:
    buf = io.BytesIO()
    torch.save(sd, buf)  # as a checkpoint would carry it
    buf.seek(0)
    fresh = sol.ResumableSampler(*args)
    fresh.load_state_dict(torch.load(buf, weights_only=True))
    return fresh


def indices(k: int) -> str:
    return f"{k} index comes" if k == 1 else f"{k} indices come"


def once_each(per_rank: list[Batches], n: int, what: str) -> Outcome:
    """Over all ranks, every index of range(n) exactly once; names the first duplicate or lost index."""
    where: dict[int, list[int]] = {}
    for r, batches in enumerate(per_rank):
        for b in batches:
            for i in b:
                where.setdefault(i, []).append(r)
    outside = sorted(i for i in where if not 0 <= i < n)
    if outside:
        return fail(f"{what}: index {outside[0]} is not in range({n})")
    dup = sorted(i for i, rs in where.items() if len(rs) > 1)
    lost = sorted(set(range(n)) - set(where))
    if dup:
        return fail(f"{what}: {indices(len(dup))} more than once (index {dup[0]} on ranks {where[dup[0]]}) and "
                    f"{len(lost)} never")
    if lost:
        return fail(f"{what}: {len(lost)} of the {n} indices never come (first: {lost[0]})")
    return ok()


def in_order(ctx: Ctx, got: Batches, want: Batches, what: str) -> Outcome:
    if got == want:
        return ok()
    for k, (g, w) in enumerate(zip(got, want, strict=False)):
        if g != w:
            return fail(f"{what}: rank {ctx.rank}'s batch {k} is {g}, expected {w} (the spec's permutation, "
                        f"positions rank, rank+world, ...)")
    return fail(f"{what}: rank {ctx.rank} got {len(got)} batches, expected {len(want)}")


def one_epoch(n: int, batch: int, salt: int):
    def run(sol: ModuleType, ctx: Ctx) -> Outcome:
        seed = 1234 + ctx.seed
        scramble(ctx, salt)
        got, exc = attempt(lambda: plain(sol.ResumableSampler(n, ctx.rank, ctx.world, seed, batch)))
        per_rank = gathered(ctx, got, exc)
        shapes = ok()
        if any(len(b) != batch for b in got[:-1]) or any(len(b) == 0 for b in got) or \
                (got and len(got[-1]) > batch):
            shapes = fail(f"rank {ctx.rank}'s batch sizes are {[len(b) for b in got]}: each is batch_size={batch} "
                          f"but the last, which may be shorter")
        return first_failure(once_each(per_rank, n, f"epoch 0, n={n}, batch_size={batch}, {ctx.world} ranks"),
                             shapes, in_order(ctx, got, expected(n, ctx.rank, ctx.world, seed, 0, batch),
                                              f"epoch 0, n={n}, batch_size={batch}"))
    return run


def epochs(sol: ModuleType, ctx: Ctx) -> Outcome:
    n, batch, seed = 40, 5, 77 + ctx.seed
    scramble(ctx, 3)

    def work() -> tuple[list[Batches], Batches]:
        s = sol.ResumableSampler(n, ctx.rank, ctx.world, seed, batch)
        runs = []
        for e in range(3):
            s.set_epoch(e)
            runs.append(plain(s))
        again = sol.ResumableSampler(n, ctx.rank, ctx.world, seed, batch)
        torch.randn(7)  # the global RNG moves on: the order must not
        again.set_epoch(1)
        return runs, plain(again)

    got, exc = attempt(work)
    per_rank = gathered(ctx, got, exc)
    runs, again = got
    for e in range(3):
        whole = once_each([p[0][e] for p in per_rank], n, f"epoch {e}")
        if not whole.passed:
            return whole
    if runs[1] == runs[0] or runs[2] == runs[1]:
        return fail(f"rank {ctx.rank} gets the same batches in two epochs in a row: set_epoch must change the order")
    if again != runs[1]:
        return fail("epoch 1 on a new instance differs from epoch 1 on the first: the order must depend only on "
                    "(seed, epoch)")
    return first_failure(*(in_order(ctx, runs[e], expected(n, ctx.rank, ctx.world, seed, e, batch), f"epoch {e}")
                           for e in range(3)))


def resumed(sol: ModuleType, ctx: Ctx, n: int, batch: int, epoch: int, cuts: tuple[int, ...], salt: int
            ) -> tuple[Batches, Batches]:
    """Take cuts[0] batches, restart, take cuts[1], restart, ..., then the rest; also the next epoch after it."""
    args = (n, ctx.rank, ctx.world, 4321 + ctx.seed, batch)
    scramble(ctx, salt)
    s = sol.ResumableSampler(*args)
    s.set_epoch(epoch)
    stream: Batches = []
    for k in cuts:
        it = iter(s)
        stream += plain(next(it) for _ in range(k))
        sd = s.state_dict()
        scramble(ctx, salt + 1)  # a new process: new global RNG states
        s = restart(sol, args, sd)
    stream += plain(s)
    s.set_epoch(epoch + 1)
    return stream, plain(s)


def restart_case(n: int, batch: int, epoch: int, cuts: tuple[int, ...], salt: int):
    def run(sol: ModuleType, ctx: Ctx) -> Outcome:
        got, exc = attempt(lambda: resumed(sol, ctx, n, batch, epoch, cuts, salt))
        per_rank = gathered(ctx, got, exc)
        stream, following = got
        seed = 4321 + ctx.seed
        taken = " then ".join(str(k) for k in cuts)
        what = f"epoch {epoch} restarted after {taken} batches"
        want = expected(n, ctx.rank, ctx.world, seed, epoch, batch)
        before = in_order(ctx, stream[:cuts[0]], want[:cuts[0]], f"epoch {epoch} before any restart")
        if not before.passed:
            return before
        mine = Counter(i for b in stream for i in b)
        replayed = sorted(i for i, c in mine.items() if c > 1)
        if replayed:
            return fail(f"{what}: rank {ctx.rank} gets {len(replayed)} of its indices twice (first: {replayed[0]}): "
                        f"the restart replayed batches already handed out")
        return first_failure(once_each([p[0] for p in per_rank], n, what), in_order(ctx, stream, want, what),
                             in_order(ctx, following, expected(n, ctx.rank, ctx.world, seed, epoch + 1, batch),
                                      f"epoch {epoch + 1} after that restart"))
    return run


def at_epoch_end(sol: ModuleType, ctx: Ctx) -> Outcome:
    n, batch, seed = 31, 4, 999 + ctx.seed
    args = (n, ctx.rank, ctx.world, seed, batch)
    scramble(ctx, 9)

    def work() -> tuple[Batches, Batches, Batches]:
        s = sol.ResumableSampler(*args)
        s.set_epoch(5)
        whole = plain(s)  # to the end: the StopIteration has been seen
        fresh = restart(sol, args, s.state_dict())
        rest = plain(fresh)
        fresh.set_epoch(6)
        return whole, rest, plain(fresh)

    got, exc = attempt(work)
    gathered(ctx, got, exc)
    whole, rest, following = got
    if rest:
        return fail(f"a restart from the state saved at the end of epoch 5 yields {len(rest)} more batches on rank "
                    f"{ctx.rank} (first: {rest[0]}); expected none: the epoch was finished")
    return first_failure(in_order(ctx, whole, expected(n, ctx.rank, ctx.world, seed, 5, batch), "epoch 5"),
                         in_order(ctx, following, expected(n, ctx.rank, ctx.world, seed, 6, batch),
                                  "epoch 6 after a restart at the end of epoch 5"))


CASES = [
    Case("one_epoch_exactly_once", "n=23, batch_size=4 on 3 ranks: indices gathered from every rank",
         "One permutation shared by all ranks (a private generator seeded with seed + epoch), strided by rank; "
         "no padding.", "所有 rank 共用一个排列（用 seed + epoch 播种的独立生成器），按 rank 跨步切分；不要补齐。",
         one_epoch(23, 4, 1)),
    Case("epochs_differ_reproducible", "epochs 0, 1, 2; epoch 1 again on a new instance",
         "The order is a function of (seed, epoch) only: set_epoch must feed the generator, the global RNG must not.",
         "顺序只取决于 (seed, epoch)：set_epoch 要参与生成器的播种，全局随机数不能参与。", epochs),
    Case("restart_mid_epoch", "n=50, batch_size=3: restart after 2 batches, then the next epoch",
         "Save how many batches were handed out, counted the moment next() returns one, and skip exactly those.",
         "保存已经交出去的 batch 数（在 next() 返回它的那一刻计数），续训时恰好跳过这些。",
         restart_case(50, 3, 2, (2,), 4)),
    Case("restart_twice", "n=61, batch_size=2: restart after 3 batches, then after 2 more",
         "A resumed sampler's position counts from the start of the epoch, not from where this process began.",
         "续训后的位置要从 epoch 开头算起，而不是从本进程开始的地方算起。", restart_case(61, 2, 7, (3, 2), 6)),
    Case("restart_at_epoch_end", "n=31, batch_size=4: a whole epoch, then a restart, then the next epoch",
         "Reaching the end of an epoch is a position too: only set_epoch starts a new one.",
         "走到 epoch 末尾也是一个位置：只有 set_epoch 才开始新的 epoch。", at_epoch_end),
    Case("tiny_dataset", "n=2 on 3 ranks, batch_size=5: one rank has no index; restart before any batch",
         "A rank may own nothing and must then yield nothing; a batch may be shorter than batch_size.",
         "某个 rank 可能一个下标也分不到，这时就什么都不产出；batch 可以比 batch_size 短。",
         restart_case(2, 5, 0, (0,), 11)),
]
