"""JD reading measured on hand-labelled JDs (tests/data/jds/*.yaml, see its README): recall of the labelled
skills, required/preferred labelling, precision of the skills found and of the proposed new terms."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from coach.jd import analyze_jd
from question_bank.taxonomy import skill_ids

JD_DIR = Path(__file__).parent / "data" / "jds"
JDS = {p.stem: yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted(JD_DIR.glob("*.yaml"))}


def scores() -> dict[str, float]:
    """Recall, labelling accuracy (of the labelled skills found, how many at the right level), precision, and
    precision of the proposed terms, pooled over all JDs."""
    labelled = found = right = correct_found = level_ok = 0
    proposed = real = 0
    for jd in JDS.values():
        got = analyze_jd(jd["text"])
        want = {k: "required" for k in jd["required"]} | {k: "preferred" for k in jd["preferred"]}
        labelled += len(want)
        found += len(got.skills)
        hit = [k for k in want if k in got.skills]
        right += len(hit)
        correct_found += sum(k in want for k in got.skills)
        level_ok += sum(got.skills[k].level == want[k] for k in hit)
        terms = {t.lower() for t in jd["terms"]}
        proposed += len(got.candidates)
        real += sum(t.lower() in terms for t in got.candidates)
    return {"recall": right / labelled, "labelling": level_ok / right, "precision": correct_found / found,
            "terms_precision": real / proposed if proposed else 1.0}


def test_the_labelled_set_is_broad_and_uses_real_skill_ids() -> None:
    assert len(JDS) >= 12
    assert {j["lang"] for j in JDS.values()} >= {"zh", "en", "mixed"}
    assert {j["role"] for j in JDS.values()} >= {"training", "inference", "platform", "sre"}
    assert {j["format"] for j in JDS.values()} >= {"bullets", "prose", "table"}
    known = set(skill_ids())
    for name, jd in JDS.items():
        assert set(jd["required"]) <= known and set(jd["preferred"]) <= known, name
        assert not set(jd["required"]) & set(jd["preferred"]), name


def test_recall_labelling_and_precision_on_the_labelled_jds() -> None:
    s = scores()
    assert s["recall"] >= 0.95 and s["labelling"] >= 0.90 and s["precision"] >= 0.90, s
    assert s["terms_precision"] >= 0.80, s


@pytest.mark.parametrize("name", sorted(JDS))
def test_each_jd_finds_most_of_its_skills(name: str) -> None:
    """No single JD is badly read (the pooled scores could hide one)."""
    jd = JDS[name]
    got = analyze_jd(jd["text"], propose=False)
    want = set(jd["required"]) | set(jd["preferred"])
    missed, extra = want - set(got.skills), set(got.skills) - want
    assert len(missed) <= max(1, len(want) // 10) and len(extra) <= max(1, len(want) // 10), (missed, extra)
