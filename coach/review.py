"""Spaced repetition of bank questions with FSRS (the `fsrs` package, v6), and the self-assessment ratings.

Review ratings are FSRS's four: 1 Again, 2 Hard, 3 Good, 4 Easy. Self-assessment ratings are 1-5
(1-2 unfamiliar, 3 know, 4-5 master), see `question_bank.checklist`.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone

from fsrs import Card, Rating, Scheduler

from coach.db import transaction
from question_bank.loader import Bank

SCHEDULER = Scheduler()


def _utc(now: datetime | None) -> datetime:
    if now is None:
        return datetime.now(timezone.utc)
    if now.tzinfo is None:
        raise ValueError("pass an aware datetime (e.g. datetime.now(timezone.utc)), not a naive one")
    return now.astimezone(timezone.utc)  # fsrs insists on timezone.utc itself


def _iso(dt: datetime) -> str:
    # Always with microseconds: a fixed width keeps text comparison in SQL equal to time order.
    return dt.astimezone(timezone.utc).isoformat(timespec="microseconds")


def rate(conn: sqlite3.Connection, question_id: str, rating: int | Rating,
         now: datetime | None = None) -> datetime:
    """Record one review of `question_id` (1 Again .. 4 Easy) and return when it is due next."""
    now, rating = _utc(now), Rating(rating)
    with transaction(conn):
        row = conn.execute("SELECT card_json FROM reviews WHERE question_id = ?", (question_id,)).fetchone()
        card = Card.from_json(row["card_json"]) if row else Card(due=now)
        card, log = SCHEDULER.review_card(card, rating, review_datetime=now)
        conn.execute(
            """INSERT INTO reviews (question_id, card_json, due, last_rating, updated) VALUES (?, ?, ?, ?, ?)
               ON CONFLICT (question_id) DO UPDATE SET card_json = excluded.card_json, due = excluded.due,
               last_rating = excluded.last_rating, updated = excluded.updated""",
            (question_id, card.to_json(), _iso(card.due), int(rating), _iso(now)),
        )
        conn.execute(
            "INSERT INTO review_log (question_id, rating, reviewed, log_json) VALUES (?, ?, ?, ?)",
            (question_id, int(rating), _iso(now), log.to_json()),
        )
    return card.due


def due(conn: sqlite3.Connection, now: datetime | None = None) -> list[str]:
    """Question ids whose review is due at `now`, most overdue first."""
    rows = conn.execute("SELECT question_id FROM reviews WHERE due <= ? ORDER BY due", (_iso(_utc(now)),))
    return [r["question_id"] for r in rows]


def new_questions(conn: sqlite3.Connection, bank: Bank, n: int) -> list[str]:
    """Up to `n` ids of questions never reviewed: easier first, then in bank order."""
    seen = {r["question_id"] for r in conn.execute("SELECT question_id FROM reviews")}
    fresh = sorted((q for q in bank.questions if q.id not in seen), key=lambda q: q.difficulty)
    return [q.id for q in fresh[:n]]


def save_self_assessment(conn: sqlite3.Connection, item_id: str, rating: int) -> None:
    if not 1 <= rating <= 5:
        raise ValueError(f"self-assessment rating must be 1-5, got {rating}")
    with transaction(conn):
        conn.execute(
            """INSERT INTO self_assessment (item_id, rating, updated) VALUES (?, ?, ?)
               ON CONFLICT (item_id) DO UPDATE SET rating = excluded.rating, updated = excluded.updated""",
            (item_id, rating, _iso(_utc(None))),
        )


def load_self_assessment(conn: sqlite3.Connection) -> dict[str, int]:
    return {r["item_id"]: r["rating"] for r in conn.execute("SELECT item_id, rating FROM self_assessment")}
