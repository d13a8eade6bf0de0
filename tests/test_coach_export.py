"""The user's data out and gone (coach.export), card dates and notes (coach.board), settings kept on disk
(coach.user_settings): all on a real SQLite database in tmp_path."""

from __future__ import annotations

import io
import json
import sqlite3
import zipfile

import pytest

from coach import board, export, interview, user_settings, versions
from coach.db import connect
from question_bank.loader import load_bank

RESUME = "# 张三\n\n## 经历\n- 负责 64 卡 DDP 训练的断点续训\n"


@pytest.fixture
def conn() -> sqlite3.Connection:
    c = connect()
    yield c
    c.close()


def test_card_edit_dates_notes_and_delete(conn: sqlite3.Connection) -> None:
    card = board.create_card(conn, "ACME", "训练工程师")
    card = board.update_card(conn, card.id, company="ACME AI", notes="内推：李四", applied_on="2026-03-01",
                             next_on="2026-03-09")
    assert (card.company, card.notes, card.applied_on, card.next_on) == ("ACME AI", "内推：李四", "2026-03-01",
                                                                        "2026-03-09")
    assert board.update_card(conn, card.id, next_on=None).next_on is None  # cleared
    with pytest.raises(board.BoardError, match="next_on must be a date"):
        board.update_card(conn, card.id, next_on="next Tuesday")
    with pytest.raises(board.BoardError, match="company cannot be empty"):
        board.update_card(conn, card.id, company="  ")
    assert board.get_card(conn, card.id).company == "ACME AI"  # a refused edit changed nothing
    board.delete_card(conn, card.id)
    with pytest.raises(board.BoardError):
        board.get_card(conn, card.id)
    assert conn.execute("SELECT count(*) FROM application_moves").fetchone()[0] == 0  # its history went too


def test_sessions_know_their_card(conn: sqlite3.Connection) -> None:
    card = board.create_card(conn, "ACME", "训练工程师")
    linked = interview.start_session(conn, n=1, card_id=card.id)
    alone = interview.start_session(conn, n=1)
    cards = board.session_cards(conn)
    assert cards[linked.id].company == "ACME" and alone.id not in cards


def test_export_zip_holds_every_table_and_readable_markdown(conn: sqlite3.Connection) -> None:
    versions.save_master(conn, RESUME)
    board.update_card(conn, board.create_card(conn, "ACME", "训练工程师").id, notes="电话面试")
    interview.start_session(conn, n=1)
    user_settings.put(conn, "lang", "en")
    z = zipfile.ZipFile(io.BytesIO(export.export_zip(conn, load_bank())))
    names = set(z.namelist())
    assert {f"data/{t}.json" for t in export.tables(conn)} <= names
    assert json.loads(z.read("data/applications.json"))[0]["notes"] == "电话面试"
    assert z.read("resumes/master.md").decode() == RESUME
    assert any(n.startswith("interviews/") and n.endswith(".md") for n in names)
    assert "**ACME**" in z.read("applications.md").decode() and "> 电话面试" in z.read("applications.md").decode()


def test_reset_empties_every_table_and_keeps_the_schema(conn: sqlite3.Connection) -> None:
    versions.save_master(conn, RESUME)
    card = board.create_card(conn, "ACME", "训练工程师")
    interview.start_session(conn, n=1, card_id=card.id)
    assert export.reset(conn) > 0
    assert all(not export.table_rows(conn, t) for t in export.tables(conn))
    assert board.create_card(conn, "B", "C").id  # still usable
    assert export.reset(conn) == 2  # the card and its creation entry: an empty table counts nothing


def test_settings_persist_and_never_take_a_key(conn: sqlite3.Connection) -> None:
    assert user_settings.get(conn, "lang") is None
    user_settings.put(conn, "lang", "en")
    user_settings.put(conn, "lang", "zh")
    assert user_settings.get(connect(), "lang") == "zh"  # another connection reads it: it is on disk
    with pytest.raises(ValueError, match="never written"):
        user_settings.put(conn, "llm_api_key", "sk-1")
