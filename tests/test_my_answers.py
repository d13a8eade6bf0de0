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


def test_the_terminal_saves_lists_and_shows_history(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from coach.my_answers import main

    data = ["--data-dir", str(tmp_path)]
    answer = tmp_path / "zero.md"
    answer.write_text("ZeRO-3 shards parameters, gradients and optimizer states over the data-parallel ranks.")
    assert main([*data, "save", QID, "--text", "ZeRO saves memory."]) == 0
    assert main([*data, "save", QID, "--file", str(answer)]) == 0
    out = capsys.readouterr().out
    assert "Saved revision 1:" in out and "Saved revision 2:" in out and "missed: " in out
    assert main([*data, "list"]) == 0 and main([*data, "history", QID]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(QID) and " r2 " in out[0]
    assert [line.split()[0] for line in out[1:]] == ["r1", "r2"]
    # bad input: one line on stderr in the user's language, exit 2, nothing stored
    assert main([*data, "--lang", "zh", "save", QID, "--text", "  "]) == 2
    assert main([*data, "save", QID, "--file", str(tmp_path / "missing.md")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("答案是空的") and "missing.md: No such file" in err[1] and len(err) == 2
    assert len(answer_history(connect(tmp_path), QID)) == 2
