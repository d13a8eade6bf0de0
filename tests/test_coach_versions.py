"""Résumé versions in a real SQLite database (KGP_DATA_DIR is a temp dir per test, see conftest)."""

from __future__ import annotations

import io
import threading
import zipfile
from pathlib import Path

import docx
import pytest

from coach.db import connect
from coach.documents import parse_resume
from coach.versions import (
    VersionError,
    create_tailored,
    diff,
    diff_against_master,
    diff_revisions,
    get_revision,
    history,
    latest,
    list_docs,
    master,
    save_master,
    save_revision,
    tailored,
    to_docx,
    to_markdown,
)

MASTER = """# 张三

## 工作经历

### 某大模型公司 | 训练框架工程师 | 2021-2024
- 使用 DeepSpeed 训练大模型
- 实现断点续训

## 技能
PyTorch, NCCL
"""


def test_master_saves_add_revisions(tmp_path: Path) -> None:
    conn = connect()
    r1 = save_master(conn, MASTER, "upload")
    r2 = save_master(conn, MASTER.replace("实现断点续训", "实现断点续训与弹性训练"), "edit")
    assert (r1.revision, r2.revision) == (1, 2) and r1.doc_id == r2.doc_id
    assert save_master(conn, r2.content).revision == 2  # unchanged: nothing new
    assert [(r.revision, r.note) for r in history(conn, r1.doc_id)] == [(1, "upload"), (2, "edit")]
    assert latest(conn, r1.doc_id).content == r2.content
    assert get_revision(conn, r1.doc_id, 1).content == MASTER
    assert master(conn).id == r1.doc_id
    assert conn.execute("SELECT count(*) FROM resume_docs WHERE kind = 'master'").fetchone()[0] == 1


def test_one_tailored_version_per_job(tmp_path: Path) -> None:
    conn = connect()
    with pytest.raises(VersionError, match="no master"):
        create_tailored(conn, "字节 - 训练框架")
    save_master(conn, MASTER)
    t = create_tailored(conn, "字节 - 训练框架")
    assert t.revision == 1 and t.content == MASTER and t.note == "copied from master r1"
    with pytest.raises(VersionError, match="one version per job"):
        create_tailored(conn, "字节 - 训练框架", "other")
    other = create_tailored(conn, "Moonshot - Infra", "# 张三\n- custom\n")
    assert tailored(conn, "字节 - 训练框架").id == t.doc_id
    assert [d.label for d in list_docs(conn)] == ["master", "job: Moonshot - Infra", "job: 字节 - 训练框架"]
    assert other.doc_id != t.doc_id


def test_diffs_between_revisions_and_against_master(tmp_path: Path) -> None:
    conn = connect()
    save_master(conn, MASTER)
    t = create_tailored(conn, "job A")
    edited = MASTER.replace("- 实现断点续训", "- 实现 checkpoint resume，恢复时间 5 分钟")
    save_revision(conn, t.doc_id, edited, "tailor")
    d = diff_revisions(conn, t.doc_id, 1)
    assert f"--- version {t.doc_id} r1" in d and f"+++ version {t.doc_id} r2" in d
    assert "-- 实现断点续训\n" in d and "+- 实现 checkpoint resume，恢复时间 5 分钟\n" in d
    m = diff_against_master(conn, t.doc_id)
    assert m.startswith("--- master\n+++ job: job A\n")
    assert diff(get_revision(conn, t.doc_id, 1), get_revision(conn, t.doc_id, 1)) == ""
    with pytest.raises(VersionError, match="no revision 9"):
        get_revision(conn, t.doc_id, 9)
    with pytest.raises(VersionError):
        save_revision(conn, 999, "x")


def test_markdown_export_is_normalised(tmp_path: Path) -> None:
    md = to_markdown("张三\n\n工作经历\n• 使用 DeepSpeed 训练大模型\n1. 实现断点续训\n")
    assert md == "张三\n\n## 工作经历\n\n- 使用 DeepSpeed 训练大模型\n- 实现断点续训\n"


def test_docx_export_is_ats_friendly(tmp_path: Path) -> None:
    path = tmp_path / "cv.docx"
    data = to_docx(MASTER, path)
    assert path.read_bytes() == data
    d = docx.Document(io.BytesIO(data))
    styles = [(p.style.name, p.text) for p in d.paragraphs]
    assert styles == [
        ("Title", "张三"), ("Heading 1", "工作经历"), ("Heading 2", "某大模型公司 | 训练框架工程师 | 2021-2024"),
        ("List Bullet", "使用 DeepSpeed 训练大模型"), ("List Bullet", "实现断点续训"), ("Heading 1", "技能"),
        ("Normal", "PyTorch, NCCL"),
    ]
    assert d.tables == [] and not d.inline_shapes
    body = zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml").decode()
    assert "txbxContent" not in body and "<w:tbl>" not in body and "w:drawing" not in body
    again = parse_resume(data, "cv.docx")  # and it reads back as the same résumé
    assert again.bullets == ["使用 DeepSpeed 训练大模型", "实现断点续训"] and again.name == "张三"


def test_concurrent_saves_from_two_sessions_get_distinct_revisions(tmp_path: Path) -> None:
    doc_id = save_master(connect(), MASTER).doc_id
    errors: list[BaseException] = []

    def session(name: str) -> None:
        conn = connect()  # one connection per app session
        try:
            for i in range(15):
                save_revision(conn, doc_id, f"{MASTER}\n- {name} edit {i}\n", name)
        except BaseException as e:  # surfaced below; a thread's exception is otherwise lost
            errors.append(e)
        finally:
            conn.close()

    threads = [threading.Thread(target=session, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    revisions = [r.revision for r in history(connect(), doc_id)]
    assert revisions == list(range(1, 32))
