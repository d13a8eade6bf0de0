"""What a kata's judge is made of: cases that run the user's code on every rank and compare what it did.

A kata's `cases.py` defines `CASES`, a list of `Case`: a name, a one-line description, a hint in both
languages, and `run(solution, ctx) -> Outcome`, called on every rank. A case passes when it passes on
every rank. `same()` compares tensors and names the first element that differs, which is what a user
debugging a ring index needs to see.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import torch


@dataclass
class Ctx:
    rank: int
    world: int
    seed: int
    workdir: Path
    """A folder of this rank's own (the kata's scratch space: checkpoint files, say)."""

    def generator(self, salt: int = 0) -> torch.Generator:
        """A generator seeded per case and rank, so every run of the judge draws the same tensors."""
        return torch.Generator().manual_seed(self.seed * 1_000_003 + salt * 101 + self.rank)


@dataclass
class Outcome:
    passed: bool
    detail: str = ""


@dataclass(frozen=True)
class Case:
    name: str
    what: str
    """What the case feeds the user's code, in a few words (English; the names are shown as they are)."""
    hint_en: str
    hint_zh: str
    run: Callable[[ModuleType, Ctx], Outcome]


def ok() -> Outcome:
    return Outcome(True)


def fail(detail: str) -> Outcome:
    return Outcome(False, detail)


def same(got: object, expected: torch.Tensor, what: str, atol: float = 1e-5, rtol: float = 1e-5) -> Outcome:
    """`got` equals `expected` within tolerance; otherwise the first differing element, its index and values."""
    if not isinstance(got, torch.Tensor):
        return fail(f"{what}: expected a tensor, got {type(got).__name__}")
    if tuple(got.shape) != tuple(expected.shape):
        return fail(f"{what}: shape {tuple(got.shape)}, expected {tuple(expected.shape)}")
    if got.dtype != expected.dtype:
        return fail(f"{what}: dtype {got.dtype}, expected {expected.dtype}")
    close = torch.isclose(got.detach().cpu(), expected.cpu(), atol=atol, rtol=rtol, equal_nan=True)
    if bool(close.all()):
        return ok()
    flat = int((~close).reshape(-1).nonzero()[0].item())
    index = tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), tuple(expected.shape))) or ()
    bad = int((~close).sum().item())
    return fail(f"{what}: {bad} of {expected.numel()} elements differ; first at index {list(index)}: "
                f"got {got.reshape(-1)[flat].item():.6g}, expected {expected.reshape(-1)[flat].item():.6g}")


def first_failure(*outcomes: Outcome) -> Outcome:
    """The first failed outcome, or a pass when all passed (several checks in one case)."""
    return next((o for o in outcomes if not o.passed), ok())


# The process group's collective methods: every dist.* collective ends in one of them, whatever way it was called
# (names differ across torch versions: those this torch lacks are skipped).
COLLECTIVES = tuple(m for m in (
    "allreduce", "allreduce_coalesced", "allgather", "_allgather_base", "allgather_coalesced",
    "allgather_into_tensor_coalesced", "all_gather_single", "all_gather_single_coalesced", "reduce_scatter",
    "_reduce_scatter_base", "reduce_scatter_single", "reduce_scatter_single_coalesced",
    "reduce_scatter_tensor_coalesced", "alltoall", "alltoall_base", "all_to_all_single", "broadcast", "reduce",
    "gather", "scatter") if hasattr(torch._C._distributed_c10d.ProcessGroup, m))


@contextmanager
def patched_process_group(wrappers: dict[str, Callable[[Callable], Callable]]) -> Iterator[None]:
    """Replace ProcessGroup methods for the block: `wrappers[name](real)` returns the replacement. The raw class
    attributes are put back (inspect.getattr_static): `getattr` gives pybind's plain function, which set back on
    the class would no longer bind `self` and break every later call of that collective."""
    pg = torch._C._distributed_c10d.ProcessGroup
    saved = {name: inspect.getattr_static(pg, name) for name in wrappers}
    try:
        for name, wrap in wrappers.items():
            setattr(pg, name, wrap(getattr(pg, name)))
        yield
    finally:
        for name, raw in saved.items():
            setattr(pg, name, raw)


def refusing(name: str) -> Callable[[Callable], Callable]:
    def wrap(real: Callable) -> Callable:
        def refuse(*args: object, **kwargs: object) -> None:
            raise RuntimeError(f"collectives ({name}) are off in this kata: write it with send/recv")
        return refuse
    return wrap


class Traffic:
    """Counts the bytes this rank sends point to point, and refuses the collectives a kata rules out.

    `with Traffic(forbid=COLLECTIVES) as t: solution.f(x)`, then `t.sent` is the bytes sent. Both are done
    on the process group's own methods (ProcessGroup.send, .allreduce, ...), where dist.send, isend,
    batch_isend_irecv and every collective end, so an alias imported by the user's file is seen as well."""

    def __init__(self, forbid: tuple[str, ...] = ()) -> None:
        self.forbid, self.sent = forbid, 0

    def __enter__(self) -> Traffic:
        def counting(real: Callable) -> Callable:
            def send(group: object, tensors: list[torch.Tensor], *args: object, **kwargs: object) -> object:
                self.sent += sum(t.numel() * t.element_size() for t in tensors)
                return real(group, tensors, *args, **kwargs)
            return send

        self.patch = patched_process_group({"send": counting, **{m: refusing(m) for m in self.forbid}})
        self.patch.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.patch.__exit__(*exc)
