"""The application board: one card per job applied to, moved through saved -> applied -> screening ->
interviewing -> offer / rejected, every move kept in a history.

A card links its JD text, the résumé version (and revision) sent, its JD keyword coverage, and the ids of
mock-interview sessions practised for it (`add_session`, for the interview engine). Any move is allowed,
back included (a correction, a re-opened process); the history says what happened. Writes run in
`BEGIN IMMEDIATE` transactions on a WAL database, so several app sessions can update the board at once.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import date, datetime, timezone

from coach.db import transaction
from coach.jd import analyze_jd, coverage
from coach.versions import VersionError, get_revision

STATUSES = ("saved", "applied", "screening", "interviewing", "offer", "rejected")
STATUS_NAMES = {
    "saved": ("已收藏", "Saved"), "applied": ("已投递", "Applied"), "screening": ("筛选中", "Screening"),
    "interviewing": ("面试中", "Interviewing"), "offer": ("Offer", "Offer"), "rejected": ("未通过", "Rejected"),
}


DATES = frozenset({"applied_on", "next_on"})


class BoardError(ValueError):
    """An unknown card or status."""


@dataclass(frozen=True)
class Card:
    id: int
    company: str
    title: str
    jd_text: str
    status: str
    resume_doc_id: int | None
    resume_revision: int | None   # None = the version's latest revision
    coverage: float | None
    notes: str
    created: str
    updated: str
    session_ids: tuple[str, ...]  # mock-interview sessions, oldest first
    applied_on: str | None = None  # ISO date the application went out
    next_on: str | None = None     # ISO date of the next step (a call, an onsite)


@dataclass(frozen=True)
class Move:
    from_status: str | None  # None: the card was created
    to_status: str
    note: str
    moved: str


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def _check_date(name: str, value: object) -> str | None:
    """An ISO date (YYYY-MM-DD) from a str or a date; None or '' clears it."""
    if value is None or value == "":
        return None
    text = value.isoformat() if isinstance(value, date) else str(value)
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise BoardError(f"{name} must be a date like 2026-03-01, not {value!r}") from None


def _check_status(status: str) -> str:
    if status not in STATUSES:
        raise BoardError(f"unknown status {status!r}; use one of {', '.join(STATUSES)}")
    return status


def create_card(conn: sqlite3.Connection, company: str, title: str, jd_text: str = "", status: str = "saved",
                resume_doc_id: int | None = None, resume_revision: int | None = None,
                coverage: float | None = None, notes: str = "") -> Card:
    """Add a card (its creation is the first entry of its history)."""
    _check_status(status)
    now = _now()
    with transaction(conn):
        cur = conn.execute(
            """INSERT INTO applications (company, title, jd_text, status, resume_doc_id, resume_revision, coverage,
               notes, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (company, title, jd_text, status, resume_doc_id, resume_revision, coverage, notes, now, now),
        )
        card_id = int(cur.lastrowid or 0)
        conn.execute(
            """INSERT INTO application_moves (application_id, from_status, to_status, note, moved)
               VALUES (?, NULL, ?, '', ?)""",
            (card_id, status, now),
        )
    return get_card(conn, card_id)


def get_card(conn: sqlite3.Connection, card_id: int) -> Card:
    row = conn.execute("SELECT * FROM applications WHERE id = ?", (card_id,)).fetchone()
    if row is None:
        raise BoardError(f"no application card with id {card_id}")
    return _card(conn, row)


def _card(conn: sqlite3.Connection, row: sqlite3.Row) -> Card:
    sessions = conn.execute(
        "SELECT session_id FROM application_sessions WHERE application_id = ? ORDER BY added, session_id", (row["id"],)
    )
    return Card(row["id"], row["company"], row["title"], row["jd_text"], row["status"], row["resume_doc_id"],
                row["resume_revision"], row["coverage"], row["notes"], row["created"], row["updated"],
                tuple(r["session_id"] for r in sessions), row["applied_on"], row["next_on"])


def board(conn: sqlite3.Connection) -> dict[str, list[Card]]:
    """Every status (in order) with its cards, most recently updated first."""
    out: dict[str, list[Card]] = {s: [] for s in STATUSES}
    for row in conn.execute("SELECT * FROM applications ORDER BY updated DESC, id DESC"):
        out[row["status"]].append(_card(conn, row))
    return out


def move(conn: sqlite3.Connection, card_id: int, to_status: str, note: str = "") -> Card:
    """Move a card to `to_status`, recording the move; moving to its current status records nothing."""
    _check_status(to_status)
    with transaction(conn):
        row = conn.execute("SELECT status FROM applications WHERE id = ?", (card_id,)).fetchone()
        if row is None:
            raise BoardError(f"no application card with id {card_id}")
        if row["status"] != to_status:
            now = _now()
            conn.execute("UPDATE applications SET status = ?, updated = ? WHERE id = ?", (to_status, now, card_id))
            conn.execute(
                """INSERT INTO application_moves (application_id, from_status, to_status, note, moved)
                   VALUES (?, ?, ?, ?, ?)""",
                (card_id, row["status"], to_status, note, now),
            )
    return get_card(conn, card_id)


def history(conn: sqlite3.Connection, card_id: int) -> list[Move]:
    """The card's moves, oldest first (the first is its creation)."""
    rows = conn.execute(
        "SELECT * FROM application_moves WHERE application_id = ? ORDER BY id", (card_id,)
    )
    return [Move(r["from_status"], r["to_status"], r["note"], r["moved"]) for r in rows]


def update_card(conn: sqlite3.Connection, card_id: int, **fields: object) -> Card:
    """Change company, title, jd_text, notes, resume_doc_id, resume_revision, coverage, applied_on or next_on
    (ISO dates, or None to clear) -- not status: `move`."""
    allowed = {"company", "title", "jd_text", "notes", "resume_doc_id", "resume_revision", "coverage", *DATES}
    if unknown := set(fields) - allowed:
        raise BoardError(f"cannot update {', '.join(sorted(unknown))} (status changes go through move())")
    for name in DATES & set(fields):
        fields[name] = _check_date(name, fields[name])
    for name in ("company", "title"):
        if name in fields and not str(fields[name]).strip():
            raise BoardError(f"{name} cannot be empty")
    if not fields:
        return get_card(conn, card_id)
    names = sorted(fields)
    with transaction(conn):
        cur = conn.execute(
            f"UPDATE applications SET {', '.join(f'{n} = ?' for n in names)}, updated = ? WHERE id = ?",
            (*(fields[n] for n in names), _now(), card_id),
        )
        if cur.rowcount == 0:
            raise BoardError(f"no application card with id {card_id}")
    return get_card(conn, card_id)


def link_resume(conn: sqlite3.Connection, card_id: int, doc_id: int, revision: int | None = None) -> Card:
    """Attach a résumé version (a revision, or None for its latest) and recompute the card's coverage. A version
    or revision that does not exist (any more) is a BoardError that says which."""
    try:
        get_revision(conn, doc_id, revision)
    except VersionError as e:
        raise BoardError(f"cannot link card {card_id}: {e}") from e
    card = update_card(conn, card_id, resume_doc_id=doc_id, resume_revision=revision)
    return refresh_coverage(conn, card.id)


def refresh_coverage(conn: sqlite3.Connection, card_id: int) -> Card:
    """Recompute the coverage % of the card's résumé revision against its JD (None without both)."""
    card = get_card(conn, card_id)
    value = None
    if card.resume_doc_id is not None and card.jd_text.strip():
        content = get_revision(conn, card.resume_doc_id, card.resume_revision).content
        value = coverage(analyze_jd(card.jd_text, propose=False), content).percent
    return update_card(conn, card_id, coverage=value)


def add_session(conn: sqlite3.Connection, card_id: int, session_id: str) -> Card:
    """Link a mock-interview session to the card (idempotent)."""
    with transaction(conn):
        if not conn.execute("SELECT 1 FROM applications WHERE id = ?", (card_id,)).fetchone():
            raise BoardError(f"no application card with id {card_id}")
        conn.execute(
            "INSERT OR IGNORE INTO application_sessions (application_id, session_id, added) VALUES (?, ?, ?)",
            (card_id, str(session_id), _now()),
        )
    return get_card(conn, card_id)


def delete_card(conn: sqlite3.Connection, card_id: int) -> None:
    with transaction(conn):
        conn.execute("DELETE FROM applications WHERE id = ?", (card_id,))


def session_cards(conn: sqlite3.Connection) -> dict[str, Card]:
    """Mock-interview session id -> the card it was practised for (sessions without one are absent)."""
    rows = conn.execute("SELECT session_id, application_id FROM application_sessions ORDER BY added")
    cards: dict[int, Card] = {}
    out: dict[str, Card] = {}
    for r in rows:
        card_id = r["application_id"]
        if card_id not in cards:
            cards[card_id] = get_card(conn, card_id)
        out[r["session_id"]] = cards[card_id]
    return out
