"""The grader against tests/data/grading_calibration.yaml: answers banded by hand as a demanding interviewer would
(good >= 70, partial 30-69, confident misconception <= 35, keyword list <= 35, off-topic <= 10). At least 90% must
land in band, and for every question good > partial > every misconception, keyword list or off-topic answer."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import pytest
import yaml

from coach.grading import grade
from question_bank.loader import load_bank

DATA = Path(__file__).parent / "data" / "grading_calibration.yaml"
BANDS = {"good": (70, 100), "partial": (30, 69), "misconception": (0, 35), "keyword_list": (0, 35),
         "off_topic": (0, 10)}
LOW = ("misconception", "keyword_list", "off_topic")
BANK = load_bank()
ANSWERS = yaml.safe_load(DATA.read_text(encoding="utf-8"))["answers"]


@pytest.fixture(scope="module")
def graded() -> list[tuple[dict, int]]:
    return [(a, grade(BANK.by_id[a["question"]], a["text"], a["lang"]).score) for a in ANSWERS]


def test_the_set_is_broad_enough() -> None:
    questions = {a["question"] for a in ANSWERS}
    assert len(ANSWERS) >= 80 and len(questions) >= 16
    assert len({BANK.topic_of[q] for q in questions}) >= 8
    assert {a["lang"] for a in ANSWERS} == {"zh", "en"} and set(Counter(a["band"] for a in ANSWERS)) == set(BANDS)
    assert len({a["style"] for a in ANSWERS}) >= 8
    for q in questions:  # every question has the answers the ordering test compares
        bands = {a["band"] for a in ANSWERS if a["question"] == q}
        assert {"good", "partial"} <= bands and bands & set(LOW), q


def test_at_least_90_percent_in_band(graded: list[tuple[dict, int]]) -> None:
    out = [f"{a['question']} {a['band']} {a['lang']}: {score}" for a, score in graded
           if not BANDS[a["band"]][0] <= score <= BANDS[a["band"]][1]]
    assert len(out) <= 0.1 * len(graded), "\n".join(out)


def test_per_question_good_beats_partial_beats_every_wrong_list_or_off_topic(graded) -> None:
    by_q: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for a, score in graded:
        by_q[a["question"]][a["band"]].append(score)
    for q, bands in by_q.items():
        low = max(s for b in LOW for s in bands.get(b, []))
        assert min(bands["good"]) > max(bands["partial"]) > low, (q, dict(bands))


def test_every_reference_answer_grades_as_good_without_a_misconception() -> None:
    """The bank's own answers are the negative control of the misconception patterns and contradicting facts,
    and a check that the rubric can be met in either language."""
    low, wrong = [], []
    for q in BANK.questions:
        for lang in ("zh", "en"):
            ref = getattr(q.answer, lang)
            g = grade(q, "\n".join([ref.essence, *ref.parts]), lang)
            wrong += [f"{q.id} {lang}: {m.quote}" for m in g.misconceptions]
            if g.score < 70:
                low.append(f"{q.id} {lang}: {g.score}")
    assert not wrong, "\n".join(wrong)
    assert len(low) <= 0.02 * 2 * len(BANK.questions), "\n".join(low)
