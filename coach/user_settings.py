"""The user's settings that outlive a session (today: the UI language), in the user's database.

Never the API key: that stays in the session's memory only (see app/app_pages/settings.py)."""

from __future__ import annotations

import sqlite3

from coach.db import transaction

NEVER_STORED = frozenset({"llm_api_key", "api_key"})


def get(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM user_settings WHERE key = ?", (key,)).fetchone()
    return None if row is None else row["value"]


def put(conn: sqlite3.Connection, key: str, value: str) -> None:
    if key in NEVER_STORED:
        raise ValueError(f"{key} is never written to disk")
    with transaction(conn):
        conn.execute("INSERT INTO user_settings (key, value) VALUES (?, ?) "
                     "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))
