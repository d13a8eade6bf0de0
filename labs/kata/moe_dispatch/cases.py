"""The judge of moe_dispatch: tokens reach the ranks of their experts and come back in order, moved once.

Every rank draws its own tokens and expert ids from a seeded generator, and can redraw any other rank's, so the
expected answers need no communication: the (token, expert) pairs routed to this rank's experts (compared as a
multiset, the order of `received` being free) and the dense output, expert e's function x·(e+1) + e applied to
each of this rank's tokens in place. Between dispatch and combine the judge applies that function to the
received rows by their received expert ids. Cases cover random routing with a different token count per rank,
a rank with no tokens and experts with none, every token on one expert, and the bytes of token data that leave
the rank, counted on the process group's all-to-all methods (as Traffic counts sends); the other collectives
are switched off.
"""

from __future__ import annotations

import inspect
import itertools
import json
from collections.abc import Callable
from datetime import timedelta
from types import ModuleType

import torch
import torch.distributed as dist

from labs.kata.cases import COLLECTIVES, Case, Ctx, Outcome, fail, first_failure, ok, same

EXPERTS, D = 8, 5
ALL_TO_ALL = ("all_to_all_single", "alltoall_base", "alltoall")
OFF = tuple(m for m in COLLECTIVES if m not in ALL_TO_ALL)
CALLS = itertools.count()  # the k-th all_to_all_single of this process, the same k on every rank


def agree(group: object, output: torch.Tensor, input: torch.Tensor, out_splits: list[int],
          in_splits: list[int]) -> None:
    """Before an all_to_all_single, the ranks compare their split sizes over the c10d store, so that sizes that
    do not match raise the same clear error on every rank (gloo would abort the process, NCCL would hang)."""
    rank, n = group.rank(), group.size()
    k = next(CALLS)

    def sizes(t: torch.Tensor, splits: list[int]) -> list[int]:
        return (list(splits) or [t.shape[0] // n] * n) if t.dim() else [0] * n

    mine = {"in": sizes(input, in_splits), "out": sizes(output, out_splits), "given_in": bool(in_splits),
            "given_out": bool(out_splits), "rows_in": input.shape[0] if input.dim() else 0,
            "rows_out": output.shape[0] if output.dim() else 0}
    store = dist.distributed_c10d._get_default_store()
    store.set(f"moe/a2a/{k}/{rank}", json.dumps(mine))
    keys = [f"moe/a2a/{k}/{r}" for r in range(n)]
    store.wait(keys, timedelta(seconds=20))
    every = [json.loads(store.get(key)) for key in keys]
    for r, s in enumerate(every):
        for name in ("in", "out"):
            if sum(s[name]) != s[f"rows_{name}"]:
                why = (f"its split sizes add up to {sum(s[name])}" if s[f"given_{name}"] else
                       f"which do not cut into n = {n} equal splits")
                raise RuntimeError(f"all_to_all_single on rank {r}: the {name}put has {s[f'rows_{name}']} rows, "
                                   f"{why}; with uneven counts pass {name}put_split_sizes")
        for j in range(n):
            if s["out"][j] != every[j]["in"][r]:
                raise RuntimeError(f"all_to_all_single: rank {r} expects {s['out'][j]} rows from rank {j}, which "
                                   f"sends it {every[j]['in'][r]}; each rank's output_split_sizes must be the counts "
                                   f"the others send it (exchange the counts first)")


class Moves:
    """Counts the floating-point bytes this rank sends to other ranks (all-to-all and send); refuses the rest.

    The raw class attributes are kept and put back (inspect.getattr_static): getattr gives pybind's plain
    function, which set back on the class would no longer bind self."""

    def __init__(self) -> None:
        self.sent = 0
        self.saved: dict[str, object] = {}

    def __enter__(self) -> Moves:
        pg = torch._C._distributed_c10d.ProcessGroup
        names = [m for m in (*ALL_TO_ALL, "send", *OFF) if hasattr(pg, m)]
        self.saved = {m: inspect.getattr_static(pg, m) for m in names}

        def rows_leaving(group: object, t: torch.Tensor, splits: list[int]) -> int:
            rank, n = group.rank(), group.size()
            sizes = list(splits) or [t.shape[0] // n] * n
            return sum(sizes) - sizes[rank]

        def single(real: Callable) -> Callable:
            def call(group, output, input, output_splits, input_splits, *rest):
                agree(group, output, input, output_splits, input_splits)
                if input.is_floating_point() and input.dim() and input.shape[0]:
                    per_row = input.numel() // input.shape[0] * input.element_size()
                    self.sent += rows_leaving(group, input, input_splits) * per_row
                return real(group, output, input, output_splits, input_splits, *rest)
            return call

        def listed(real: Callable) -> Callable:
            def call(group, outputs, inputs, *rest):
                self.sent += sum(t.numel() * t.element_size() for j, t in enumerate(inputs)
                                 if j != group.rank() and t.is_floating_point())
                return real(group, outputs, inputs, *rest)
            return call

        def send(real: Callable) -> Callable:
            def call(group, tensors, *rest):
                self.sent += sum(t.numel() * t.element_size() for t in tensors if t.is_floating_point())
                return real(group, tensors, *rest)
            return call

        def refusing(name: str) -> Callable:
            def refuse(*args: object, **kwargs: object) -> None:
                raise RuntimeError(f"collectives other than all-to-all ({name}) are off in this kata")
            return refuse

        for m in names:
            real = getattr(pg, m)
            wrap = single if m in ("all_to_all_single", "alltoall_base") else listed if m == "alltoall" else send
            setattr(pg, m, refusing(m) if m in OFF else wrap(real))
        return self

    def __exit__(self, *exc: object) -> None:
        pg = torch._C._distributed_c10d.ProcessGroup
        for m, real in self.saved.items():
            setattr(pg, m, real)


Route = Callable[[torch.Generator, int, int], torch.Tensor]


def draw(ctx: Ctx, rank: int, salt: int, counts: list[int], route: Route) -> tuple[torch.Tensor, torch.Tensor]:
    """Rank `rank`'s tokens and expert ids; any rank can redraw any other's."""
    g = torch.Generator().manual_seed(ctx.seed * 1_000_003 + salt * 101 + rank)
    t = counts[rank % len(counts)]
    return torch.randn(t, D, generator=g), route(g, t, rank)


def expert(x: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """Expert e's function, row by row: a different scale and shift for every e, so a row paired with the wrong
    expert id gives a wrong output."""
    e = ids.to(x.dtype).unsqueeze(1)
    return x * (e + 1) + e


def pairs(rows: torch.Tensor, ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The multiset of (expert id, token) rows: unique rows in lexicographic order, with their counts."""
    key = torch.cat([ids.double().unsqueeze(1), rows.double()], 1)
    return torch.unique(key, dim=0, return_counts=True)


def check_received(received: object, ids: object, ctx: Ctx, salt: int, counts: list[int], route: Route) -> Outcome:
    per = EXPERTS // ctx.world
    if not (isinstance(received, torch.Tensor) and isinstance(ids, torch.Tensor)):
        return fail("dispatch must return (received tokens, their expert ids, handle) as two tensors and a handle")
    if received.dim() != 2 or received.shape[1] != D or ids.shape != (received.shape[0],):
        return fail(f"received has shape {tuple(received.shape)} and its expert ids {tuple(ids.shape)}; "
                    f"expected (R, {D}) and (R,)")
    if received.dtype != torch.float32 or ids.dtype != torch.int64:
        return fail(f"received is {received.dtype} and its expert ids {ids.dtype}; expected float32 and int64")
    foreign = ids[ids // per != ctx.rank]
    if len(foreign):
        e = int(foreign[0])
        return fail(f"rank {ctx.rank} received a token for expert {e}, which lives on rank {e // per} "
                    f"(rank {ctx.rank} holds experts {ctx.rank * per}..{ctx.rank * per + per - 1})")
    want_rows, want_ids = [], []
    for r in range(ctx.world):
        x, e = draw(ctx, r, salt, counts, route)
        mine = e // per == ctx.rank
        want_rows.append(x[mine])
        want_ids.append(e[mine])
    want_rows, want_ids = torch.cat(want_rows), torch.cat(want_ids)
    if len(ids) != len(want_ids):
        return fail(f"rank {ctx.rank} received {len(ids)} tokens; {len(want_ids)} are routed to its experts")
    got_keys, got_n = pairs(received, ids)
    want_keys, want_n = pairs(want_rows, want_ids)
    if got_keys.shape != want_keys.shape or not (torch.equal(got_keys, want_keys) and torch.equal(got_n, want_n)):
        return fail(f"rank {ctx.rank} received {len(ids)} rows, but not the (token, expert) pairs routed to it: "
                    f"a row arrived with another token's expert id, or a row is not one of the routed tokens")
    return ok()


def round_trip(counts: list[int], route: Route, salt: int, check_output: bool = True, count_bytes: bool = False):
    def run(sol: ModuleType, ctx: Ctx) -> Outcome:
        tokens, ids = draw(ctx, ctx.rank, salt, counts, route)
        copies = (tokens.clone(), ids.clone())
        with Moves() as out_trip:
            received, got_ids, handle = sol.dispatch(tokens, ids, EXPERTS)
        arrived = check_received(received, got_ids, ctx, salt, counts, route)
        # Every rank calls combine whatever it received: a rank that skipped it would leave its peers waiting.
        outputs = expert(received, got_ids) if arrived.passed else torch.zeros_like(received)
        with Moves() as back_trip:
            result = sol.combine(outputs, handle)
        output = same(result, expert(tokens, ids), f"combine's output on rank {ctx.rank} ({len(tokens)} tokens)")
        checks = [arrived, output if check_output else ok(),
                  ok() if torch.equal(tokens, copies[0]) and torch.equal(ids, copies[1])
                  else fail("dispatch or combine changed the tokens or expert ids passed in")]
        if count_bytes:
            per = EXPERTS // ctx.world
            leaving = int((ids // per != ctx.rank).sum())
            coming = sum(int((draw(ctx, r, salt, counts, route)[1] // per == ctx.rank).sum())
                         for r in range(ctx.world) if r != ctx.rank)
            row = D * 4
            if out_trip.sent != leaving * row:
                checks.append(fail(f"dispatch sent {out_trip.sent} bytes of token data to other ranks; the "
                                   f"{leaving} tokens whose experts live elsewhere are {leaving}·{D}·4 = "
                                   f"{leaving * row} bytes"))
            if back_trip.sent != coming * row:
                checks.append(fail(f"combine sent {back_trip.sent} bytes of token data to other ranks; the "
                                   f"{coming} tokens received from other ranks are {coming}·{D}·4 = "
                                   f"{coming * row} bytes"))
        return first_failure(*checks)
    return run


def uniform(g: torch.Generator, t: int, rank: int) -> torch.Tensor:
    return torch.randint(0, EXPERTS, (t,), generator=g)


def sparse(g: torch.Generator, t: int, rank: int) -> torch.Tensor:
    """Experts 0, 2 and 3 get nothing: with 2 experts per rank on 4 ranks, rank 1 receives no token."""
    allowed = torch.tensor([1, 4, 5, 6, 7])
    return allowed[torch.randint(0, len(allowed), (t,), generator=g)]


def one_expert(g: torch.Generator, t: int, rank: int) -> torch.Tensor:
    return torch.full((t,), EXPERTS - 1, dtype=torch.int64)


CASES = [
    Case("routes_to_owner", "8 experts, 6/9/3/12 tokens per rank, random top-1 routing: what dispatch delivers",
         "all_to_all_single sends the first split to rank 0, the next to rank 1, ...: the rows must be grouped "
         "by destination rank first, and the receiver must learn each split size before it can receive.",
         "all_to_all_single 把第一段发给 rank 0、下一段发给 rank 1……：先按目标 rank 把行排好，接收方还要先知道每段的"
         "大小才能接收。",
         round_trip([6, 9, 3, 12], uniform, salt=1, check_output=False)),
    Case("combine_restores_order", "random routing, 10/4/7/5 tokens: combine's rows in the original token order",
         "The return trip comes back in the order you sent, sorted by destination. Keep the permutation and "
         "apply its inverse: row k of what returns belongs to token order[k].",
         "回程的顺序就是你发送时的顺序（按目标 rank 排过序）。记下置换并用它的逆：回来的第 k 行属于 token order[k]。",
         round_trip([10, 4, 7, 5], uniform, salt=2)),
    Case("empty_rank_and_experts", "rank 1 has 0 tokens, experts 0, 2, 3 get none, so rank 1 receives none",
         "Zero-row splits are still splits: every rank takes part in every all-to-all, with counts of 0 where "
         "there is nothing; bincount needs minlength to give one count per rank.",
         "0 行的切分也是切分：每个 rank 都参与每一次 all-to-all，没有数据的地方计数为 0；bincount 要设 minlength，"
         "才能每个 rank 都有一个计数。",
         round_trip([7, 0, 5, 8], sparse, salt=3)),
    Case("all_to_one_expert", "every token on every rank picks expert 7 (rank 3)",
         "The receive buffer's size comes from the exchanged counts, not from the local token count: one rank "
         "may receive everything.",
         "接收缓冲区的大小来自交换得到的计数，而不是本地 token 数：可能一个 rank 收到全部 token。",
         round_trip([5, 4, 6, 3], one_expert, salt=4)),
    Case("bytes_moved", "random routing, 16/11/13/9 tokens: float bytes sent = tokens that leave the rank",
         "Send each token once, to the one rank that needs it, and only its own rows back: no padding to a "
         "fixed capacity, no copy to every rank.",
         "每个 token 只发一次，只发给需要它的那个 rank，回程也只送回自己的行：不要补齐到固定容量，也不要给每个 rank "
         "都发一份。",
         round_trip([16, 11, 13, 9], uniform, salt=5, count_bytes=True)),
]
