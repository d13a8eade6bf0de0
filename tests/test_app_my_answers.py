"""Issue 21 in the app (AppTest): a bank question's own answer saved, revised and graded per revision, an empty
answer refused with a message, the overview page, and a mock-interview answer saved into the same history."""

from __future__ import annotations

import sqlite3

from streamlit.testing.v1 import AppTest
from test_app import page, start_interview, zh

from coach.my_answers import answer_history
from question_bank.loader import load_bank

QID = "ckpt-what-to-save"


def open_question(at: AppTest, qid: str) -> None:
    page(at, "bank")
    at.text_input(key="qb_query").set_value(qid).run()
    assert at.text_area(key=f"qb_my_{qid}"), "the card of the searched id has its answer box"


def save(at: AppTest, qid: str, text: str) -> None:
    at.text_area(key=f"qb_my_{qid}").set_value(text)
    at.button(key=f"qb_my_{qid}_save").click().run()
    assert not at.exception, [e.value for e in at.exception]


def test_an_own_answer_is_saved_revised_and_each_revision_graded(at: AppTest, conn: sqlite3.Connection) -> None:
    open_question(at, QID)
    save(at, QID, "   ")
    assert any("答案是空的" in e.value for e in at.error)
    assert answer_history(conn, QID) == []                       # nothing stored
    save(at, QID, "保存模型参数。")
    ref = load_bank().by_id[QID].answer.zh
    save(at, QID, ref.essence + "\n" + "\n".join(ref.parts))   # the revision: the full reference answer
    first, second = answer_history(conn, QID)
    assert second.score > first.score and second.source == "own"
    assert any(s.value == zh("my.saved").format(revision=2, score=second.score) for s in at.success)
    assert at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart"), "scores over revisions"
    at.selectbox(key=f"qb_my_{QID}_open__zh").set_value(1).run()
    assert any(m.value == "保存模型参数。" for m in at.markdown)   # an old revision opens in full
    assert any(c.value.startswith(zh("my.missed")) for c in at.caption)
    page(at, "my_answers")
    assert at.dataframe and not at.info, "the overview lists the answered question"


def test_a_mock_interview_answer_is_saved_into_my_answers(at: AppTest, conn: sqlite3.Connection) -> None:
    start_interview(at, 1, 0)
    at.chat_input[0].set_value("检查点要原子写入：先写临时文件，fsync 后再 rename。").run()
    buttons = [b for b in at.button if (b.key or "").startswith("iv_save_")]
    assert buttons, "a closed thread offers to save its answer"
    buttons[0].click().run()
    rows = conn.execute("SELECT question_id, source, answer FROM my_answers").fetchall()
    assert len(rows) == 1 and rows[0]["source"] == "interview" and "fsync" in rows[0]["answer"]
    assert any(c.value.startswith(zh("iv.saved_answer").split("{")[0]) for c in at.caption)
