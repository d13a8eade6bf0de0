"""Which résumé version works (coach.version_stats) on a real SQLite board: counts, invitation rate never a bare
percentage under 5 applications, median days to the first answer, coverage of invited vs other cards."""

from __future__ import annotations

import sqlite3

from coach.board import create_card, move, update_card
from coach.db import connect
from coach.version_stats import days_to_answer, version_stats
from coach.versions import create_tailored, save_master


def _card(conn: sqlite3.Connection, doc_id: int, stages: list[str], applied_on: str, answered_on: str | None,
          coverage: float) -> int:
    card = create_card(conn, "Co", "Engineer", resume_doc_id=doc_id, coverage=coverage)
    update_card(conn, card.id, applied_on=applied_on)
    for stage in stages:
        move(conn, card.id, stage)
    if answered_on:  # the moves happened on these days, not in this test's second
        conn.execute("UPDATE application_moves SET moved = ? WHERE application_id = ? AND to_status != 'applied' "
                     "AND from_status IS NOT NULL", (answered_on + "T09:00:00+00:00", card.id))
        conn.commit()
    return card.id


def test_per_version_counts_rate_days_and_coverage(tmp_path) -> None:
    conn = connect(tmp_path)
    master = save_master(conn, "- Tuned NCCL").doc_id
    tailored = create_tailored(conn, "infra", "- Tuned NCCL on 64 GPUs").doc_id
    for i in range(5):  # the tailored version: 5 sent, 2 invited
        invited = i < 2
        _card(conn, tailored, ["applied", "screening"] + (["interviewing"] if invited else ["rejected"]),
              "2026-11-01", f"2026-11-{4 + i:02d}", 80.0 if invited else 40.0)
    _card(conn, master, ["applied"], "2026-11-02", None, 30.0)  # the master: 1 sent, no answer yet
    create_card(conn, "Saved only", "x", resume_doc_id=master)    # never sent: not counted
    rows = {r.doc_id: r for r in version_stats(conn)}
    t, m = rows[tailored], rows[master]
    assert (t.applications, t.invitations, t.answered) == (5, 2, 5)
    assert t.rate() == "2/5 (40%)"
    assert t.days_to_answer == 5  # answers 3..7 days after 2026-11-01
    assert t.coverage_invited == 80.0 and t.coverage_others == 40.0
    assert (m.applications, m.invitations, m.days_to_answer) == (1, 0, None)
    assert "%)" not in m.rate() and m.rate().startswith("0/1") and "fewer than 5" in m.rate()
    assert "不足 5 份" in m.rate("zh")


def test_a_card_never_answered_or_never_sent_has_no_days(tmp_path) -> None:
    conn = connect(tmp_path)
    card = create_card(conn, "Co", "Engineer")
    assert days_to_answer(card, []) is None
    assert version_stats(conn) == []


def test_cards_without_a_linked_version_are_one_row(tmp_path) -> None:
    conn = connect(tmp_path)
    create_card(conn, "Co", "Engineer", status="applied")
    (row,) = version_stats(conn)
    assert row.doc_id is None and row.label == "(no version linked)" and row.applications == 1


def test_the_cli_prints_a_table_with_counts(tmp_path, capsys) -> None:
    from coach.version_stats import main
    conn = connect(tmp_path)
    doc = save_master(conn, "- Tuned NCCL").doc_id
    _card(conn, doc, ["applied", "interviewing"], "2026-11-01", "2026-11-03", 70.0)
    assert main(["--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "| master | 1 | 1/1 (fewer than 5: no percentage) | 2 (n=1) | 70 / - |" in out
