"""Search recall on queries typed the way candidates type them, written before their authors read the bank and
labelled by reading it (tests/data/search_recall*.yaml): the share of queries with a relevant question in the
top 3. Three sets: dev and heldout (the glossary and the per-skill synonym cap were built after seeing dev's
misses), and fresh (40 queries by another author, not seen while those were built). The issue's target is 90%;
the floors below are what the engine does today on the 396-question bank (the labels were made on 317-383
questions: questions added since may be relevant and unlabelled), so that a change that loses recall fails.
Before the glossary and the synonym cap, on the same bank: dev 75%, heldout 62%, fresh 68%."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from question_bank.loader import load_bank
from question_bank.search import Index, renderings, translations

DATA = Path(__file__).parent / "data"
FLOORS = {"dev": 0.78, "heldout": 0.75, "fresh": 0.75}


def queries() -> dict[str, list[dict]]:
    split = yaml.safe_load((DATA / "search_recall.yaml").read_text(encoding="utf-8"))
    out = {"dev": [q for q in split if q["split"] == "dev"], "heldout": [q for q in split if q["split"] == "heldout"]}
    out["fresh"] = yaml.safe_load((DATA / "search_recall_fresh.yaml").read_text(encoding="utf-8"))
    return out


@pytest.fixture(scope="module")
def index() -> Index:
    return Index(load_bank())


def test_every_label_names_a_question_of_the_bank(index: Index) -> None:
    for name, qs in queries().items():
        for q in qs:
            assert q["relevant"], f"{name}: {q['query']!r} has no relevant question"
            assert set(q["relevant"]) <= set(index.bank.by_id), f"{name}: {q['query']!r}: unknown ids"


@pytest.mark.parametrize("name", list(FLOORS))
def test_a_relevant_question_is_in_the_top_3(index: Index, name: str) -> None:
    qs = queries()[name]
    missed = [q["query"] for q in qs if not set(q["relevant"]) & {h.question.id for h in index.search(q["query"], k=3)}]
    recall = 1 - len(missed) / len(qs)
    print(f"{name}: recall@3 {recall:.0%} of {len(qs)}; missed {missed}")
    assert recall >= FLOORS[name], f"{name}: recall@3 {recall:.0%} < {FLOORS[name]:.0%}; missed {missed}"


def test_a_chinese_rendering_searches_the_english_term_the_bank_writes(index: Index) -> None:
    assert translations("损失尖峰怎么查") == ["loss spike"]  # the longest rendering, not also 损失 + 尖峰
    english = " ".join(f"{q.question.en} {q.answer.en.essence} {' '.join(q.answer.en.parts)}"
                       for q in index.bank.questions).lower()
    unused = sorted({t for t in renderings().values() if t.lower() not in english})
    assert not unused, f"glossary terms the bank never writes (the expansion finds nothing): {unused}"
