"""FSRS review state and self-assessment in a real SQLite database under tmp_path."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from coach.db import MIGRATIONS, connect
from coach.review import due, load_self_assessment, new_questions, rate, save_self_assessment
from question_bank.loader import load_bank

NOW = datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)
QID = "zero-memory-per-stage"


def test_rating_schedules_a_future_review(tmp_path: Path) -> None:
    conn = connect(tmp_path)
    next_due = rate(conn, QID, 3, now=NOW)
    assert next_due > NOW
    assert due(conn, now=NOW) == []
    assert due(conn, now=next_due) == [QID]
    assert due(conn, now=next_due - timedelta(seconds=1)) == []


def test_good_reviews_space_out(tmp_path: Path) -> None:
    conn = connect(tmp_path)
    when, gaps = NOW, []
    for _ in range(4):
        next_due = rate(conn, QID, 3, now=when)
        gaps.append(next_due - when)
        when = next_due
    assert gaps[-1] > gaps[0] and gaps[-1] >= timedelta(days=1)
    assert conn.execute("SELECT count(*) FROM review_log WHERE question_id = ?", (QID,)).fetchone()[0] == 4
    assert conn.execute("SELECT last_rating FROM reviews").fetchone()[0] == 3


def test_again_comes_back_sooner_than_easy(tmp_path: Path) -> None:
    conn = connect(tmp_path)
    assert rate(conn, "a", 1, now=NOW) < rate(conn, "b", 4, now=NOW)
    with pytest.raises(ValueError):
        rate(conn, "a", 5, now=NOW)
    with pytest.raises(ValueError):
        rate(conn, "a", 3, now=datetime(2025, 3, 1))  # naive


def test_due_uses_real_time_by_default(tmp_path: Path) -> None:
    conn = connect(tmp_path)
    rate(conn, QID, 1, now=datetime.now(timezone.utc) - timedelta(days=30))
    assert due(conn) == [QID]


def test_new_questions_skip_reviewed_ones(tmp_path: Path) -> None:
    conn, bank = connect(tmp_path), load_bank()
    everything = new_questions(conn, bank, len(bank.questions))
    assert sorted(everything) == sorted(q.id for q in bank.questions)
    rate(conn, QID, 3, now=NOW)
    assert QID not in new_questions(conn, bank, len(bank.questions))
    assert len(new_questions(conn, bank, 1)) == 1


def test_two_connections_with_wal(tmp_path: Path) -> None:
    reader, writer = connect(tmp_path), connect(tmp_path)
    assert reader.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    reader.execute("BEGIN")
    assert reader.execute("SELECT count(*) FROM reviews").fetchone()[0] == 0  # holds a read snapshot
    rate(writer, QID, 3, now=NOW)  # a writer is not blocked by the open reader
    assert reader.execute("SELECT count(*) FROM reviews").fetchone()[0] == 0  # still its snapshot
    reader.commit()
    assert reader.execute("SELECT count(*) FROM reviews").fetchone()[0] == 1


def test_concurrent_writers_all_land(tmp_path: Path) -> None:
    connect(tmp_path).close()  # create and migrate once

    def review(worker: int) -> None:
        conn = connect(tmp_path)
        for i in range(10):
            rate(conn, f"q-{i}", 3, now=NOW + timedelta(minutes=worker))
        conn.close()

    threads = [threading.Thread(target=review, args=(w,)) for w in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert connect(tmp_path).execute("SELECT count(*) FROM review_log").fetchone()[0] == 20


def test_migrations_run_once_and_data_dir_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGP_DATA_DIR", str(tmp_path / "data"))
    conn = connect()
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    save_self_assessment(conn, "zero_stages", 2)
    conn.close()
    again = connect()  # reopening must not re-run migration 1
    assert load_self_assessment(again) == {"zero_stages": 2}
    assert (tmp_path / "data").is_dir()
    assert again.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_self_assessment_overwrites_and_validates(tmp_path: Path) -> None:
    conn = connect(tmp_path)
    save_self_assessment(conn, "zero_stages", 2)
    save_self_assessment(conn, "zero_stages", 4)
    save_self_assessment(conn, "mixed_precision", 1)
    assert load_self_assessment(conn) == {"zero_stages": 4, "mixed_precision": 1}
    with pytest.raises(ValueError):
        save_self_assessment(conn, "zero_stages", 6)
