"""The katas: name -> what the user writes, on how many ranks, which bank questions it answers.

Each kata is a folder `labs/kata/<name>/` whose `__init__.py` holds its `KATA = Kata(...)` and imports
nothing else, so that listing katas (the CLI, the app, the bank's link check) imports no torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import import_module
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Kata:
    name: str
    title_en: str
    title_zh: str
    nproc: int
    """Ranks the judge runs the user's code on (torchrun --nproc-per-node)."""
    questions: tuple[str, ...]
    """Bank question ids this kata answers in code; each of them lists the kata back (a test checks both ways)."""
    order: int = 100
    """Where it stands in lists: the usual interview order, the ring first."""
    timeout_s: float = 90.0
    """Wall-clock limit of one check, launch included."""

    def title(self, lang: str) -> str:
        return self.title_zh if lang == "zh" else self.title_en

    @property
    def folder(self) -> Path:
        return HERE / self.name

    def stub(self) -> str:
        return (self.folder / "stub.py").read_text(encoding="utf-8")

    def reference(self) -> str:
        return (self.folder / "reference.py").read_text(encoding="utf-8")


@cache
def all_katas() -> dict[str, Kata]:
    """Every kata folder (one with a stub.py), in the order of their `order` numbers."""
    found = [import_module(f"labs.kata.{d.name}").KATA for d in HERE.iterdir() if (d / "stub.py").is_file()]
    return {k.name: k for k in sorted(found, key=lambda k: (k.order, k.name))}


def get(name: str) -> Kata | None:
    return all_katas().get(name)
