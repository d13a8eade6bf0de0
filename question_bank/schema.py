"""The bank's schema: one YAML file per topic under `question_bank/questions/`, validated by these models."""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


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


class KeyPoint(Strict):
    """One rubric item; `terms` are words (either language) whose presence shows the point was covered."""
    zh: str = Field(min_length=1)
    en: str = Field(min_length=1)
    terms: list[str] = Field(min_length=1)


class Reference(Strict):
    title: str = Field(min_length=1)
    url: str = Field(pattern=r"^https?://")


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
    mistakes: list[Text] = Field(default_factory=list)
    follow_ups: list[str | Text] = Field(default_factory=list)
    labs: list[str] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)
    verified_by: list[Check] = Field(default_factory=list)


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
