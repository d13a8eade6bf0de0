"""The self-assessment checklist (`checklist.yaml`) and what to study next given the user's ratings.

Ratings run 1-5: 1-2 unfamiliar, 3 know, 4-5 master. The ratings themselves are user state and live in
`coach` (the SQLite database); this module only reads knowledge.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from question_bank.loader import Bank
from question_bank.schema import Question

CHECKLIST_PATH = Path(__file__).with_name("checklist.yaml")


@dataclass(frozen=True)
class Item:
    id: str
    zh: str
    en: str
    skills: tuple[str, ...]  # taxonomy skill ids; the item's questions are those tagged with any of them
    labs: tuple[str, ...]    # names in labs.registry.LABS


@dataclass(frozen=True)
class Recommendation:
    item: Item
    rating: int | None       # None: not rated yet
    level: str               # unfamiliar / know / master
    questions: list[Question]
    labs: tuple[str, ...]


def load_checklist(path: Path = CHECKLIST_PATH) -> list[Item]:
    raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    return [Item(i["id"], i["zh"], i["en"], tuple(i["skills"]), tuple(i.get("labs") or ()))
            for i in raw["items"]]


def level(rating: int | None) -> str:
    if rating is None or rating <= 2:
        return "unfamiliar"
    return "know" if rating == 3 else "master"


def questions_for(item: Item, bank: Bank) -> list[Question]:
    """Bank questions tagged with any of the item's skills: most skills shared first, then easier first."""
    wanted = set(item.skills)
    tagged = [q for q in bank.questions if wanted & set(q.tags)]
    return sorted(tagged, key=lambda q: (-len(wanted & set(q.tags)), q.difficulty))


def recommend(ratings: dict[str, int], bank: Bank, items: list[Item] | None = None) -> list[Recommendation]:
    """Every checklist item, weakest first, with its questions and labs. An unrated item counts as 1: a point
    never assessed is treated as a gap. Ties keep checklist order."""
    items = load_checklist() if items is None else items
    known = {i.id for i in items}
    for item_id, rating in ratings.items():
        if item_id not in known:
            raise ValueError(f"unknown checklist item {item_id!r}")
        if not 1 <= rating <= 5:
            raise ValueError(f"rating for {item_id!r} must be 1-5, got {rating}")
    ordered = sorted(items, key=lambda i: ratings.get(i.id, 1))
    return [Recommendation(i, ratings.get(i.id), level(ratings.get(i.id)), questions_for(i, bank), i.labs)
            for i in ordered]
