"""The anti-fabrication check: a rewrite may only state what its sources state.

Sources are the user's own words: the original bullet, the résumé, and the answers the user typed to the
coach's questions. Never the JD: a JD says what the employer wants, not what the user did.

A candidate text is rejected when it contains
- a quantity whose value no source states (32 GPUs, 1.5x, 20%, 7B, 千卡, thirty-two; see `coach.numbers`),
- a taxonomy skill no source states (see `coach.skills.stated_skills`; an equivalent tool is not enough),
- an identifier with digits no source contains (H100, GPT-4, ZeRO-3, fp8): a model, a chip or a version.
Every offline and LLM output goes through `check` before the user sees it; rejected ones are returned
with the reasons, so the UI can show what was held back and why.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from coach.numbers import quantities, same_value, values
from coach.skills import skill_name, stated_skills
from question_bank.taxonomy import alias_pattern

_TERM = re.compile(
    r"(?<![A-Za-z0-9_])(?=[A-Za-z0-9_.\-]*[A-Za-z])(?=[A-Za-z0-9_.\-]*\d)[A-Za-z0-9_]+(?:[.\-][A-Za-z0-9_]+)*"
)
# "7B", "1.5x", "80GB", and "7B-parameter", "64-GPU": a quantity (checked as a number), not an identifier.
_PURE_QUANTITY = re.compile(r"\d+(?:\.\d+)?(?:[kKMBT]|[xX]|[GMKTP]?B|ms|us|s|h|min|GPUs?|nodes?)?(?:-[A-Za-z]+)*")


@dataclass(frozen=True)
class Violation:
    kind: str    # number | skill | term
    value: str   # as written in the candidate
    reason: str


@dataclass(frozen=True)
class Rejected:
    text: str
    violations: tuple[Violation, ...]

    @property
    def reason(self) -> str:
        return "; ".join(v.reason for v in self.violations)


@dataclass
class Sources:
    """What the user has said, prepared once for checking many candidates."""
    texts: list[str]
    values: set[float] = field(init=False)
    skills: set[str] = field(init=False)
    joined: str = field(init=False)

    def __post_init__(self) -> None:
        self.joined = "\n".join(self.texts)
        self.values = values(self.joined)
        self.skills = set(stated_skills(self.joined))


def sources(*texts: str | Iterable[str] | None) -> Sources:
    """Sources from strings, lists of strings (answers) or None (absent parts)."""
    flat: list[str] = []
    for t in texts:
        if t is None:
            continue
        flat += [t] if isinstance(t, str) else [str(x) for x in t]
    return Sources(flat)


def check(text: str, src: Sources) -> list[Violation]:
    """Every claim in `text` that `src` does not back; empty means the text may be shown."""
    found: list[Violation] = []
    for q in quantities(text):
        if not any(same_value(q.value, v) for v in src.values):
            found.append(Violation("number", q.text, f"the number {q.text!r} is not in your bullet, résumé or answers"))
    for skill_id, aliases in stated_skills(text).items():
        if skill_id not in src.skills:
            found.append(Violation(
                "skill", aliases[0], f"the skill {skill_name(skill_id)!r} ({aliases[0]}) is not in your sources"
            ))
    for m in _TERM.finditer(text):
        term = m.group(0)
        if _PURE_QUANTITY.fullmatch(term) or any(v.value == term for v in found):
            continue
        if not alias_pattern(_term_core(term)).search(src.joined):
            found.append(Violation("term", term, f"{term!r} is not in your sources"))
    return found


def _term_core(term: str) -> str:
    """The identifier inside a term: "H100-based" -> "H100", "A100s" -> "A100"; "ZeRO-3" stays whole."""
    core = re.sub(r"(?:-[A-Za-z]+)+$", "", term)
    core = re.sub(r"(?<=\d)s$", "", core)
    return core if re.search(r"\d", core) else term


def screen(candidates: Iterable[str], src: Sources) -> tuple[list[str], list[Rejected]]:
    """Split candidates into those that pass `check` and those rejected (with why)."""
    kept: list[str] = []
    rejected: list[Rejected] = []
    for c in candidates:
        problems = check(c, src)
        if problems:
            rejected.append(Rejected(c, tuple(problems)))
        else:
            kept.append(c)
    return kept, rejected
