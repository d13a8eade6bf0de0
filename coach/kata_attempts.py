"""The user's kata attempts (labs.kata): stored after every check, read for the list, the app and `reveal`.

An attempt keeps what the user saw (each case's status and detail), how long the check took and a SHA-256
of the code judged, not the code itself: the code stays in the user's own file.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone

from coach.db import transaction
from labs.kata.judge import Verdict


@dataclass(frozen=True)
class Attempt:
    kata: str
    created: str
    seconds: float
    passed_cases: int
    total_cases: int
    passed: bool
    code_sha256: str
    cases: list[dict]


def record(conn: sqlite3.Connection, verdict: Verdict) -> Attempt:
    """Store one judged attempt. A file that could not be judged (missing, not UTF-8) is not an attempt."""
    cases = [{"name": c.name, "status": c.status, "detail": c.detail, "seconds": c.seconds} for c in verdict.cases]
    attempt = Attempt(verdict.kata, datetime.now(timezone.utc).isoformat(timespec="seconds"), verdict.seconds,
                      verdict.passed_cases, len(verdict.cases), verdict.passed, verdict.code_sha256, cases)
    with transaction(conn):
        conn.execute("INSERT INTO kata_attempts (kata, created, seconds, passed_cases, total_cases, passed, "
                     "code_sha256, cases_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                     (attempt.kata, attempt.created, attempt.seconds, attempt.passed_cases, attempt.total_cases,
                      int(attempt.passed), attempt.code_sha256, json.dumps(cases, ensure_ascii=False)))
    return attempt


def attempts(conn: sqlite3.Connection, kata: str) -> list[Attempt]:
    """Every attempt at `kata`, newest first."""
    rows = conn.execute("SELECT * FROM kata_attempts WHERE kata = ? ORDER BY id DESC", (kata,))
    return [Attempt(r["kata"], r["created"], r["seconds"], r["passed_cases"], r["total_cases"], bool(r["passed"]),
                    r["code_sha256"], json.loads(r["cases_json"])) for r in rows]


def summary(conn: sqlite3.Connection) -> dict[str, dict]:
    """Per kata: attempts, whether any passed, the best share of cases passed, the last attempt's date."""
    rows = conn.execute("SELECT kata, COUNT(*) AS n, MAX(passed) AS solved, "
                        "MAX(CAST(passed_cases AS REAL) / MAX(total_cases, 1)) AS best, MAX(created) AS last "
                        "FROM kata_attempts GROUP BY kata")
    return {r["kata"]: {"attempts": r["n"], "solved": bool(r["solved"]), "best": r["best"], "last": r["last"]}
            for r in rows}
