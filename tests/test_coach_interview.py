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
from coach.followups import Asked, claim_question, next_follow_up, offline_follow_ups
from coach.grading import grade, review_rating
from coach.interview import (
    SessionError,
    export_markdown,
    finish_session,
    key_points,
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
from coach.plan import Pick, Signals, explain, plan_session, signals, weight
from coach.review import due, load_self_assessment, rate, save_self_assessment
from question_bank.loader import load_bank
from question_bank.rubric import find_term
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
    """A candidate who knows the rubric, in sentences: per key point its own words, one synonym of each concept
    group it requires and its facts; behavioral answers marked Situation / Task / Action / Result with a figure."""
    asked, lines = q.question.zh + " " + q.question.en, []
    for kp in q.key_points:
        usable = [g for g in ([t for t in g if not find_term(t, asked)] for g in kp.groups) if g]
        said = [g[0] for g in usable[:kp.required]] + [f"{f.value:g} {f.unit}" for f in kp.facts]
        lines.append(f"{getattr(kp, lang)}：这是因为 {'，而且 '.join(said)}。" if lang == "zh" else
                     f"{getattr(kp, lang)}: this is because of {', and also '.join(said)}.")
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
    # Over many sessions most questions follow the JD, whatever the bank's size (uniform: about half)
    drawn = [p for seed in range(40) for p in plan_session(BANK, 5, s, seed=seed)]
    share = sum(any(w.startswith("jd_") for w in p.why) for p in drawn) / len(drawn)
    uniform = sum(bool(set(q.tags) & (s.required | s.preferred)) for q in BANK.questions) / len(BANK.questions)
    assert share >= 0.75 and share >= uniform + 0.25, (share, uniform)
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
    assert empty.score == 0 and empty.empty and off.score <= 10 and off.off_topic
    assert good.reference == getattr(q.answer, lang)
    assert review_rating(good) == 3 and review_rating(empty) == 1


def test_partial_answer_earns_partial_credit_and_lists_what_it_missed() -> None:
    q = BANK.by_id["ckpt-what-to-save"]
    g = grade(q, "Save the optimizer state (Adam moments) too, because the moments are needed to continue.", "en")
    assert g.points[0].partial and g.points[0].found == 1 and g.points[0].required == 2
    assert any("optimizer state" in e for e in g.points[0].evidence)  # quoted from the answer
    assert not any(p.found for p in g.points[1:])
    assert 0 < g.score < 30 and review_rating(g) == 1
    assert "✗ missed: scheduler and loss scaler" in g.reasons


def test_question_words_are_not_evidence_and_one_stray_term_is_off_topic() -> None:
    q = BANK.by_id["hang-gloo-vs-nccl"]
    echo = grade(q, "gloo and NCCL timeouts differ; a GPU training job can use a gloo process group.", "en")
    assert echo.off_topic and echo.score <= 10  # the question read back
    ddp = grade(q, "DDP 把梯度分桶，每桶 25 MB，桶就绪就同步，和反向重叠。", "zh")  # the example
    assert ddp.off_topic and ddp.score <= 10 and not any(p.found for p in ddp.points)


def test_a_keyword_list_is_capped_with_its_reason() -> None:
    q = BANK.by_id["coll-ring-allreduce-volume"]
    listed = grade(q, "reduce-scatter, all-gather, n-1 steps, 2(n-1)/n, 17.5 GB, 19.98 GB, lower bound, latency, "
                      "tree", "en")
    prose = grade(q, "It runs reduce-scatter and then all-gather, n-1 steps each, so each GPU sends 2(n-1)/n·S: "
                     "17.5 GB on 8 and 19.98 GB on 1024. That is the lower bound, but the latency grows with the "
                     "number of steps, so NCCL uses a tree for small messages.", "en")
    assert listed.keyword_list and listed.score <= 35 and any(r.startswith("Keyword list") for r in listed.reasons)
    assert not prose.keyword_list and prose.score >= 70
    assert sum(p.credit for p in listed.points) >= sum(p.credit for p in prose.points) - 1  # same terms found


def test_a_confident_misconception_costs_points_and_is_quoted() -> None:
    q = BANK.by_id["hang-gloo-vs-nccl"]
    wrong = grade(q, "gloo is asynchronous and NCCL blocking; both time out after 5 minutes.", "en")
    assert wrong.score <= 35 and len(wrong.misconceptions) == 2
    quotes = {m.quote for m in wrong.misconceptions}
    assert "gloo is asynchronous" in quotes and any("5 minutes" in x for x in quotes)
    assert wrong.points[0].wrong and wrong.points[2].wrong
    denied = grade(q, "gloo is not asynchronous: it blocks the caller. NCCL is asynchronous.", "en")
    assert not denied.misconceptions and denied.points[0].covered  # a misconception denied is not one


def test_terms_match_as_words_across_case_and_taxonomy_names() -> None:
    q = BANK.by_id["mem-recompute-full-vs-selective"]
    g = grade(q, "Full RECOMPUTATION keeps only the layer inputs and reruns the forward.", "en")
    assert g.points[0].covered
    tp = Question.model_validate({
        "id": "x", "type": "concept", "difficulty": 1, "level": "mid", "tags": ["tensor_parallel"],
        "question": {"zh": "?", "en": "?"}, "answer": {lang: {"essence": "e", "parts": ["p"]} for lang in ("zh", "en")},
        "key_points": [{"zh": "a", "en": "a", "groups": [["tensor parallel"]]}, {"zh": "b", "en": "b",
                                                                                 "groups": [["zzz"]]}]})
    assert grade(tp, "we used TENSOR-PARALLEL inside a node", "en").points[0].covered
    assert grade(tp, "张量并行放在节点内", "zh").points[0].covered  # a taxonomy name of the same skill
    assert not grade(tp, "we put the tensors in parallel streams", "en").points[0].covered  # not the term


def test_structure_counts_only_on_top_of_content() -> None:
    q = BANK.by_id["ckpt-what-to-save"]
    body = good_answer(q, "en").splitlines()
    assert grade(q, "\n".join(body), "en").structure.essence_first
    buried = grade(q, "Well, let me think about this one for a moment.\n" + "\n".join(body), "en")
    assert not buried.structure.essence_first and buried.score < grade(q, "\n".join(body), "en").score
    fluent = grade(q, "First, I would think carefully. Then, because it matters, I would plan. So I decide.", "en")
    assert fluent.structure.raw_points > 0 and fluent.structure.points == 0 and fluent.score == 0
    beh = BANK.by_id["beh-hard-hang"]
    star = grade(beh, good_answer(beh, "zh"), "zh")
    flat = grade(beh, good_answer(beh, "zh").replace("情境：", "").replace("任务：", "").replace("行动：我先", "")
                 .replace("结果：", "").replace("故障时间降低了 40%。", ""), "zh")
    assert star.structure.star == {"situation": True, "task": True, "action": True, "result": True}
    assert star.structure.figures and star.score > flat.score


def test_every_covered_point_is_explained_with_a_quote_of_the_answer() -> None:
    for qid in ONE_PER_TYPE:
        q = BANK.by_id[qid]
        answer = good_answer(q, "en")
        g = grade(q, answer, "en")
        for p in g.points:
            assert p.evidence and all(e.strip("…") in answer for e in p.evidence), (qid, p)
            assert any(p.en in r and "\"" in r for r in g.reasons)


# ---- follow-ups --------------------------------------------------------------------------------------------


def test_follow_ups_quote_the_resume_claim_with_its_own_numbers(tmp_path: Path) -> None:
    q = BANK.by_id["ckpt-what-to-save"]  # tags: checkpointing, checkpoint_resume
    g = grade(q, "Save the optimizer state.", "zh")
    ups = offline_follow_ups(q, g, BANK, "zh", [CLAIM_EN, CLAIM_ZH, "负责团队的代码评审"], tmp_path / "none", limit=3)
    assert [f.kind for f in ups] == ["missed_point", "resume_claim", "bank"]
    claim = ups[1]
    assert claim.source == CLAIM_ZH and CLAIM_ZH in claim.text
    assert "30 分钟" in claim.text.split("」")[1] and "5 分钟" in claim.text.split("」")[1]
    assert values(claim.text) == values(CLAIM_ZH)  # the claim's numbers, none invented
    en = claim_question(CLAIM_EN, "en")
    assert "baseline behind 20%" in en and "On 16 A100s" in en and values(en) == values(CLAIM_EN)
    assert "模型参数和优化器状态" in ups[0].text and ups[0].point == 0  # partly covered: asked to go into it
    assert ups[2].text == BANK.by_id["dataresume-rng-states"].question.zh and ups[2].question_id


def test_a_claim_without_numbers_is_asked_for_specifics(tmp_path: Path) -> None:
    q = BANK.by_id["hang-find-stuck-rank"]
    g = grade(q, good_answer(q, "en"), "en")
    [f] = offline_follow_ups(q, g, BANK, "en", ["Fixed NCCL timeouts in our training jobs"], tmp_path, limit=1)
    assert f.kind == "resume_claim" and "Fixed NCCL timeouts" in f.text and "which rank" in f.text
    assert not values(f.text)


def test_a_misconception_is_asked_about_first(tmp_path: Path) -> None:
    q = BANK.by_id["hang-gloo-vs-nccl"]
    g = grade(q, "gloo is asynchronous and NCCL blocking.", "en")
    f = next_follow_up(q, g, BANK, "en", [CLAIM_EN], tmp_path)
    assert f.kind == "misconception" and "gloo is asynchronous" in f.text and f.point == 0


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
    assert [f.kind for f in first] == ["resume_claim", "bank"] and {f.kind for f in second} == {"bank"}
    sources = [f.source for f in first + second]
    assert len(sources) == len(set(sources))  # the claim is not quoted again, no bank question twice


# ---- the plan fits the candidate ---------------------------------------------------------------------------


def test_experience_the_resume_lacks_is_asked_as_a_hypothetical(tmp_path: Path) -> None:
    conn = connect()
    resume = "# 韩梅梅\n## 项目\n- 用 PyTorch 训练过图像分类模型\n"
    session = start_session(conn, "", resume, lang="zh", runs_dir=tmp_path,
                            question_ids=["beh-hard-hang", "ckpt-what-to-save"])
    asked = next_question(session)
    assert asked.text.startswith("你的简历里没有看到相关经历") and BANK.by_id["beh-hard-hang"].question.zh in asked.text
    assert "简历里没有相关经历，按假设题来问" in asked.reasons
    for bullets in (["用 PyTorch 训练过图像分类模型"], [CLAIM_ZH, CLAIM_EN]):
        s = signals(None, bullets)
        picks = plan_session(BANK, 10, s, seed=3, has_resume=True)
        for p in picks:
            q = BANK.by_id[p.question_id]
            presumes = q.type in (QType.behavioral, QType.experience)
            assert p.hypothetical == (presumes and not set(q.tags) & s.claimed), p
        if len(bullets) == 1:  # an image-classification résumé: the distributed-training stories are hypothetical
            # (at least the plan's behavioral slot; how many experience questions a plan draws depends on the bank)
            assert sum(p.hypothetical for p in picks) >= 1
    plain = start_session(conn, "", None, lang="zh", runs_dir=tmp_path, question_ids=["beh-hard-hang"])
    assert next_question(plain).text == BANK.by_id["beh-hard-hang"].question.zh  # no résumé: asked as written


def test_the_plan_says_why_each_question_was_chosen() -> None:
    conn = connect()
    rate(conn, "ckpt-what-to-save", 1)
    s = signals(analyze_jd(JD, propose=False), [CLAIM_ZH], conn)
    assert "ckpt-what-to-save" in s.due | s.low_review
    _, why = weight(BANK.by_id["ckpt-what-to-save"], s)
    words = explain(Pick("ckpt-what-to-save", why), "en")
    assert any(w.startswith("a skill the JD requires") for w in words)
    assert any(w.startswith("a skill your résumé claims") for w in words)
    assert "your last review of it went badly" in words
    assert explain(Pick("x", ()), "zh") == ["随机抽取，保持题型和难度的搭配"]


# ---- the session -------------------------------------------------------------------------------------------


def answer_thread(conn, session, main: str, follow: str = "I am not sure.") -> object:
    """Answer the open thread's main question, then every follow-up with `follow`, until it closes."""
    turn = submit_answer(conn, session, main)
    while not turn.closed:
        turn = submit_answer(conn, session, follow)
    return turn


def test_the_reference_and_key_points_are_hidden_until_the_thread_closes(tmp_path: Path) -> None:
    conn = connect()
    session = start_session(conn, JD, RESUME, n=2, lang="en", seed=5, runs_dir=tmp_path)
    asked = next_question(session)
    q = BANK.by_id[asked.question_id]
    for step in range(3):  # the main question, then its two follow-ups
        shown = json.dumps(asdict(asked), ensure_ascii=False)
        assert q.answer.en.essence not in shown and q.answer.zh.essence not in shown
        assert not any(kp.en in shown or kp.zh in shown for kp in q.key_points)
        with pytest.raises(SessionError, match="only after the thread is closed"):
            reference(session, q.id)
        with pytest.raises(SessionError):
            key_points(session, q.id)
        turn = submit_answer(conn, session, good_answer(q, "en") if step == 0 else "I would measure it.")
        assert turn.closed == (step == 2) and (turn.grade is None) == (step < 2)
        asked = next_question(session)
        assert asked.follow_up == (step + 1 if step < 2 else 0)
    assert turn.grade.reference == q.answer.en == reference(session, q.id)
    assert [p.en for p in key_points(session, q.id)] == [kp.en for kp in q.key_points]
    with pytest.raises(SessionError):
        reference(session, session.question_ids[1])


def test_a_follow_up_answer_earns_the_point_it_asks_about(tmp_path: Path) -> None:
    conn = connect()
    session = start_session(conn, "", None, lang="en", question_ids=["ckpt-what-to-save"], runs_dir=tmp_path,
                            max_follow_ups=1)
    first = submit_answer(conn, session, "Save the model weights and the optimizer state, because Adam's moments "
                                         "are needed.")
    f = first.pending
    assert f.kind == "missed_point" and f.point == 1 and first.grade is None
    turn = submit_answer(conn, session, "Also the LR scheduler, or the LR goes back to warmup, and the GradScaler.")
    assert turn.closed and turn.follow_ups[0].grade.points[0].covered  # the follow-up's own rubric
    assert turn.grade.points[1].covered  # the thread is graded as a whole
    alone = grade(BANK.by_id["ckpt-what-to-save"], turn.answer, "en")
    assert turn.grade.score > alone.score


def test_a_scripted_candidate_answers_a_whole_session_offline(tmp_path: Path) -> None:
    conn = connect()
    runs = tmp_path / "runs"
    report = write_report(runs, "20250101-090000", 1_000, lost_steps=7, recovery_seconds=4.2)
    card = create_card(conn, "ACME", "训练稳定性工程师", JD)
    session = start_session(conn, JD, RESUME, n=5, lang="zh", seed=2, card_id=card.id, runs_dir=runs)
    assert get_card(conn, card.id).session_ids == (session.id,)
    turns = []
    while (asked := next_question(session)) is not None:
        assert asked.total == 5 and asked.position == len(turns) and asked.follow_up == 0
        turns.append(answer_thread(conn, session, good_answer(BANK.by_id[asked.question_id], "zh"), "不太清楚。"))
    with pytest.raises(SessionError):
        submit_answer(conn, session, "again")
    finish_session(conn, session)
    assert all(t.grade.score >= 85 and t.engine == "offline" and t.notice is None for t in turns)
    # two follow-ups per thread, unless a thread's sources ran out (a bank follow-up that is another question of
    # the session is never asked); which questions the plan draws depends on the bank's contents
    assert all(1 <= len(t.follow_ups) <= 2 and all(f.answer == "不太清楚。" for f in t.follow_ups) for t in turns)
    assert sum(len(t.follow_ups) == 2 for t in turns) >= 4
    kinds = [f.kind for t in turns for f in t.follow_ups]
    assert "resume_claim" in kinds
    sources = [f.source for t in turns for f in t.follow_ups]
    assert sources.count(str(report)) <= 1 and len(sources) == len(set(sources))  # nothing asked twice
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
        assert f"{t.grade.score}/100" in md and q.answer.zh.essence in md
        assert all(f.text in md for f in t.follow_ups)
    assert CLAIM_ZH in md or CLAIM_EN in md


def test_weak_answers_feed_the_review_queue_and_suggest_ratings_only(tmp_path: Path) -> None:
    conn = connect()
    save_self_assessment(conn, "checkpoint_save_restore", 4)  # skills: checkpointing, checkpoint_resume, storage
    ids = ["ckpt-what-to-save", "ckpt-truncated-file-debug", "coll-algbw-busbw"]
    session = start_session(conn, "", None, lang="en", question_ids=ids, runs_dir=tmp_path)
    turns = [submit_answer(conn, session, "")]  # an empty answer closes its thread at once
    turns += [answer_thread(conn, session, text) for text in (OFF_TOPIC["en"], good_answer(BANK.by_id[ids[2]], "en"))]
    assert [t.grade.score for t in turns][:2] == [0, 0] and turns[2].grade.score >= 85
    assert turns[0].follow_ups == []
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


def test_ending_early_grades_the_open_thread_on_what_was_said(tmp_path: Path) -> None:
    conn = connect()
    session = start_session(conn, "", None, lang="en", question_ids=["ckpt-what-to-save", "coll-algbw-busbw"],
                            runs_dir=tmp_path)
    turn = submit_answer(conn, session, "The optimizer state and the RNG state of each rank.")
    assert not turn.closed
    finish_session(conn, session)
    assert turn.closed and session.turns == [turn] and turn.follow_ups == []  # the unanswered follow-up dropped
    assert next_question(session) is None
    assert "## Questions not answered" in export_markdown(session)


def test_a_session_saved_before_rubric_v2_still_loads(tmp_path: Path) -> None:
    conn = connect()
    session = start_session(conn, "", None, lang="en", question_ids=["ckpt-what-to-save"], runs_dir=tmp_path)
    v1 = {"question_id": "ckpt-what-to-save", "lang": "en", "score": 64, "reasons": ["Key points covered 1/5"],
          "points": [{"zh": "优化器状态", "en": "optimizer state", "covered": True, "evidence": "Adam"},
                     {"zh": "调度器", "en": "scheduler", "covered": False, "evidence": None}],
          "structure": {"essence_first": True, "sentences": 3, "raw_points": 30, "points": 30, "result_numbers": []},
          "reference": {"essence": "e", "parts": ["p"]}}
    with conn:
        conn.execute("INSERT INTO interview_turns VALUES (?, 0, 'ckpt-what-to-save', 'Adam.', ?, ?, 64, 'offline', "
                     "NULL, '2025-01-01T00:00:00+00:00', '2025-01-01T00:00:00+00:00')",
                     (session.id, json.dumps([{"kind": "missed_point", "text": "Why?", "source": "x"}]),
                      json.dumps(v1)))
    [turn] = load_session(conn, session.id).turns
    assert turn.grade.score == 64 and turn.grade.points[0].covered and turn.grade.points[0].evidence == ["Adam"]
    assert not turn.grade.points[1].covered and turn.follow_ups[0].answer is None
    assert "64/100" in export_markdown(load_session(conn, session.id))


def test_an_unknown_card_is_refused_before_anything_is_saved(tmp_path: Path) -> None:
    conn = connect()
    with pytest.raises(ValueError, match="no application card"):
        start_session(conn, JD, None, n=2, card_id=42, runs_dir=tmp_path)
    assert conn.execute("SELECT count(*) FROM interview_sessions").fetchone()[0] == 0


def test_a_free_text_follow_up_is_graded_by_its_own_key_points() -> None:
    from coach.followups import FollowUp
    from coach.interview import follow_up_grade
    from question_bank.schema import FollowUp as BankFollowUp
    from question_bank.schema import KeyPoint

    bank = load_bank()
    q = bank.by_id["zero-memory-per-stage"]
    pcie = KeyPoint(zh="PCIe 带宽", en="PCIe bandwidth", groups=[["PCIe"], ["带宽", "bandwidth"]])
    cpu = KeyPoint(zh="CPU 上的 Adam", en="Adam on the CPU",
                   groups=[["CPU Adam", "CPU 上的 Adam", "CPU 上更新", "optimizer step on the CPU"]])
    own = BankFollowUp(zh="CPU offload 之后瓶颈在哪？", en="With CPU offload, where is the bottleneck?",
                       key_points=[pcie, cpu])
    q = q.model_copy(update={"follow_ups": [own]})
    asked = FollowUp(kind="bank", text=own.en, source=own.en, item=0)
    good = follow_up_grade(q, asked.model_copy(update={"answer": "The step becomes bound by PCIe bandwidth: "
                           "gradients go down and parameters come back each step, and the optimizer step on the CPU "
                           "is slow because CPU Adam runs at memory bandwidth."}), bank, "en")
    off = follow_up_grade(q, asked.model_copy(update={"answer": "ZeRO-3 shards the parameters across 64 GPUs."}),
                          bank, "en")
    assert good is not None and off is not None
    assert len(good.points) == 2 and all(p.credit > 0 for p in good.points)  # graded by its own two points
    assert good.score > off.score
