"""The user's own versioned answers (coach.my_answers): each revision graded by coach.grading, the history kept,
bad input refused with a clear message, and a database made by the previous schema keeps its data."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from coach.db import DB_NAME, MIGRATIONS, connect
from coach.export import tables
from coach.my_answers import AnswerError, answer_history, best_answer, save_answer
from question_bank.loader import load_bank

QID = "zero-memory-per-stage"


@pytest.fixture(scope="module")
def bank():
    return load_bank()


def test_revisions_are_graded_and_a_better_answer_scores_higher(tmp_path: Path, bank) -> None:
    conn = connect(tmp_path)
    first = save_answer(conn, bank, QID, "ZeRO saves memory.", lang="en")
    ref = bank.by_id[QID].answer.en
    second = save_answer(conn, bank, QID, ref.essence + " " + " ".join(ref.parts), lang="en", source="interview")
    assert (first.revision, second.revision) == (1, 2)
    assert second.score > first.score
    hist = answer_history(conn, QID)
    assert [r.revision for r in hist] == [1, 2] and hist[1].source == "interview"
    assert hist[0].grade.score == first.score  # the whole grade is stored, not only the number
    assert best_answer(conn, QID).revision == 2
    assert best_answer(conn, "no-such-question") is None


@pytest.mark.parametrize(("qid", "answer", "code", "zh"), [
    (QID, "   ", "empty", "答案是空的"),
    ("no-such-question", "an answer", "unknown_question", "题库里没有题目 no-such-question"),
])
def test_bad_input_is_refused_with_a_message(tmp_path: Path, bank, qid: str, answer: str, code: str, zh: str) -> None:
    conn = connect(tmp_path)
    with pytest.raises(AnswerError) as e:
        save_answer(conn, bank, qid, answer)
    assert e.value.code == code and zh in e.value.text("zh")
    assert answer_history(conn, qid) == []


def test_a_database_of_the_previous_schema_is_migrated_with_its_data(tmp_path: Path) -> None:
    old = sqlite3.connect(tmp_path / DB_NAME)
    for statements in MIGRATIONS[:4]:
        for sql in statements:
            old.execute(sql)
    old.execute("PRAGMA user_version = 4")
    old.execute("INSERT INTO user_settings VALUES ('lang', 'zh')")
    old.commit()
    old.close()
    conn = connect(tmp_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert conn.execute("SELECT value FROM user_settings WHERE key = 'lang'").fetchone()[0] == "zh"
    assert "my_answers" in tables(conn)  # so the export writes it out with the rest
