"""The LLM interviewer against a real OpenAI-compatible server on loopback (tests/llm_server.py): follow-ups and
advisory feedback that never change the score, the number check, and every fallback to the offline engine."""

from __future__ import annotations

from pathlib import Path

import pytest
from llm_server import LLMServer, invalid_json, reply_json, sleep, status
from test_coach_interview import CLAIM_ZH, RESUME, good_answer, write_report

from coach.db import connect
from coach.grading import grade
from coach.interview import next_question, start_session, submit_answer
from coach.interviewer_llm import INTERVIEWER_SYSTEM
from coach.llm import LLMClient, LLMSettings
from question_bank.loader import load_bank

BANK = load_bank()
QID = "ckpt-what-to-save"  # links the fault_resume lab
PARTIAL = "要保存优化器状态（Adam 动量）和学习率调度器。"
FEEDBACK = "优化器状态讲得对；还应该说明随机数状态和数据位置。"
LAB_UP = {"kind": "lab_result", "text": "你的 fault_resume 实验丢了 7 步：怎样做到一步不丢？"}
CLAIM_UP = {"kind": "resume_claim", "text": "你把恢复时间从 30 分钟降到 5 分钟，主要省在加载还是重建通信？"}


@pytest.fixture
def server():
    with LLMServer() as s:
        yield s


def llm_for(server: LLMServer, timeout: float = 5.0) -> LLMClient:
    return LLMClient(LLMSettings(model="test-model", base_url=server.base_url, api_key="sk-test", timeout=timeout))


def session_for(tmp_path: Path, llm: LLMClient, ids: list[str] | None = None):
    runs = tmp_path / "runs"
    write_report(runs, "20250101-090000", 1_000, lost_steps=7, recovery_seconds=4.2)
    conn = connect()
    return conn, start_session(conn, "", RESUME, lang="zh", question_ids=ids or [QID], runs_dir=runs, llm=llm)


def test_llm_follow_ups_and_feedback_never_change_the_score(server: LLMServer, tmp_path: Path) -> None:
    server.script(reply_json({"follow_ups": [LAB_UP, CLAIM_UP], "feedback": FEEDBACK, "score": 100}))
    llm = llm_for(server)
    conn, session = session_for(tmp_path, llm)
    assert session.engine == "llm"
    turn = submit_answer(conn, session, PARTIAL, llm=llm)
    assert turn.engine == "llm" and turn.notice is None
    assert [f.text for f in turn.follow_ups] == [LAB_UP["text"], CLAIM_UP["text"]]
    assert [f.kind for f in turn.follow_ups] == ["lab_result", "resume_claim"]
    assert turn.grade.feedback == FEEDBACK
    assert turn.grade.score == grade(BANK.by_id[QID], PARTIAL, "zh").score < 100  # the rubric's, not the LLM's
    request = server.requests[0]
    assert request.json["response_format"]["type"] == "json_schema"
    assert request.messages[0]["content"] == INTERVIEWER_SYSTEM and "Do not give a score" in INTERVIEWER_SYSTEM
    sent = request.messages[1]["content"]
    assert CLAIM_ZH in sent and "lost_steps: 7" in sent and "每个 rank 的随机数状态" in sent and PARTIAL in sent
    stored = conn.execute("SELECT engine, grade_json FROM interview_turns").fetchone()
    assert stored["engine"] == "llm" and FEEDBACK in stored["grade_json"]


def test_a_follow_up_with_an_invented_number_is_dropped(server: LLMServer, tmp_path: Path) -> None:
    invented = {"kind": "resume_claim", "text": "你在 128 卡上也做过同样的优化吗？"}
    server.script(reply_json({"follow_ups": [invented, LAB_UP], "feedback": ""}),
                  reply_json({"follow_ups": [invented], "feedback": FEEDBACK}))
    llm = llm_for(server)
    conn, session = session_for(tmp_path, llm, [QID, "ckpt-truncated-file-debug"])
    first = submit_answer(conn, session, PARTIAL, llm=llm)
    assert [f.text for f in first.follow_ups] == [LAB_UP["text"]] and first.engine == "llm"
    assert "1 LLM follow-up(s) dropped" in first.notice and first.grade.feedback is None
    second = submit_answer(conn, session, "写临时文件再 rename。", llm=llm)  # every follow-up invented: offline
    assert second.engine == "offline" and "numbers not in the sources" in second.notice
    assert second.grade.feedback is None and second.follow_ups[0].kind == "missed_point"
    assert not any("128" in f.text for f in second.follow_ups)


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
    assert turn.grade.score == grade(q, good_answer(q, "zh"), "zh").score and turn.grade.feedback is None
    kinds = [f.kind for f in turn.follow_ups]
    assert "resume_claim" in kinds and "lab_result" in kinds  # the offline interviewer's own follow-ups
    assert next_question(session).question_id == "ckpt-truncated-file-debug"  # the session goes on
    row = conn.execute("SELECT engine, notice FROM interview_turns").fetchone()
    assert row["engine"] == "offline" and reason in row["notice"]


def test_a_server_without_structured_output_is_asked_prompt_only(tmp_path: Path) -> None:
    with LLMServer(reject_response_format=True) as server:
        server.default = reply_json({"follow_ups": [LAB_UP], "feedback": FEEDBACK})
        llm = llm_for(server)
        conn, session = session_for(tmp_path, llm)
        turn = submit_answer(conn, session, PARTIAL, llm=llm)
    assert turn.engine == "llm" and turn.notice is None and turn.grade.feedback == FEEDBACK
    assert [("response_format" in r.json) for r in server.requests] == [True, False]
    assert "JSON Schema" in server.requests[1].messages[-1]["content"]
