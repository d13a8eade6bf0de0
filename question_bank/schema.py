"""The bank's schema: one YAML file per topic under `question_bank/questions/`, validated by these models."""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from question_bank.rubric import UNITS


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class QType(str, Enum):
    concept = "concept"        # 原理
    experience = "experience"  # 经验
    scenario = "scenario"      # 场景/设计
    debug = "debug"            # 排错
    behavioral = "behavioral"  # STAR


class Level(str, Enum):
    new_grad = "new_grad"
    mid = "mid"        # 1-3 years
    senior = "senior"


class Text(Strict):
    """The same sentence in both languages."""
    zh: str = Field(min_length=1)
    en: str = Field(min_length=1)


class Answer(Strict):
    """A structured model answer: the one-line essence first, then the parts."""
    essence: str = Field(min_length=1)
    parts: list[str] = Field(min_length=1)


class BilingualAnswer(Strict):
    zh: Answer
    en: Answer


class Fact(Strict):
    """A number the point rests on. Stated within `tolerance` (relative) in the same unit, it counts as one
    concept of the point; a number of the same dimension stated next to an `about` word that matches none of
    the point's facts contradicts it: a misconception, not coverage. Without `about` a fact only covers."""
    value: float
    unit: str = Field(min_length=1)
    tolerance: float = Field(default=0.02, ge=0, le=1)
    about: list[str] = Field(default_factory=list)

    @field_validator("unit")
    @classmethod
    def _known_unit(cls, unit: str) -> str:
        if unit not in UNITS:
            raise ValueError(f"unknown unit {unit!r} (one of: {', '.join(sorted(UNITS))})")
        return unit


class KeyPoint(Strict):
    """One rubric item (schema v2). `groups` are concepts that must all appear, or `min_groups` of them; each
    group lists synonyms (either language), any one of which shows the concept. `facts` count as concepts too."""
    zh: str = Field(min_length=1)
    en: str = Field(min_length=1)
    groups: list[list[str]] = Field(default_factory=list)
    min_groups: int | None = Field(default=None, ge=1)
    facts: list[Fact] = Field(default_factory=list)
    legacy_terms: bool = Field(default=False, exclude=True)  # read from v1 `terms`; the validator rejects it

    @model_validator(mode="before")
    @classmethod
    def _from_v1(cls, data: Any) -> Any:
        # v1 key points had `terms` (any one covered the point); read them so old files load and
        # `python -m question_bank check` can say what to migrate.
        if isinstance(data, dict) and "terms" in data and "groups" not in data:
            terms = data["terms"] if isinstance(data["terms"], list) else [data["terms"]]
            data = {k: v for k, v in data.items() if k != "terms"}
            data.update(groups=[[t] for t in terms], min_groups=1, legacy_terms=True)
        return data

    @model_validator(mode="after")
    def _something_to_find(self) -> KeyPoint:
        for g in self.groups:
            if not g or any(not isinstance(t, str) or not t.strip() for t in g):
                raise ValueError("every concept group needs at least one non-empty synonym")
        n = len(self.groups) + len(self.facts)
        if n == 0:
            raise ValueError("a key point needs at least one concept group or fact")
        if self.min_groups is not None and self.min_groups > n:
            raise ValueError(f"min_groups {self.min_groups} exceeds the {n} groups and facts")
        return self

    @property
    def required(self) -> int:
        """How many concepts (groups + facts) cover the point fully."""
        return self.min_groups or len(self.groups) + len(self.facts)

    @property
    def terms(self) -> list[str]:
        """Every synonym of every group, flat (for search)."""
        return [t for g in self.groups for t in g]


class Mistake(Strict):
    """A common mistake. `match`: concept groups that, all in one sentence that does not deny them, state the
    mistake; `point` is the index of the key point it makes wrong (None: it costs points but marks no point)."""
    zh: str = Field(min_length=1)
    en: str = Field(min_length=1)
    match: list[list[str]] = Field(default_factory=list)
    point: int | None = Field(default=None, ge=0)


class FollowUp(Text):
    """A free-text follow-up with its own rubric, so the interview can grade its answer (a follow-up given as a
    question id is graded with that question's key points instead)."""
    key_points: list[KeyPoint] = Field(default_factory=list)


class Reference(Strict):
    title: str = Field(min_length=1)
    url: str = Field(pattern=r"^https?://")


class Cited(Strict):
    """A figure the answer takes from a source: `shown` as the answers write it, `ref` the index of the
    question's reference that states it."""
    shown: str = Field(min_length=1)
    ref: int = Field(ge=0)


class Check(Strict):
    """A number in the answer that a function of `labs.core.theory` computes: `fn(**args)` must equal `expect`
    within relative tolerance `rtol`, and `expect` as written in `shown` must appear in both answers."""
    fn: str
    args: dict[str, Any]
    key: str | None = None      # pick one entry when fn returns a dict
    scale: float = 1.0          # e.g. 1e-9 to compare bytes with a figure quoted in GB
    expect: float
    rtol: float = 0.01
    shown: str                  # how the answer writes the figure, e.g. "16 GB"

    @field_validator("args")
    @classmethod
    def _numbers(cls, args: dict[str, Any]) -> dict[str, Any]:
        # PyYAML reads 7.5e9 (no dot before the exponent sign) as a string; accept it as the number it means.
        out = {}
        for k, v in args.items():
            try:
                out[k] = float(v) if isinstance(v, str) else v
            except ValueError:
                out[k] = v
        return out


class Question(Strict):
    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    type: QType
    difficulty: int = Field(ge=1, le=3)
    level: Level
    tags: list[str] = Field(min_length=1)
    question: Text
    answer: BilingualAnswer
    key_points: list[KeyPoint] = Field(min_length=2)
    mistakes: list[Mistake] = Field(default_factory=list)
    follow_ups: list[str | FollowUp] = Field(default_factory=list)
    labs: list[str] = Field(default_factory=list)
    katas: list[str] = Field(default_factory=list)
    """The katas (labs/kata/<name>/) whose code answers this question; each lists the question back."""
    references: list[Reference] = Field(default_factory=list)
    verified_by: list[Check] = Field(default_factory=list)
    cited: list[Cited] = Field(default_factory=list)


class TopicFile(Strict):
    topic: str = Field(pattern=r"^[a-z0-9_]+$")
    title: Text
    questions: list[Question] = Field(min_length=1)

    @field_validator("questions")
    @classmethod
    def _unique_ids(cls, qs: list[Question]) -> list[Question]:
        seen: set[str] = set()
        for q in qs:
            if q.id in seen:
                raise ValueError(f"duplicate question id {q.id!r}")
            seen.add(q.id)
        return qs
