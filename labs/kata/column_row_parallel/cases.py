"""The judge of column_row_parallel: the full MLP on every rank, from one all-reduce and 1/n of the work.

Every rank draws the same x and full weights from a seeded generator (no rank in the seed: the inputs of a
tensor-parallel layer are replicated) and computes the expected output with the plain single-process MLP,
gelu(x @ w1.T + b1) @ w2.T + b2. Cases cover a hidden size n divides, one it does not (tensor_split's uneven
shards), a second linear of zeros (so the output is b2 alone and a bias counted n times shows as n·b2), NaN
outside this rank's shard (a rank that reads another rank's rows gets NaN), the collectives called (counted
on the process group's own methods, as Traffic does) and the matrix-product FLOPs of the call (counted at
the torch function level).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import ModuleType

import torch
from torch.overrides import TorchFunctionMode

from labs.kata.cases import COLLECTIVES, Case, Ctx, Outcome, fail, first_failure, ok, same

EXTRA = ("barrier",)  # not a collective that moves data, but a call this MLP has no reason to make


class Collectives:
    """Records every collective this rank calls (name, elements) and passes it on to the real method."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []
        self.saved: dict[str, Callable] = {}

    def __enter__(self) -> Collectives:
        pg = torch._C._distributed_c10d.ProcessGroup
        names = [m for m in (*COLLECTIVES, *EXTRA) if hasattr(pg, m)]
        # The raw class attributes (pybind's instancemethod), so that __exit__ puts back methods that still bind
        # self: getattr(pg, m) is the plain function, and set back on the class it would no longer bind.
        self.saved = {m: inspect.getattr_static(pg, m) for m in names}

        def recording(name: str, real: Callable) -> Callable:
            def call(group: object, *args: object, **kwargs: object) -> object:
                first = args[0] if args else None
                tensors = first if isinstance(first, list) else [first]
                self.calls.append((name, sum(t.numel() for t in tensors if isinstance(t, torch.Tensor))))
                return real(group, *args, **kwargs)
            return call

        for m in self.saved:
            setattr(pg, m, recording(m, getattr(pg, m)))
        return self

    def __exit__(self, *exc: object) -> None:
        pg = torch._C._distributed_c10d.ProcessGroup
        for m, real in self.saved.items():
            setattr(pg, m, real)


class MatmulFlops(TorchFunctionMode):
    """Counts the FLOPs of the matrix products the call makes (2 per multiply-add), seen at the torch function
    level: a torch.utils.flop_counter.FlopCounterMode would do it at the dispatcher, but entering a dispatch
    mode imports torch._dynamo, seconds of a check."""

    PRODUCTS = {"linear", "matmul", "__matmul__", "mm", "addmm", "bmm", "baddbmm", "einsum"}

    def __init__(self) -> None:
        super().__init__()
        self.flops = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        name = getattr(func, "__name__", "")
        if name in self.PRODUCTS and isinstance(out, torch.Tensor):
            try:
                self.flops += self.count(name, args, out)
            except Exception:  # a call shape this counter does not know: not counted, never the user's fault
                pass
        return out

    @staticmethod
    def count(name: str, args: tuple, out: torch.Tensor) -> int:
        if name == "einsum":
            operands = args[1] if len(args) == 2 and isinstance(args[1], (list, tuple)) else args[1:]
            sizes: dict[str, int] = {}
            for spec, t in zip(args[0].replace(" ", "").split("->")[0].split(","), operands, strict=True):
                sizes.update(zip(spec, t.shape, strict=True))
            return 2 * int(torch.tensor(list(sizes.values()), dtype=torch.int64).prod())
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        inner = tensors[-2 if name in ("addmm", "baddbmm") else 0].shape[-1]  # the reduced dimension
        return 2 * out.numel() * inner


def draw(ctx: Ctx, salt: int, tokens: int, d: int, h: int) -> list[torch.Tensor]:
    """x, w1, b1, w2, b2: the same on every rank (the seed has no rank in it)."""
    g = torch.Generator().manual_seed(ctx.seed * 1_000_003 + salt * 101)
    return [torch.randn(tokens, d, generator=g), torch.randn(h, d, generator=g) / d ** 0.5,
            torch.randn(h, generator=g), torch.randn(d, h, generator=g) / h ** 0.5, torch.randn(d, generator=g)]


def full_mlp(x: torch.Tensor, w1: torch.Tensor, b1: torch.Tensor, w2: torch.Tensor, b2: torch.Tensor) -> torch.Tensor:
    """The single-process MLP, in float64 and cast back, as the answer every rank must give."""
    x, w1, b1, w2, b2 = (t.double() for t in (x, w1, b1, w2, b2))
    hidden = torch.nn.functional.gelu(x @ w1.T + b1)
    return (hidden @ w2.T + b2).float()


def shard(h: int, ctx: Ctx) -> torch.Tensor:
    return torch.arange(h).tensor_split(ctx.world)[ctx.rank]


def with_garbage(ctx: Ctx, w1: torch.Tensor, b1: torch.Tensor, w2: torch.Tensor) -> list[torch.Tensor]:
    """NaN in the rows of w1/b1 and the columns of w2 that belong to the other ranks' shards."""
    others = torch.ones(w1.shape[0], dtype=torch.bool)
    others[shard(w1.shape[0], ctx)] = False
    w1, b1, w2 = w1.clone(), b1.clone(), w2.clone()
    w1[others], b1[others], w2[:, others] = float("nan"), float("nan"), float("nan")
    return [w1, b1, w2]


def untouched(inputs: list[torch.Tensor], copies: list[torch.Tensor]) -> Outcome:
    names = ("x", "w1", "b1", "w2", "b2")
    for name, t, c in zip(names, inputs, copies, strict=True):
        if t.shape != c.shape or not bool(torch.isclose(t, c, rtol=0, atol=0, equal_nan=True).all()):
            return fail(f"the input {name} was changed by the call: leave the inputs as they are")
    return ok()


def output_case(tokens: int, d: int, h: int, salt: int, garbage: bool = False, zero_w2: bool = False):
    def run(sol: ModuleType, ctx: Ctx) -> Outcome:
        x, w1, b1, w2, b2 = draw(ctx, salt, tokens, d, h)
        if zero_w2:
            w2 = torch.zeros_like(w2)
        expected = full_mlp(x, w1, b1, w2, b2)
        if garbage:
            w1, b1, w2 = with_garbage(ctx, w1, b1, w2)
        inputs = [x, w1, b1, w2, b2]
        copies = [t.clone() for t in inputs]
        got = sol.tp_mlp(*inputs)
        what = f"output for tokens={tokens}, d={d}, h={h} (shard of {len(shard(h, ctx))} rows on rank {ctx.rank})"
        if garbage and isinstance(got, torch.Tensor) and bool(got.isnan().any()):
            return fail(f"{what}: NaN in the output; the rows of w1/b1 and the columns of w2 outside this "
                        f"rank's shard hold NaN here, so this rank read another rank's part")
        return first_failure(same(got, expected, what, atol=1e-4, rtol=1e-4), untouched(inputs, copies))
    return run


def one_all_reduce(sol: ModuleType, ctx: Ctx) -> Outcome:
    tokens, d, h = 6, 8, 32
    x, w1, b1, w2, b2 = draw(ctx, 5, tokens, d, h)
    with Collectives() as c:
        got = sol.tp_mlp(x, w1, b1, w2, b2)
    calls = ", ".join(f"{name}({numel} elements)" for name, numel in c.calls) or "none"
    if [name for name, _ in c.calls] != ["allreduce"]:
        return fail(f"collectives called: {calls}; the MLP needs exactly one: an all-reduce of the "
                    f"(tokens, d) = ({tokens}, {d}) partial outputs")
    if c.calls[0][1] != tokens * d:
        return fail(f"the all-reduce carried {c.calls[0][1]} elements; the partial outputs are "
                    f"tokens·d = {tokens * d}")
    return same(got, full_mlp(x, w1, b1, w2, b2), "output", atol=1e-4, rtol=1e-4)


def shard_flops(sol: ModuleType, ctx: Ctx) -> Outcome:
    tokens, d, h = 8, 16, 64
    x, w1, b1, w2, b2 = draw(ctx, 6, tokens, d, h)
    h_r = len(shard(h, ctx))
    with MatmulFlops() as counter:
        sol.tp_mlp(x, w1, b1, w2, b2)
    did, mine, whole = counter.flops, 2 * 2 * tokens * d * h_r, 2 * 2 * tokens * d * h
    if did > mine:
        return fail(f"this rank's matrix products cost {did} FLOPs; its shard ({h_r} of {h} hidden features) "
                    f"needs {mine}, the whole MLP {whole}: multiply by the shard only")
    return ok()


CASES = [
    Case("matches_full_mlp", "tokens=5, d=8, h=32: the full MLP's output on every rank",
         "Split w1 by rows (output features) and w2 by the same columns (input features); each rank's product "
         "is a partial sum of the output.",
         "w1 按行（输出特征）切，w2 按相同的列（输入特征）切；每个 rank 的乘积是输出的一个部分和。",
         output_case(5, 8, 32, salt=1)),
    Case("bias_added_once", "w2 = 0, so the output is b2 alone; n·b2 means the bias was summed",
         "The all-reduce adds whatever each rank contributes. Which term must be counted once, not n times?",
         "all-reduce 会把每个 rank 贡献的东西全部加起来。哪一项只能算一次，而不是 n 次？",
         output_case(4, 6, 12, salt=2, zero_w2=True)),
    Case("uneven_hidden", "h=7 on 2 ranks: shards of 4 and 3 hidden features",
         "Take the shard as tensor_split does (the first h % n ranks get one row more); h // n rows per rank "
         "loses the remainder.",
         "分片按 tensor_split 的规则取（前 h % n 个 rank 多一行）；每个 rank 取 h // n 行会丢掉余数。",
         output_case(4, 3, 7, salt=3)),
    Case("only_own_shard", "h=9: NaN in the rows of w1/b1 and columns of w2 that belong to the other rank",
         "Only your rows of w1 and b1 and your columns of w2 are real here; slice them before any product.",
         "这里只有本 rank 的 w1、b1 行和 w2 列是有效数据；先切片，再做乘法。",
         output_case(5, 4, 9, salt=4, garbage=True)),
    Case("one_all_reduce", "the collectives one call makes: one all-reduce of tokens·d elements",
         "The hidden activation stays sharded (gelu is element-wise); only the second linear's partial "
         "outputs need summing.",
         "隐藏层激活保持分片即可（gelu 是逐元素的）；只有第二个线性层的部分输出需要求和。",
         one_all_reduce),
    Case("shard_flops", "tokens=8, d=16, h=64: matrix-product FLOPs of one call vs the shard's 1/n",
         "Computing the full x @ w1.T and slicing afterwards gives the right answer at n times the cost.",
         "先算完整的 x @ w1.T 再切片，结果对，但计算量是 n 倍。",
         shard_flops),
]
