"""The LLM path against a real OpenAI-compatible server on loopback (tests/llm_server.py): the interviewer phrases
follow-ups (numbers checked against the sources), the grader judges key points with verbatim quotes (a
hallucinated quote earns nothing, a disagreement is shown), and every failure falls back to the offline engine."""

from __future__ import annotations

from pathlib import Path

import pytest
from llm_server import LLMServer, invalid_json, reply_json, sleep, status
from test_coach_interview import CLAIM_ZH, RESUME, good_answer, write_report

from coach.db import connect
from coach.grading import grade
from coach.interview import start_session, submit_answer
from coach.interviewer_llm import INTERVIEWER_SYSTEM
from coach.llm import LLMClient, LLMSettings
from coach.llm_grading import GRADER_SYSTEM, verbatim
from question_bank.loader import load_bank

BANK = load_bank()
QID = "ckpt-what-to-save"  # links the fault_resume lab
PARTIAL = "要保存优化器状态（Adam 动量）和学习率调度器。"
FOLLOW = "随机数状态也要存，每个 rank 各存一份。"
FEEDBACK = "优化器状态讲得对；还应该说明随机数状态和数据位置。"
LAB_UP = {"kind": "lab_result", "text": "你的 fault_resume 实验丢了 7 步：怎样做到一步不丢？"}
CLAIM_UP = {"kind": "resume_claim", "text": "你把恢复时间从 30 分钟降到 5 分钟，主要省在加载还是重建通信？"}
NO_POINTS = {"points": [], "feedback": ""}


@pytest.fixture
def server():
    with LLMServer() as s:
        yield s


def llm_for(server: LLMServer, timeout: float = 5.0) -> LLMClient:
    return LLMClient(LLMSettings(model="test-model", base_url=server.base_url, api_key="sk-test", timeout=timeout))


def session_for(tmp_path: Path, llm: LLMClient, ids: list[str] | None = None, follow_ups: int = 2):
    runs = tmp_path / "runs"
    write_report(runs, "20250101-090000", 1_000, lost_steps=7, recovery_seconds=4.2)
    conn = connect()
    session = start_session(conn, "", RESUME, lang="zh", question_ids=ids or [QID], runs_dir=runs, llm=llm,
                            max_follow_ups=follow_ups)
    return conn, session


def test_llm_follow_ups_are_asked_in_the_thread_and_never_see_the_reference(server, tmp_path: Path) -> None:
    server.script(reply_json({"follow_ups": [LAB_UP, CLAIM_UP], "feedback": FEEDBACK, "score": 100}),
                  reply_json(NO_POINTS))
    llm = llm_for(server)
    conn, session = session_for(tmp_path, llm)
    assert session.engine == "llm"
    first = submit_answer(conn, session, PARTIAL, llm=llm)
    assert first.pending.text == LAB_UP["text"] and first.engine == "llm" and first.grade is None
    second = submit_answer(conn, session, "加快保存频率。", llm=llm)
    assert second.pending.text == CLAIM_UP["text"]
    turn = submit_answer(conn, session, FOLLOW, llm=llm)
    assert turn.closed and [f.kind for f in turn.follow_ups] == ["lab_result", "resume_claim"]
    assert turn.grade.feedback == FEEDBACK
    offline = grade(BANK.by_id[QID], "\n".join([PARTIAL, "加快保存频率。", FOLLOW]), "zh")
    assert turn.grade.score == offline.score < 100  # the rubric's, not the LLM's "score"
    asking, grading = server.requests
    assert asking.json["response_format"]["type"] == "json_schema"
    assert asking.messages[0]["content"] == INTERVIEWER_SYSTEM and "Do not give a score" in INTERVIEWER_SYSTEM
    sent = asking.messages[1]["content"]
    assert CLAIM_ZH in sent and "lost_steps: 7" in sent and PARTIAL in sent
    assert BANK.by_id[QID].answer.zh.essence not in sent  # the thread is open: no reference answer
    assert grading.messages[0]["content"] == GRADER_SYSTEM and FOLLOW in grading.messages[1]["content"]


def test_a_verified_quote_adds_a_point_and_a_hallucinated_one_earns_nothing(server, tmp_path: Path) -> None:
    q = BANK.by_id[QID]
    offline = grade(q, PARTIAL, "zh")
    assert not offline.points[3].found and not offline.points[2].found  # RNG states and the data position
    server.script(reply_json({"points": [
        {"index": 2, "covered": True, "quote": "每个 rank 的数据读到第几条都记下来了"},   # not in the answer
        {"index": 3, "covered": True, "quote": "Adam 动量"},                          # verbatim, but a stretch
        {"index": 1, "covered": False, "quote": ""},                                  # offline found it: kept
    ], "feedback": ""}))
    llm = llm_for(server)
    conn, session = session_for(tmp_path, llm, follow_ups=0)
    turn = submit_answer(conn, session, PARTIAL, llm=llm)
    g = turn.grade
    assert g.offline_score == offline.score and g.score > offline.score
    assert g.points[2].credit == 0 and g.points[2].llm is None  # the hallucinated quote earned nothing
    assert g.points[3].credit == 0.5 and g.points[3].llm == "Adam 动量"
    assert g.points[1].covered and offline.points[1].covered
    assert len(g.disagreements) == 3 and "引文不在回答里" in g.disagreements[0]
    assert "1 LLM quote(s) not found in the answer were ignored" in turn.notice
    assert verbatim("Adam  动量", PARTIAL) and not verbatim("", PARTIAL)


def test_malformed_grading_json_keeps_the_offline_grade(server, tmp_path: Path) -> None:
    server.script(invalid_json())
    llm = llm_for(server)
    conn, session = session_for(tmp_path, llm, follow_ups=0)
    turn = submit_answer(conn, session, PARTIAL, llm=llm)
    assert turn.grade.score == grade(BANK.by_id[QID], PARTIAL, "zh").score and turn.grade.offline_score is None
    assert turn.notice == "LLM unavailable (invalid JSON): offline result shown"


def test_a_follow_up_with_an_invented_number_is_dropped(server: LLMServer, tmp_path: Path) -> None:
    invented = {"kind": "resume_claim", "text": "你在 128 卡上也做过同样的优化吗？"}
    server.script(reply_json({"follow_ups": [invented, LAB_UP], "feedback": ""}), reply_json(NO_POINTS),
                  reply_json({"follow_ups": [invented], "feedback": FEEDBACK}), reply_json(NO_POINTS))
    llm = llm_for(server)
    conn, session = session_for(tmp_path, llm, [QID, "ckpt-truncated-file-debug"], follow_ups=1)
    first = submit_answer(conn, session, PARTIAL, llm=llm)
    assert first.pending.text == LAB_UP["text"] and "1 LLM follow-up(s) dropped" in first.notice
    submit_answer(conn, session, "每步都存。", llm=llm)
    second = submit_answer(conn, session, "写临时文件再 rename。", llm=llm)  # every follow-up invented: offline
    assert second.engine == "offline" and "numbers not in the sources" in second.notice
    assert "128" not in second.pending.text


@pytest.mark.parametrize("failure, reason", [
    (sleep(3.0, reply_json({"follow_ups": [LAB_UP], "feedback": FEEDBACK})), "timeout"),
    (status(500, "server exploded", "server_error"), "HTTP 500"),
    (invalid_json(), "invalid JSON"),
], ids=["timeout", "http-500", "invalid-json"])
def test_llm_failures_fall_back_offline_with_a_notice(server: LLMServer, tmp_path: Path, failure, reason) -> None:
    server.default = failure
    llm = llm_for(server, timeout=0.3)
    conn, session = session_for(tmp_path, llm, [QID, "ckpt-truncated-file-debug"])
    q = BANK.by_id[QID]
    turn = submit_answer(conn, session, good_answer(q, "zh"), llm=llm)
    assert turn.engine == "offline" and turn.notice == f"LLM unavailable ({reason}): offline result shown"
    assert turn.pending.kind in ("resume_claim", "lab_result")  # the offline interviewer's own follow-up
    while not turn.closed:
        turn = submit_answer(conn, session, "不太清楚。", llm=llm)
    assert turn.grade.score == grade(q, "\n".join(turn.answers), "zh").score and turn.grade.feedback is None
    row = conn.execute("SELECT engine, notice FROM interview_turns").fetchone()
    assert row["engine"] == "offline" and reason in row["notice"]


def test_a_server_without_structured_output_is_asked_prompt_only(tmp_path: Path) -> None:
    with LLMServer(reject_response_format=True) as server:
        server.default = reply_json({"follow_ups": [LAB_UP], "feedback": FEEDBACK})
        llm = llm_for(server)
        conn, session = session_for(tmp_path, llm)
        turn = submit_answer(conn, session, PARTIAL, llm=llm)
    assert turn.engine == "llm" and turn.notice is None and turn.pending.text == LAB_UP["text"]
    assert [("response_format" in r.json) for r in server.requests] == [True, False]
    assert "JSON Schema" in server.requests[1].messages[-1]["content"]
