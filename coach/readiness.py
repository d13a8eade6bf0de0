"""How ready the user is, topic by topic, from the review history: of each topic's bank questions, how many have
been reviewed and how many were last rated Good or Easy (FSRS 3-4). The home page charts it."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, time, timedelta, timezone

from question_bank.loader import Bank

GOOD = 3  # FSRS ratings: 1 Again, 2 Hard, 3 Good, 4 Easy


@dataclass(frozen=True)
class TopicReadiness:
    topic: str
    zh: str
    en: str
    total: int
    reviewed: int
    good: int  # last rating Good or Easy

    @property
    def percent(self) -> float:
        return round(100 * self.good / self.total, 1) if self.total else 0.0


def by_topic(conn: sqlite3.Connection, bank: Bank) -> list[TopicReadiness]:
    """One row per bank topic, in bank order."""
    last = {r["question_id"]: r["last_rating"] for r in conn.execute("SELECT question_id, last_rating FROM reviews")}
    out = []
    for name, topic in bank.topics.items():
        ids = [q.id for q in topic.questions]
        out.append(TopicReadiness(name, topic.title.zh, topic.title.en, len(ids), sum(i in last for i in ids),
                                  sum(last.get(i, 0) >= GOOD for i in ids)))
    return out


def end_of_day(now: datetime) -> datetime:
    """The end of `now`'s local calendar day, as an aware UTC time ("due today" means before midnight here)."""
    local = now.astimezone()
    return datetime.combine(local.date() + timedelta(days=1), time(), local.tzinfo).astimezone(timezone.utc)


def recent_reviews(conn: sqlite3.Connection, limit: int = 5) -> list[tuple[str, int, str]]:
    """(question id, rating, when) of the latest reviews, newest first."""
    rows = conn.execute("SELECT question_id, rating, reviewed FROM review_log ORDER BY id DESC LIMIT ?", (limit,))
    return [(r["question_id"], r["rating"], r["reviewed"]) for r in rows]
