"""The board page's "which résumé version works" section through AppTest, in Chinese."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from coach.board import create_card, move
from coach.db import connect
from coach.versions import save_master

ROOT = Path(__file__).resolve().parents[1]


def _open() -> AppTest:
    app = AppTest.from_file(ROOT / "app" / "streamlit_app.py", default_timeout=60)
    app.run()
    app.switch_page("app_pages/applications.py").run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def test_no_sent_application_says_so() -> None:
    at = _open()
    assert any("还没有已投递的卡片" in i.value for i in at.info)


def test_a_sent_card_is_counted_under_its_version_without_a_bare_percentage() -> None:
    conn = connect()
    doc = save_master(conn, "- 调优 NCCL").doc_id
    card = create_card(conn, "字节跳动", "训练框架工程师", resume_doc_id=doc)
    move(conn, card.id, "applied")
    move(conn, card.id, "interviewing")
    conn.close()
    at = _open()
    table = next(m.value for m in at.markdown if "面试邀请率" in m.value)
    assert "| master | 1 | 1/1（不足 5 份，不计百分比） | 0 (n=1) |" in table and "%)" not in table
