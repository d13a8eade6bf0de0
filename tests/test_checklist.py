"""The self-assessment checklist: valid links, questions by skill tag, weakest-first recommendations."""

from __future__ import annotations

from pathlib import Path

import pytest

from coach.db import connect
from coach.review import load_self_assessment, save_self_assessment
from labs.registry import LABS
from question_bank.checklist import level, load_checklist, questions_for, recommend
from question_bank.loader import Bank, load_bank
from question_bank.taxonomy import skill_ids


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_bank()


def test_items_cover_the_required_points() -> None:
    items = load_checklist()
    ids = [i.id for i in items]
    assert len(ids) == len(set(ids))
    assert {"dp_gradient_sync", "tensor_pipeline_parallel", "mixed_precision", "failure_diagnosis",
            "elastic_training", "checkpoint_save_restore", "nccl_topology_timeouts", "zero_stages",
            "star_project_story", "cluster_training_plan"} <= set(ids)


def test_items_link_only_to_known_skills_and_labs() -> None:
    known = set(skill_ids())
    for item in load_checklist():
        assert item.zh.strip() and item.en.strip(), item.id
        assert item.skills and set(item.skills) <= known, item.id
        assert set(item.labs) <= set(LABS), item.id


def test_questions_found_by_skill_tag(bank: Bank) -> None:
    zero = next(i for i in load_checklist() if i.id == "zero_stages")
    found = questions_for(zero, bank)
    assert "zero-memory-per-stage" in [q.id for q in found]
    assert all(set(q.tags) & set(zero.skills) for q in found)


def test_recommend_weakest_first(bank: Bank) -> None:
    items = load_checklist()
    ratings = {i.id: 5 for i in items} | {"zero_stages": 1, "mixed_precision": 3}
    recs = recommend(ratings, bank)
    assert [r.item.id for r in recs[:2]] == ["zero_stages", "mixed_precision"]
    assert (recs[0].level, recs[1].level, recs[-1].level) == ("unfamiliar", "know", "master")
    assert "zero-memory-per-stage" in [q.id for q in recs[0].questions]
    assert len(recs) == len(items)


def test_unrated_items_count_as_gaps(bank: Bank) -> None:
    recs = recommend({"failure_diagnosis": 4}, bank)
    assert recs[-1].item.id == "failure_diagnosis"
    assert recs[0].rating is None and recs[0].level == "unfamiliar"
    assert next(r for r in recs if r.item.id == "checkpoint_save_restore").labs == ("fault_resume",)


def test_recommend_rejects_bad_ratings(bank: Bank) -> None:
    with pytest.raises(ValueError):
        recommend({"zero_stages": 0}, bank)
    with pytest.raises(ValueError):
        recommend({"no_such_item": 3}, bank)


def test_levels() -> None:
    assert [level(r) for r in (1, 2, 3, 4, 5)] == ["unfamiliar", "unfamiliar", "know", "master", "master"]


def test_ratings_round_trip_through_the_database(tmp_path: Path, bank: Bank) -> None:
    conn = connect(tmp_path)
    for item in load_checklist():
        save_self_assessment(conn, item.id, 4)
    save_self_assessment(conn, "elastic_training", 2)
    assert recommend(load_self_assessment(conn), bank)[0].item.id == "elastic_training"
