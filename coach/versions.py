"""Résumé versions: one master résumé and one tailored version per job (一岗一版), each with its history.

A version's content is Markdown (`coach.documents.Resume.to_markdown()` of an upload, or edited text); every
save that changes it adds a revision, so nothing is ever overwritten. `diff` compares any two revisions, of
one version or across versions (master vs a tailored one). `to_docx` exports ATS-friendly Word: plain headings
and bullet paragraphs only, no tables, text boxes, columns or images, which parsers read in the wrong order
or not at all.
"""

from __future__ import annotations

import difflib
import io
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from coach.db import transaction
from coach.documents import parse_text

MASTER, TAILORED = "master", "tailored"


class VersionError(ValueError):
    """A version that does not exist, or a second version for the same job."""


@dataclass(frozen=True)
class ResumeDoc:
    id: int
    kind: str          # master | tailored
    job: str | None    # the job a tailored version is for
    created: str

    @property
    def label(self) -> str:
        return "master" if self.kind == MASTER else f"job: {self.job}"


@dataclass(frozen=True)
class Revision:
    doc_id: int
    revision: int
    content: str
    note: str
    created: str


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def _doc(row: sqlite3.Row) -> ResumeDoc:
    return ResumeDoc(row["id"], row["kind"], row["job"], row["created"])


def _rev(row: sqlite3.Row) -> Revision:
    return Revision(row["doc_id"], row["revision"], row["content"], row["note"], row["created"])


def master(conn: sqlite3.Connection) -> ResumeDoc | None:
    row = conn.execute("SELECT * FROM resume_docs WHERE kind = 'master'").fetchone()
    return _doc(row) if row else None


def tailored(conn: sqlite3.Connection, job: str) -> ResumeDoc | None:
    row = conn.execute("SELECT * FROM resume_docs WHERE job = ?", (job,)).fetchone()
    return _doc(row) if row else None


def get_doc(conn: sqlite3.Connection, doc_id: int) -> ResumeDoc:
    row = conn.execute("SELECT * FROM resume_docs WHERE id = ?", (doc_id,)).fetchone()
    if row is None:
        raise VersionError(f"no résumé version with id {doc_id}")
    return _doc(row)


def list_docs(conn: sqlite3.Connection) -> list[ResumeDoc]:
    """The master first, then tailored versions by job."""
    rows = conn.execute("SELECT * FROM resume_docs ORDER BY kind = 'tailored', job")
    return [_doc(r) for r in rows]


def save_master(conn: sqlite3.Connection, content: str, note: str = "") -> Revision:
    """Save the master résumé (created on first save); returns the new (or unchanged latest) revision."""
    with transaction(conn):
        row = conn.execute("SELECT id FROM resume_docs WHERE kind = 'master'").fetchone()
        doc_id = row["id"] if row else _insert_doc(conn, MASTER, None)
        return _add_revision(conn, doc_id, content, note)


def create_tailored(conn: sqlite3.Connection, job: str, content: str | None = None, note: str = "") -> Revision:
    """Start the version for `job` (one per job), from `content` or else from the master's latest revision."""
    job = job.strip()
    if not job:
        raise VersionError("a tailored version needs a job name")
    with transaction(conn):
        if conn.execute("SELECT 1 FROM resume_docs WHERE job = ?", (job,)).fetchone():
            raise VersionError(f"there is already a version for {job!r} (one version per job): save a revision")
        if content is None:
            base = conn.execute(
                """SELECT r.content, r.revision FROM resume_revisions r JOIN resume_docs d ON d.id = r.doc_id
                   WHERE d.kind = 'master' ORDER BY r.revision DESC LIMIT 1"""
            ).fetchone()
            if base is None:
                raise VersionError("no master résumé yet: save one first, or pass the content")
            content, note = base["content"], note or f"copied from master r{base['revision']}"
        return _add_revision(conn, _insert_doc(conn, TAILORED, job), content, note)


def save_revision(conn: sqlite3.Connection, doc_id: int, content: str, note: str = "") -> Revision:
    """Save `content` as the next revision of version `doc_id`. Saving unchanged content adds nothing and
    returns the latest revision, so a double click does not clutter the history."""
    with transaction(conn):
        if not conn.execute("SELECT 1 FROM resume_docs WHERE id = ?", (doc_id,)).fetchone():
            raise VersionError(f"no résumé version with id {doc_id}")
        return _add_revision(conn, doc_id, content, note)


def _insert_doc(conn: sqlite3.Connection, kind: str, job: str | None) -> int:
    cur = conn.execute("INSERT INTO resume_docs (kind, job, created) VALUES (?, ?, ?)", (kind, job, _now()))
    return int(cur.lastrowid or 0)


def _add_revision(conn: sqlite3.Connection, doc_id: int, content: str, note: str) -> Revision:
    # Called inside BEGIN IMMEDIATE: the max() read and the insert cannot interleave with another writer.
    last = conn.execute(
        "SELECT * FROM resume_revisions WHERE doc_id = ? ORDER BY revision DESC LIMIT 1", (doc_id,)
    ).fetchone()
    if last is not None and last["content"] == content:
        return _rev(last)
    rev = Revision(doc_id, (last["revision"] if last else 0) + 1, content, note, _now())
    conn.execute(
        "INSERT INTO resume_revisions (doc_id, revision, content, note, created) VALUES (?, ?, ?, ?, ?)",
        (rev.doc_id, rev.revision, rev.content, rev.note, rev.created),
    )
    return rev


def latest(conn: sqlite3.Connection, doc_id: int) -> Revision:
    row = conn.execute(
        "SELECT * FROM resume_revisions WHERE doc_id = ? ORDER BY revision DESC LIMIT 1", (doc_id,)
    ).fetchone()
    if row is None:
        raise VersionError(f"no résumé version with id {doc_id}")
    return _rev(row)


def get_revision(conn: sqlite3.Connection, doc_id: int, revision: int | None = None) -> Revision:
    """One revision of a version; None = the latest."""
    if revision is None:
        return latest(conn, doc_id)
    row = conn.execute(
        "SELECT * FROM resume_revisions WHERE doc_id = ? AND revision = ?", (doc_id, revision)
    ).fetchone()
    if row is None:
        raise VersionError(f"version {doc_id} has no revision {revision}")
    return _rev(row)


def history(conn: sqlite3.Connection, doc_id: int) -> list[Revision]:
    """Every revision of a version, oldest first."""
    rows = conn.execute("SELECT * FROM resume_revisions WHERE doc_id = ? ORDER BY revision", (doc_id,))
    return [_rev(r) for r in rows]


def diff(old: Revision, new: Revision, old_label: str | None = None, new_label: str | None = None) -> str:
    """Unified diff of two revisions (of one version or of two), '' when they are equal."""
    a = old_label or f"version {old.doc_id} r{old.revision}"
    b = new_label or f"version {new.doc_id} r{new.revision}"
    lines = difflib.unified_diff(
        old.content.splitlines(keepends=True), new.content.splitlines(keepends=True), fromfile=a, tofile=b
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def diff_revisions(conn: sqlite3.Connection, doc_id: int, old: int, new: int | None = None) -> str:
    """Diff revision `old` of a version against `new` (default: its latest)."""
    return diff(get_revision(conn, doc_id, old), get_revision(conn, doc_id, new))


def diff_against_master(conn: sqlite3.Connection, doc_id: int) -> str:
    """What a tailored version changed relative to the master's latest revision."""
    m = master(conn)
    if m is None:
        raise VersionError("no master résumé yet")
    doc = get_doc(conn, doc_id)
    return diff(latest(conn, m.id), latest(conn, doc_id), "master", doc.label)


# ---- export ------------------------------------------------------------------------------------------------


def to_markdown(content: str) -> str:
    """Normalised Markdown: `#` name, `##` sections, `###` entries, `-` bullets."""
    return parse_text(content).to_markdown()


def to_docx(content: str, path: Path | str | None = None) -> bytes:
    """An ATS-friendly DOCX of the Markdown `content`: Title, Heading 1/2 and List Bullet paragraphs only.
    Returns the bytes, and writes them to `path` when given."""
    import docx

    resume = parse_text(content)
    document = docx.Document()
    if resume.name:
        document.add_heading(resume.name, level=0)
    for section in resume.sections:
        if section.title:
            document.add_heading(section.title, level=1)
        for e in section.experiences:
            if e.title:
                if section.title and e.is_entry:
                    document.add_heading(e.title, level=2)
                else:
                    document.add_paragraph(e.title)
            for line in e.details:
                document.add_paragraph(line)
            for bullet in e.bullets:
                document.add_paragraph(bullet, style="List Bullet")
    buffer = io.BytesIO()
    document.save(buffer)
    data = buffer.getvalue()
    if path is not None:
        Path(path).write_bytes(data)
    return data
