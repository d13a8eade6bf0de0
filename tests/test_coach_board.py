"""The application board in a real SQLite database, including two sessions writing at once."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from coach.board import (
    STATUSES,
    BoardError,
    add_session,
    board,
    create_card,
    get_card,
    history,
    link_resume,
    move,
    refresh_coverage,
    update_card,
)
from coach.db import connect
from coach.versions import create_tailored, save_master, save_revision

JD = "任职要求：熟悉 NCCL；熟悉 Slurm\n加分项：Kubernetes；Megatron"


def test_card_moves_through_statuses_with_history(tmp_path: Path) -> None:
    conn = connect()
    card = create_card(conn, "字节跳动", "训练框架工程师", JD)
    assert card.status == "saved" and card.session_ids == () and card.coverage is None
    for status in ("applied", "screening", "interviewing", "offer"):
        card = move(conn, card.id, status, note=f"to {status}")
    assert card.status == "offer"
    assert move(conn, card.id, "offer").status == "offer"  # no-op, not recorded
    moves = history(conn, card.id)
    assert [(m.from_status, m.to_status) for m in moves] == [
        (None, "saved"), ("saved", "applied"), ("applied", "screening"), ("screening", "interviewing"),
        ("interviewing", "offer"),
    ]
    assert moves[2].note == "to screening"
    assert [m.moved for m in moves] == sorted(m.moved for m in moves)


def test_board_groups_cards_by_status(tmp_path: Path) -> None:
    conn = connect()
    a = create_card(conn, "A", "Infra")
    b = create_card(conn, "B", "Infra", status="applied")
    move(conn, a.id, "rejected")
    columns = board(conn)
    assert list(columns) == list(STATUSES)
    assert [c.id for c in columns["rejected"]] == [a.id] and [c.id for c in columns["applied"]] == [b.id]


def test_unknown_status_or_card_is_an_error(tmp_path: Path) -> None:
    conn = connect()
    card = create_card(conn, "A", "Infra")
    with pytest.raises(BoardError, match="unknown status 'hired'"):
        move(conn, card.id, "hired")
    with pytest.raises(BoardError, match="no application card"):
        move(conn, 999, "applied")
    with pytest.raises(BoardError, match="move"):
        update_card(conn, card.id, status="offer")


def test_card_links_resume_version_coverage_and_sessions(tmp_path: Path) -> None:
    conn = connect()
    save_master(conn, "# 张三\n- NCCL 调优\n- Slurm 调度\n- k8s\n")
    version = create_tailored(conn, "字节 - 训练框架", "# 张三\n- NCCL 调优\n")
    card = create_card(conn, "字节跳动", "训练框架工程师", JD)
    card = link_resume(conn, card.id, version.doc_id)
    assert card.resume_doc_id == version.doc_id and card.resume_revision is None
    assert card.coverage == pytest.approx(100 * 2 / 6, abs=0.05)  # NCCL only: 2 of 2·2 + 1·2
    save_revision(conn, version.doc_id, "# 张三\n- NCCL 调优\n- Slurm 调度\n- k8s\n")
    assert refresh_coverage(conn, card.id).coverage == pytest.approx(100 * 5 / 6, abs=0.05)
    assert link_resume(conn, card.id, version.doc_id, revision=1).coverage == pytest.approx(33.3, abs=0.05)
    add_session(conn, card.id, "mock-1")
    add_session(conn, card.id, "mock-2")
    assert add_session(conn, card.id, "mock-1").session_ids == ("mock-1", "mock-2")  # idempotent
    with pytest.raises(BoardError):
        add_session(conn, 999, "mock-3")


def test_two_sessions_write_the_board_at_once(tmp_path: Path) -> None:
    assert connect().execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    errors: list[BaseException] = []
    barrier = threading.Barrier(2)

    def session(name: str) -> None:
        conn = connect()
        try:
            barrier.wait()
            for i in range(10):
                card = create_card(conn, name, f"job {i}")
                for status in ("applied", "screening", "interviewing"):
                    move(conn, card.id, status)
                add_session(conn, card.id, f"{name}-{i}")
        except BaseException as e:  # surfaced below; a thread's exception is otherwise lost
            errors.append(e)
        finally:
            conn.close()

    threads = [threading.Thread(target=session, args=(n,)) for n in ("tab-1", "tab-2")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    conn = connect()
    cards = board(conn)["interviewing"]
    assert len(cards) == 20 and {c.company for c in cards} == {"tab-1", "tab-2"}
    assert all(len(history(conn, c.id)) == 4 for c in cards)
    assert conn.execute("SELECT count(*) FROM application_sessions").fetchone()[0] == 20
    assert get_card(conn, cards[0].id).session_ids[0].startswith("tab-")


def test_linking_a_version_that_does_not_exist_says_which_and_changes_nothing(tmp_path: Path) -> None:
    conn = connect(tmp_path)
    master = save_master(conn, "# A\n- 负责 NCCL 调优")
    card = create_card(conn, "ACME", "训练工程师", JD)
    with pytest.raises(BoardError, match="no résumé version with id 999"):
        link_resume(conn, card.id, 999)
    with pytest.raises(BoardError, match=f"version {master.doc_id} has no revision 7"):
        link_resume(conn, card.id, master.doc_id, 7)
    assert get_card(conn, card.id).resume_doc_id is None
