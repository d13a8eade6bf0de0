"""Everything the user has saved, out (a zip of JSON + Markdown) or gone (reset).

The zip holds one JSON file per table (every row, so nothing is lost) and Markdown for people: the latest
revision of each résumé version, each mock interview's transcript, and the application board. Reset empties
every table in one transaction; the schema (and its version) stays, so the app keeps working at once.
"""

from __future__ import annotations

import io
import json
import sqlite3
import zipfile
from datetime import datetime, timezone

from coach import board, versions
from coach.db import transaction
from coach.interview import load_session
from coach.transcript import export_markdown
from question_bank.loader import Bank


def tables(conn: sqlite3.Connection) -> list[str]:
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                        "ORDER BY name")
    return [r["name"] for r in rows]


def table_rows(conn: sqlite3.Connection, table: str) -> list[dict]:
    return [dict(r) for r in conn.execute(f'SELECT * FROM "{table}"')]  # name from sqlite_master, not the user


def board_markdown(conn: sqlite3.Connection) -> str:
    out = ["# Applications / 投递看板", ""]
    for status, cards in board.board(conn).items():
        out += [f"## {' / '.join(board.STATUS_NAMES[status])} ({len(cards)})", ""]
        for c in cards:
            dates = ", ".join(f"{k} {v}" for k, v in (("applied", c.applied_on), ("next", c.next_on)) if v)
            cov = "" if c.coverage is None else f", coverage {c.coverage:.0f}%"
            out.append(f"- **{c.company}** · {c.title}{cov}{' · ' + dates if dates else ''}")
            if c.notes.strip():
                out += [f"  > {line}" for line in c.notes.strip().splitlines()]
        out.append("")
    return "\n".join(out)


def export_zip(conn: sqlite3.Connection, bank: Bank) -> bytes:
    """The zip's bytes: data/<table>.json, resumes/*.md, interviews/*.md, applications.md, README.md."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for table in tables(conn):
            z.writestr(f"data/{table}.json", json.dumps(table_rows(conn, table), ensure_ascii=False, indent=1))
        for doc in versions.list_docs(conn):
            name = "master" if doc.kind == versions.MASTER else f"job-{doc.id}"
            z.writestr(f"resumes/{name}.md", versions.latest(conn, doc.id).content)
        for row in conn.execute("SELECT id, started FROM interview_sessions ORDER BY started"):
            day = row["started"][:10]
            z.writestr(f"interviews/{day}-{row['id'][:8]}.md", export_markdown(load_session(conn, row["id"]), bank))
        z.writestr("applications.md", board_markdown(conn))
        stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
        z.writestr("README.md", f"KiloGPU Prep export, {stamp}. data/ holds every row of every table.\n")
    return buf.getvalue()


def reset(conn: sqlite3.Connection) -> int:
    """Delete every row of every table; returns how many rows went."""
    gone = 0
    with transaction(conn):
        conn.execute("PRAGMA defer_foreign_keys = ON")  # children and parents go in one transaction
        for table in tables(conn):
            gone += conn.execute(f'DELETE FROM "{table}"').rowcount
    return gone
