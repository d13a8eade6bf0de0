"""The Katas page (AppTest): pick a kata, the stub in the editor, Check runs the real judge and lists every case with
its hint, the attempt is stored, the reference opens only after it; a question's kata link and the mock interview's
kata question lead to the page."""

from __future__ import annotations

import sqlite3

from streamlit.testing.v1 import AppTest
from test_app import _submit, page, zh

from coach.kata_attempts import attempts
from labs.kata.catalog import all_katas


def test_a_kata_is_written_checked_recorded_then_revealed(at: AppTest, conn: sqlite3.Connection) -> None:
    at.query_params["kata"] = "ring_allreduce"
    page(at, "katas")
    kata = all_katas()["ring_allreduce"]
    editor = at.text_area(key="kata_code_ring_allreduce")
    assert editor.value == kata.stub()
    assert any(c.value == zh("kata.reveal_locked") for c in at.caption)      # no reference before an attempt
    at.button(key="kata_check").click().run(timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert any(w.value.startswith("未通过：0/5") for w in at.warning)        # the stub: NotImplementedError
    assert any("even_split" in i.value for i in at.info)                    # the first failed case's hint
    (a,) = attempts(conn, "ring_allreduce")
    assert a.total_cases == 5 and not a.passed
    assert not any(c.value == zh("kata.reveal_locked") for c in at.caption)
    assert any("def ring_all_reduce_mean" in c.value for c in at.code)    # the reference, now open
    editor = at.text_area(key="kata_code_ring_allreduce")
    editor.set_value(kata.reference()).run()
    at.button(key="kata_check").click().run(timeout=120)
    assert any(s.value.startswith("通过：5/5") for s in at.success)
    assert [x.passed for x in attempts(conn, "ring_allreduce")] == [True, False]


def test_the_mock_interview_can_pose_a_kata(at: AppTest) -> None:
    page(at, "interview")
    at.number_input(key="iv_n").set_value(2)
    at.number_input(key="iv_follow").set_value(0)
    at.checkbox(key="iv_kata").check()
    _submit(at, "iv_setup")
    at.chat_input[0].set_value("先 reduce-scatter 再 all-gather。").run()   # the first question, then the kata one
    kata_msgs = [m for m in at.markdown if m.value.startswith(zh("iv.kata").split("{")[0])]
    assert kata_msgs, "the last question asks for code on the Katas page"
