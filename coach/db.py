"""The user's database: one SQLite file in the data folder (`KGP_DATA_DIR`, default ~/.kilogpu-prep/).

WAL lets the app read while a review is being written, from another tab or process. The schema grows by
appending to MIGRATIONS: never edit a shipped entry; PRAGMA user_version records how many have run.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

DB_NAME = "kilogpu-prep.sqlite3"
BUSY_TIMEOUT_MS = 5000

MIGRATIONS: list[list[str]] = [
    [  # 1: spaced-repetition state and the self-assessment
        """CREATE TABLE reviews (
            question_id TEXT PRIMARY KEY,
            card_json TEXT NOT NULL,          -- fsrs.Card.to_json()
            due TEXT NOT NULL,                -- UTC ISO 8601, fixed width, so text order is time order
            last_rating INTEGER NOT NULL,
            updated TEXT NOT NULL)""",
        "CREATE INDEX reviews_due ON reviews (due)",
        """CREATE TABLE review_log (
            id INTEGER PRIMARY KEY,
            question_id TEXT NOT NULL REFERENCES reviews (question_id) ON DELETE CASCADE,
            rating INTEGER NOT NULL,
            reviewed TEXT NOT NULL,
            log_json TEXT NOT NULL)           -- fsrs.ReviewLog.to_json(), enough to re-fit FSRS later""",
        """CREATE TABLE self_assessment (
            item_id TEXT PRIMARY KEY,
            rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
            updated TEXT NOT NULL)""",
    ],
    [  # 2: résumé versions (one master, one tailored per job) with revisions; the application board
        """CREATE TABLE resume_docs (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('master', 'tailored')),
            job TEXT,                         -- the job a tailored version is for; NULL for the master
            created TEXT NOT NULL,
            CHECK ((kind = 'master') = (job IS NULL)))""",
        "CREATE UNIQUE INDEX resume_docs_one_master ON resume_docs (kind) WHERE kind = 'master'",
        "CREATE UNIQUE INDEX resume_docs_one_per_job ON resume_docs (job) WHERE job IS NOT NULL",
        """CREATE TABLE resume_revisions (
            doc_id INTEGER NOT NULL REFERENCES resume_docs (id) ON DELETE CASCADE,
            revision INTEGER NOT NULL,        -- 1, 2, ... per document; every save adds one
            content TEXT NOT NULL,            -- Markdown (coach.documents.Resume.to_markdown)
            note TEXT NOT NULL DEFAULT '',
            created TEXT NOT NULL,
            PRIMARY KEY (doc_id, revision))""",
        """CREATE TABLE applications (
            id INTEGER PRIMARY KEY,
            company TEXT NOT NULL,
            title TEXT NOT NULL,
            jd_text TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL CHECK (status IN
                ('saved', 'applied', 'screening', 'interviewing', 'offer', 'rejected')),
            resume_doc_id INTEGER REFERENCES resume_docs (id) ON DELETE SET NULL,
            resume_revision INTEGER,          -- the revision sent; NULL = the latest
            coverage REAL,                    -- JD keyword coverage %, coach.jd.coverage
            notes TEXT NOT NULL DEFAULT '',
            created TEXT NOT NULL,
            updated TEXT NOT NULL)""",
        "CREATE INDEX applications_status ON applications (status)",
        """CREATE TABLE application_moves (
            id INTEGER PRIMARY KEY,
            application_id INTEGER NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
            from_status TEXT,                 -- NULL for the card's creation
            to_status TEXT NOT NULL,
            note TEXT NOT NULL DEFAULT '',
            moved TEXT NOT NULL)""",
        # Mock-interview sessions practised for an application; the interview engine owns the session ids.
        """CREATE TABLE application_sessions (
            application_id INTEGER NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
            session_id TEXT NOT NULL,
            added TEXT NOT NULL,
            PRIMARY KEY (application_id, session_id))""",
    ],
    [  # 3: mock interviews (coach.interview): sessions, one turn per question, per-skill misses
        """CREATE TABLE interview_sessions (
            id TEXT PRIMARY KEY,              -- uuid4 hex; also the id linked on the board (application_sessions)
            lang TEXT NOT NULL CHECK (lang IN ('zh', 'en')),
            seed INTEGER NOT NULL,            -- the plan is reproducible from the inputs and this seed
            question_ids TEXT NOT NULL,       -- JSON list, the plan in asking order
            plan_json TEXT NOT NULL,          -- JSON: why each question was picked (coach.plan.Pick)
            jd_text TEXT NOT NULL DEFAULT '',
            resume_text TEXT NOT NULL DEFAULT '',
            runs_dir TEXT NOT NULL DEFAULT 'runs',
            engine TEXT NOT NULL,             -- offline | llm (as configured; a turn may have fallen back)
            started TEXT NOT NULL,
            finished TEXT)""",
        """CREATE TABLE interview_turns (
            session_id TEXT NOT NULL REFERENCES interview_sessions (id) ON DELETE CASCADE,
            position INTEGER NOT NULL,        -- 0, 1, ... in asking order
            question_id TEXT NOT NULL,
            answer TEXT NOT NULL,
            follow_ups_json TEXT NOT NULL,    -- JSON list of coach.followups.FollowUp
            grade_json TEXT NOT NULL,         -- coach.grading.Grade
            score INTEGER NOT NULL,
            engine TEXT NOT NULL,             -- offline | llm: who wrote the follow-ups and feedback
            notice TEXT,                      -- the fallback notice when the LLM failed
            asked TEXT NOT NULL,
            answered TEXT NOT NULL,
            PRIMARY KEY (session_id, position))""",
        "CREATE INDEX interview_turns_question ON interview_turns (question_id)",
        # Per-skill weakness from graded answers: the plan weighs missed / asked; the checklist page may show it
        # as a suggested rating. Kept apart from self_assessment, which only the user sets.
        """CREATE TABLE interview_weakness (
            skill_id TEXT PRIMARY KEY,
            asked INTEGER NOT NULL DEFAULT 0,
            missed INTEGER NOT NULL DEFAULT 0,  -- answers on the skill that scored under the pass mark
            updated TEXT NOT NULL)""",
    ],
    [  # 4: the user's settings (UI language), and two dates on an application card
        "CREATE TABLE user_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "ALTER TABLE applications ADD COLUMN applied_on TEXT",  # ISO date the application went out; NULL = unset
        "ALTER TABLE applications ADD COLUMN next_on TEXT",     # ISO date of the next step (a call, an onsite)
    ],
    [  # 5: the user's own answers to bank questions, every revision kept with its grade (coach.my_answers)
        """CREATE TABLE my_answers (
            question_id TEXT NOT NULL,
            revision INTEGER NOT NULL,        -- 1, 2, ... per question
            answer TEXT NOT NULL,
            lang TEXT NOT NULL,
            score INTEGER NOT NULL,           -- coach.grading.Grade.score at save time
            grade_json TEXT NOT NULL,         -- the whole Grade, to show what each revision covered
            source TEXT NOT NULL,             -- own | interview: typed here, or saved from a mock interview
            created TEXT NOT NULL,
            PRIMARY KEY (question_id, revision))""",
    ],
    [  # 6: kata attempts (labs.kata): when, how long, which cases passed, a hash of the code judged
        """CREATE TABLE kata_attempts (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kata TEXT NOT NULL,
            created TEXT NOT NULL,
            seconds REAL NOT NULL,
            passed_cases INTEGER NOT NULL,
            total_cases INTEGER NOT NULL,
            passed INTEGER NOT NULL,           -- 1 when every case passed
            code_sha256 TEXT NOT NULL,
            cases_json TEXT NOT NULL           -- [{name, status, detail, seconds}]: what the user saw
            )""",
        "CREATE INDEX kata_attempts_kata ON kata_attempts (kata, created)",
    ],
]


def default_data_dir() -> Path:
    return Path(os.environ.get("KGP_DATA_DIR") or Path.home() / ".kilogpu-prep")


def connect(data_dir: Path | str | None = None) -> sqlite3.Connection:
    """Open (creating and migrating if needed) the database in `data_dir` (default: `default_data_dir()`)."""
    folder = Path(data_dir) if data_dir is not None else default_data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(folder / DB_NAME, timeout=BUSY_TIMEOUT_MS / 1000)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    migrate(conn)
    return conn


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A write transaction holding the write lock from the start: a read-then-write cannot race a writer."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.rollback()
        raise
    conn.commit()


def _version(conn: sqlite3.Connection) -> int:
    return conn.execute("PRAGMA user_version").fetchone()[0]


def migrate(conn: sqlite3.Connection) -> None:
    if _version(conn) >= len(MIGRATIONS):
        return
    for version, statements in enumerate(MIGRATIONS, start=1):
        with transaction(conn):
            # Re-read under the lock: two processes opening a fresh database must not both migrate it.
            if _version(conn) < version:
                for sql in statements:
                    conn.execute(sql)
                conn.execute(f"PRAGMA user_version = {version}")
