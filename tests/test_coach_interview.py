"""Mock interviews offline: the plan, rubric grading, follow-ups from the résumé and lab runs, the saved session.

Real SQLite under KGP_DATA_DIR (set per test by conftest), real bank, real report.json files in tmp runs/.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from coach.board import create_card, get_card
from coach.db import connect
from coach.followups import Asked, claim_question, offline_follow_ups
from coach.grading import grade, review_rating
from coach.interview import (
    SessionError,
    export_markdown,
    finish_session,
    load_session,
    next_question,
    reference,
    start_session,
    submit_answer,
    write_transcript,
)
from coach.interview_store import PASS_MARK, list_sessions, suggested_ratings, weakness
from coach.jd import analyze_jd
from coach.numbers import values
from coach.plan import Signals, plan_session, signals, weight
from coach.review import due, load_self_assessment, rate, save_self_assessment
from question_bank.loader import load_bank
from question_bank.schema import QType, Question

BANK = load_bank()
JD = """岗位职责：负责千卡规模大模型训练的稳定性：断点续训、检查点、容错与弹性训练。
任职要求：熟悉 PyTorch 分布式与 NCCL；有 Megatron 经验者优先。"""
CLAIM_ZH = "把 64 卡训练的断点续训恢复时间从 30 分钟降到 5 分钟"
CLAIM_EN = "Cut training time 20% on 16 A100s by overlapping all-reduce with backward"
RESUME = f"""# 李雷
## 工作经历
### ACME | 训练平台 | 2021-2024
- {CLAIM_ZH}
- {CLAIM_EN}
- 负责团队的代码评审
"""
OFF_TOPIC = {"zh": "我周末喜欢爬山和做饭。最近在读一本历史小说，很有意思。", "en":
             "I like hiking and cooking at the weekend. I am reading a history novel, which is fun."}


def good_answer(q: Question, lang: str = "zh") -> str:
    """A candidate who knows the rubric: one sentence per key point, its own words plus its first two terms;
    behavioral answers marked Situation / Task / Action / Result, with a figure in the result."""
    lines = [f"{getattr(kp, lang)}: {', '.join(kp.terms[:2])}." for kp in q.key_points]
    if q.type != QType.behavioral:
        return "\n".join(lines)
    s, t, *rest = lines
    if lang == "zh":
        return f"情境：{s}\n任务：{t}\n行动：我先{' '.join(rest[:-1])}\n结果：{rest[-1]} 故障时间降低了 40%。"
    return f"Situation: {s}\nTask: {t}\nAction: I first {' '.join(rest[:-1])}\nResult: {rest[-1]} Downtime fell 40%."


def write_report(runs: Path, stamp: str, mtime: float, **figures: object) -> Path:
    folder = runs / "fault_resume" / stamp
    folder.mkdir(parents=True)
    data = {"lab": "fault_resume", "passed": True, "checks": {"bit_exact": True},
            "config": {"fault": "kill", "ckpt_every": 5, "ckpt_mode": "async"},
            "checkpoint": {"sync": {"blocking_s_mean": 0.0268}, "async": {"blocking_s_mean": 0.0009}}, **figures}
    path = folder / "report.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    os.utime(path, (mtime, mtime))
    return path


# ---- the plan ----------------------------------------------------------------------------------------------


def test_plan_is_deterministic_mixed_rising_and_follows_the_jd() -> None:
    s = signals(analyze_jd(JD, propose=False), [CLAIM_ZH])
    plan = plan_session(BANK, 5, s, seed=11)
    assert plan == plan_session(BANK, 5, s, seed=11)
    assert plan != plan_session(BANK, 5, s, seed=12)
    qs = [BANK.by_id[p.question_id] for p in plan]
    assert {q.type.value for q in qs} == {"concept", "experience", "scenario", "debug", "behavioral"}
    assert [q.difficulty for q in qs] == sorted(q.difficulty for q in qs)
    assert len({q.id for q in qs}) == 5
    jd_hits = sum(any(w.startswith("jd_required:") for w in p.why) for p in plan)
    assert jd_hits >= 4  # a uniform draw would tag about half of them
    assert all(set(p.why[0].split(":")[1].split(",")) <= set(BANK.by_id[p.question_id].tags)
               for p in plan if p.why)


def test_plan_weighs_weak_topics_from_self_assessment_and_reviews() -> None:
    conn = connect()
    q = BANK.by_id["ckpt-what-to-save"]
    base, _ = weight(q, Signals())
    save_self_assessment(conn, "checkpoint_save_restore", 1)  # skills: checkpointing, checkpoint_resume
    rate(conn, q.id, 1)
    w, why = weight(q, signals(conn=conn))
    assert w == base + 2.0 + 2.0 + 1.0  # weakness 1.0, last review Again, one lapse
    assert "weak:checkpoint_resume,checkpointing" in why and "review:low" in why and "review:lapses=1" in why
    picks = [p.question_id for seed in range(20) for p in plan_session(BANK, 5, signals(conn=conn), seed)]
    weak = sum("checkpointing" in BANK.by_id[i].tags or "checkpoint_resume" in BANK.by_id[i].tags for i in picks)
    tagged = sum("checkpointing" in q.tags or "checkpoint_resume" in q.tags for q in BANK.questions)
    assert weak / len(picks) > 1.5 * tagged / len(BANK.questions)


# ---- grading -----------------------------------------------------------------------------------------------

ONE_PER_TYPE = ["ckpt-what-to-save", "ckpt-truncated-file-debug", "ckpt-async-save", "design-gpu-drop-300",
                "beh-hard-hang"]


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("qid", ONE_PER_TYPE)
def test_good_answers_beat_empty_and_off_topic_ones(qid: str, lang: str) -> None:
    q = BANK.by_id[qid]
    good, empty, off = grade(q, good_answer(q, lang), lang), grade(q, "", lang), grade(q, OFF_TOPIC[lang], lang)
    assert good.score >= 85 and not good.missed, good.reasons
    assert empty.score == 0 and empty.empty and off.score == 0 and off.off_topic
    assert good.reference == getattr(q.answer, lang)
    assert review_rating(good) == 3 and review_rating(empty) == 1


def test_partial_answer_lists_what_it_missed() -> None:
    q = BANK.by_id["ckpt-what-to-save"]
    g = grade(q, "Save the optimizer state (Adam moments) too.", "en")
    assert [p.covered for p in g.points] == [True, False, False, False, False]
    assert g.points[0].evidence.lower() == "optimizer state"
    assert 14 <= g.score < 50 and review_rating(g) == 1
    assert any(r.startswith("Missed: scheduler and loss scaler") for r in g.reasons)


def test_one_lucky_term_does_not_earn_the_structure_points() -> None:
    q = BANK.by_id["perf-throughput-measurement"]  # "同步" (synchronise the GPU) is one of its terms
    g = grade(q, "DP 用 all-reduce 同步梯度，ZeRO 用 reduce-scatter 和 all-gather。\nTP 放在 NVLink 节点内。", "zh")
    assert len(g.covered) == 1 and g.structure.raw_points == 22 and g.structure.points == 9
    assert g.score == 14 + 9 and "22 分按要点覆盖折算" in g.reasons[-1]


def test_terms_match_case_insensitively_as_words_and_through_taxonomy_aliases() -> None:
    q = BANK.by_id["mem-activation-formula"]
    kp = next(i for i, k in enumerate(q.key_points) if "重计算" in k.terms)
    answer = "With ACTIVATION CHECKPOINTING only the layer inputs are kept."
    assert not any(t.lower() in answer.lower() for t in q.key_points[kp].terms)  # no rubric term as such
    g = grade(q, answer, "en")
    assert g.points[kp].covered and g.points[kp].evidence == "ACTIVATION CHECKPOINTING"
    tp = Question.model_validate({
        "id": "x", "type": "concept", "difficulty": 1, "level": "mid", "tags": ["tensor_parallel"],
        "question": {"zh": "?", "en": "?"}, "answer": {lang: {"essence": "e", "parts": ["p"]} for lang in ("zh", "en")},
        "key_points": [{"zh": "a", "en": "a", "terms": ["TP"]}, {"zh": "b", "en": "b", "terms": ["zzz"]}]})
    assert not grade(tp, "we served it over HTTP", "en").points[0].covered
    assert grade(tp, "we used tp=8 inside a node", "en").points[0].covered


def test_structure_rewards_essence_first_and_star_with_numbers() -> None:
    q = BANK.by_id["ckpt-what-to-save"]
    body = good_answer(q, "en").splitlines()
    assert grade(q, "\n".join(body), "en").structure.essence_first
    buried = grade(q, "Well, let me think about this one for a moment.\n" + "\n".join(body), "en")
    assert not buried.structure.essence_first and buried.score < grade(q, "\n".join(body), "en").score
    beh = BANK.by_id["beh-hard-hang"]
    star = grade(beh, good_answer(beh, "zh"), "zh")
    flat = grade(beh, good_answer(beh, "zh").replace("情境：", "").replace("任务：", "").replace("行动：我先", "")
                 .replace("结果：", "").replace("故障时间降低了 40%。", ""), "zh")
    assert star.structure.star == {"situation": True, "task": True, "action": True, "result": True}
    assert "40%" in "".join(star.structure.result_numbers) or "40" in star.structure.result_numbers
    assert star.score > flat.score


# ---- follow-ups --------------------------------------------------------------------------------------------


def test_follow_ups_quote_the_resume_claim_with_its_own_numbers(tmp_path: Path) -> None:
    q = BANK.by_id["ckpt-what-to-save"]  # tags: checkpointing, checkpoint_resume
    g = grade(q, "Save the optimizer state.", "zh")
    ups = offline_follow_ups(q, g, BANK, "zh", [CLAIM_EN, CLAIM_ZH, "负责团队的代码评审"], tmp_path / "none")
    claim = next(f for f in ups if f.kind == "resume_claim")
    assert claim.source == CLAIM_ZH and CLAIM_ZH in claim.text
    assert "30 分钟" in claim.text.split("」")[1] and "5 分钟" in claim.text.split("」")[1]
    assert values(claim.text) == values(CLAIM_ZH)  # the claim's numbers, none invented
    en = claim_question(CLAIM_EN, "en")
    assert "baseline behind 20%" in en and "On 16 A100s" in en and values(en) == values(CLAIM_EN)
    assert [f.kind for f in ups] == ["missed_point", "resume_claim", "bank"]
    assert "调度器与损失缩放器" in ups[0].text
    assert ups[2].text == BANK.by_id["dataresume-rng-states"].question.zh


def test_a_follow_up_cites_the_latest_lab_report(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_report(runs, "20250101-090000", 1_000, lost_steps=3, recovery_seconds=1.0)
    newest = write_report(runs, "20250102-090000", 2_000, lost_steps=7, recovery_seconds=12.34)
    (runs / "fault_resume" / "20250103-090000").mkdir()
    (runs / "fault_resume" / "20250103-090000" / "report.json").write_text("{half-writ")  # a run still writing
    q = BANK.by_id["ckpt-what-to-save"]
    g = grade(q, good_answer(q, "en"), "en")
    ups = offline_follow_ups(q, g, BANK, "en", [], runs)
    lab = next(f for f in ups if f.kind == "lab_result")
    assert lab.source == str(newest)
    assert "lost 7 steps" in lab.text and "12.3 s" in lab.text and "every 5 steps" in lab.text and "zero" in lab.text
    clean = write_report(runs, "20250104-090000", 3_000, lost_steps=0)
    zh = offline_follow_ups(q, g, BANK, "zh", [], runs)
    lab = next(f for f in zh if f.kind == "lab_result")
    assert lab.source == str(clean) and "没有丢步" in lab.text and "26.8 ms" in lab.text and "0.9 ms" in lab.text


def test_each_source_is_used_once_per_session(tmp_path: Path) -> None:
    q = BANK.by_id["ckpt-what-to-save"]
    g = grade(q, good_answer(q, "en"), "en")
    asked = Asked()
    first = offline_follow_ups(q, g, BANK, "en", [CLAIM_ZH], tmp_path, asked)
    second = offline_follow_ups(q, g, BANK, "en", [CLAIM_ZH], tmp_path, asked)
    assert [f.kind for f in first] == ["resume_claim", "bank"] and [f.kind for f in second] == ["bank"]
    assert first[1].text != second[0].text


# ---- the session -------------------------------------------------------------------------------------------


def test_the_reference_answer_is_hidden_until_the_answer_is_graded(tmp_path: Path) -> None:
    conn = connect()
    session = start_session(conn, JD, RESUME, n=2, lang="en", seed=5, runs_dir=tmp_path)
    asked = next_question(session)
    q = BANK.by_id[asked.question_id]
    shown = json.dumps(asdict(asked), ensure_ascii=False)
    assert q.answer.en.essence not in shown and q.answer.zh.essence not in shown
    assert not any(kp.en in shown for kp in q.key_points)
    with pytest.raises(SessionError, match="only after the answer is graded"):
        reference(session, asked.question_id)
    turn = submit_answer(conn, session, good_answer(q, "en"))
    assert turn.grade.reference == q.answer.en == reference(session, q.id)
    with pytest.raises(SessionError):
        reference(session, session.question_ids[1])


def test_a_scripted_candidate_answers_a_whole_session_offline(tmp_path: Path) -> None:
    conn = connect()
    runs = tmp_path / "runs"
    report = write_report(runs, "20250101-090000", 1_000, lost_steps=7, recovery_seconds=4.2)
    card = create_card(conn, "ACME", "训练稳定性工程师", JD)
    session = start_session(conn, JD, RESUME, n=5, lang="zh", seed=2, card_id=card.id, runs_dir=runs)
    assert get_card(conn, card.id).session_ids == (session.id,)
    turns = []
    while (asked := next_question(session)) is not None:
        assert asked.total == 5 and asked.position == len(turns)
        turns.append(submit_answer(conn, session, good_answer(BANK.by_id[asked.question_id], "zh")))
    with pytest.raises(SessionError):
        submit_answer(conn, session, "again")
    finish_session(conn, session)
    assert all(t.grade.score >= 85 and t.engine == "offline" and t.notice is None for t in turns)
    assert all(t.follow_ups for t in turns)
    kinds = [f.kind for t in turns for f in t.follow_ups]
    assert "resume_claim" in kinds
    assert sum(bool(BANK.by_id[i].labs) for i in session.question_ids) == 2  # this seed's plan
    assert [f.source for t in turns for f in t.follow_ups].count(str(report)) == 1  # cited once, not twice
    sources = [f.source for t in turns for f in t.follow_ups]
    assert len(sources) == len(set(sources))  # nothing asked twice
    assert not set(sources) & set(session.question_ids)  # no follow-up asks a question still to come

    stored = load_session(conn, session.id)
    assert stored.finished == session.finished and stored.question_ids == session.question_ids
    assert [t.grade for t in stored.turns] == [t.grade for t in turns]
    assert [t.follow_ups for t in stored.turns] == [t.follow_ups for t in turns]
    rows = conn.execute("SELECT count(*) FROM interview_turns WHERE session_id = ?", (session.id,)).fetchone()[0]
    assert rows == 5
    ratings = dict(conn.execute("SELECT question_id, last_rating FROM reviews").fetchall())
    assert ratings == {i: 3 for i in session.question_ids}
    [listed] = list_sessions(conn)
    assert listed["id"] == session.id and listed["planned"] == listed["answered"] == 5
    assert listed["mean_score"] == pytest.approx(session.score)

    md = export_markdown(stored)
    path = write_transcript(stored)
    assert path == Path(os.environ["KGP_DATA_DIR"]) / "transcripts" / f"{session.id}.md"
    assert path.read_text(encoding="utf-8") == md
    for t in turns:
        q = BANK.by_id[t.question_id]
        assert q.question.zh in md and f"{t.grade.score}/100" in md and q.answer.zh.essence in md
    assert CLAIM_ZH in md


def test_weak_answers_feed_the_review_queue_and_suggest_ratings_only(tmp_path: Path) -> None:
    conn = connect()
    save_self_assessment(conn, "checkpoint_save_restore", 4)  # skills: checkpointing, checkpoint_resume, storage
    ids = ["ckpt-what-to-save", "ckpt-truncated-file-debug", "coll-algbw-busbw"]
    session = start_session(conn, "", None, lang="en", question_ids=ids, runs_dir=tmp_path)
    turns = [submit_answer(conn, session, text) for text in ("", OFF_TOPIC["en"], good_answer(BANK.by_id[ids[2]]))]
    assert [t.grade.score for t in turns][:2] == [0, 0] and turns[2].grade.score >= 85
    last = dict(conn.execute("SELECT question_id, last_rating FROM reviews").fetchall())
    assert last == {ids[0]: 1, ids[1]: 1, ids[2]: 3}
    assert ids[0] in due(conn, now=datetime.now(timezone.utc) + timedelta(hours=1))  # Again: back within the hour
    counts = weakness(conn)
    for tag in {t for i in ids for t in BANK.by_id[i].tags}:
        on_tag = [t for t in turns if tag in BANK.by_id[t.question_id].tags]
        assert counts[tag] == (len(on_tag), sum(t.grade.score < PASS_MARK for t in on_tag))
    assert counts["checkpointing"] == (2, 2)
    suggested = suggested_ratings(conn)
    assert suggested["checkpoint_save_restore"] == 2
    assert "dp_gradient_sync" not in suggested  # the collectives question was answered well
    assert load_self_assessment(conn) == {"checkpoint_save_restore": 4}  # the user's own rating stays


def test_an_unknown_card_is_refused_before_anything_is_saved(tmp_path: Path) -> None:
    conn = connect()
    with pytest.raises(ValueError, match="no application card"):
        start_session(conn, JD, None, n=2, card_id=42, runs_dir=tmp_path)
    assert conn.execute("SELECT count(*) FROM interview_sessions").fetchone()[0] == 0
