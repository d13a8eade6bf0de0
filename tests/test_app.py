"""The Streamlit app through AppTest: one test per page, driving its widgets and checking what they did (the
database, the run folder) as well as what the page shows. Data and runs go to tmp_path (conftest + fixture)."""

from __future__ import annotations

import fcntl
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path

from streamlit.testing.v1 import AppTest

from app.i18n import STRINGS
from coach import board, review, versions
from coach.interview_store import list_sessions
from question_bank.loader import load_bank

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app" / "streamlit_app.py"
TORCHRUN_LOCK = "/tmp/kgp-torchrun.lock"  # one torchrun job at a time on a shared machine

RESUME = """# 张三

## 工作经历

### ACME | 训练平台 | 2021-2024
- 负责 64 卡 PyTorch DDP 训练的 checkpoint 保存与断点续训
- 优化 NCCL 通信，训练吞吐提升

## 技能
PyTorch, NCCL, DeepSpeed ZeRO-3
"""
JD = """任职要求：
1. 熟悉 PyTorch 分布式与 NCCL；
2. 有断点续训和弹性训练经验。
加分项：Megatron-LM 流水线并行。
"""


def zh(key: str) -> str:
    return STRINGS[key][0]


def page(at: AppTest, name: str) -> AppTest:
    at.switch_page(f"app_pages/{name}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def keyed(widgets, prefix: str) -> list:
    return [w for w in widgets if (w.key or "").startswith(prefix)]


def ago(**delta: float) -> datetime:
    return datetime.now(timezone.utc) - timedelta(**delta)


def test_home_shows_readiness_and_the_language_switch_changes_the_ui(at: AppTest, conn: sqlite3.Connection) -> None:
    assert at.title[0].value == zh("home.title")
    assert {m.label for m in at.metric} >= {zh("home.due_now"), zh("home.due_today")}
    assert at.get("vega_lite_chart")  # readiness by topic
    at.radio(key="lang").set_value("en").run()
    assert at.title[0].value == "KiloGPU Prep"
    assert {m.label for m in at.metric} >= {"Due now", "Due today"}
    page(at, "bank")
    assert at.title[0].value == "Question bank"  # the choice holds on every page
    review.rate(conn, "ckpt-what-to-save", 1, ago(days=1))
    page(at, "home")
    assert at.metric[0].value == "1" and at.get("page_link"), "a due review links to Practice"


def test_bank_search_filters_reveal_and_rating_schedules_a_review(at: AppTest, conn: sqlite3.Connection) -> None:
    page(at, "bank")
    at.text_input(key="qb_query").set_value("断点续训").run()
    reveals = keyed(at.button, "qb_reveal_")
    assert reveals, "a search for 断点续训 finds questions"
    at.selectbox(key="qb_topic__zh").set_value("checkpoint").run()
    reveals = keyed(at.button, "qb_reveal_")
    qid = reveals[0].key.removeprefix("qb_reveal_")
    assert qid in {q.id for q in load_bank().topics["checkpoint"].questions}
    assert not keyed(at.button, "qb_rate_")  # the answer and the ratings come only on demand
    at.button(key=f"qb_reveal_{qid}").click().run()
    assert any(zh("q.key_points") in m.value for m in at.markdown)
    at.button(key=f"qb_rate_3_{qid}").click().run()
    assert any("良好" in s.value for s in at.success)
    row = conn.execute("SELECT last_rating FROM reviews WHERE question_id = ?", (qid,)).fetchone()
    assert row["last_rating"] == 3 and qid not in review.due(conn)  # due later, not now


def test_practice_shows_due_reviews_first_then_new_questions(at: AppTest, conn: sqlite3.Connection) -> None:
    review.rate(conn, "ckpt-what-to-save", 1, ago(days=3))
    page(at, "practice")
    assert any(zh("practice.due").format(n=1) == i.value for i in at.info)
    at.button(key="pr_reveal_ckpt-what-to-save").click().run()
    at.button(key="pr_rate_4_ckpt-what-to-save").click().run()
    assert any("轻松" in s.value for s in at.success)
    assert review.due(conn) == []
    assert any(zh("practice.new").format(n=5) == i.value for i in at.info)  # nothing due: new questions
    assert keyed(at.button, "pr_reveal_") and not keyed(at.button, "pr_reveal_ckpt-what-to-save")


def start_interview(at: AppTest, questions: int, follow_ups: int) -> None:
    """The interview page's setup form filled with the JD and submitted."""
    page(at, "interview")
    at.number_input(key="iv_n").set_value(questions)
    at.number_input(key="iv_follow").set_value(follow_ups)
    at.text_area(key="iv_jd").set_value(JD)
    _submit(at, "iv_setup")


def test_mock_interview_chat_is_a_thread_graded_when_it_closes(at: AppTest, conn: sqlite3.Connection) -> None:
    start_interview(at, 2, 2)
    assert at.chat_input, "the chat is open"
    assert any(c.value.startswith(zh("iv.why").split("{")[0]) for c in at.caption)  # why this question
    scored = re.compile(r"\*\*本题得分 \d+ / 100\*\*")
    # a thin first answer misses every key point, so two follow-ups exist whichever question the plan drew
    at.chat_input[0].set_value("这个我只了解一点，没有实际做过。").run()
    for k in (1, 2):  # the thread stays open through two follow-ups: no grade, no reference yet
        assert any(c.value == zh("iv.follow_up").format(k=k) for c in at.caption)
        assert not any(scored.fullmatch(m.value) for m in at.markdown)
        assert zh("iv.reference") not in [e.label for e in at.expander]
        at.chat_input[0].set_value(f"第 {k} 个追问：我会先复现，再对比每个 rank 的日志。").run()
    assert any(scored.fullmatch(m.value) for m in at.markdown), "the thread is graded once it closes"
    assert zh("iv.reference") in [e.label for e in at.expander]
    assert len([m for m in at.chat_message if m.avatar == "user"]) == 3
    at.chat_input[0].set_value("不知道").run()  # an empty-handed answer to the second question
    if not any(zh("iv.done").split("，")[0] in s.value for s in at.success):
        at.button(key="iv_skip").click().run()  # skip its remaining follow-ups
    assert any(zh("iv.done").split("，")[0] in s.value for s in at.success)
    sessions = list_sessions(conn)
    assert len(sessions) == 1 and sessions[0]["answered"] == 2 and sessions[0]["finished"]


def test_resume_upload_coverage_star_versions_and_export(at: AppTest, conn: sqlite3.Connection) -> None:
    page(at, "resume")
    at.file_uploader(key="rj_upload").set_value(("cv.pdf", b"not a pdf", "application/pdf")).run()
    assert [e.value for e in at.error] == ["cv.pdf 不是有效的 PDF（文件损坏或是其他格式）"]  # all in Chinese
    at.file_uploader(key="rj_upload").set_value(("cv.md", RESUME.encode(), "text/markdown")).run()
    assert not at.error and "64 卡" in at.text_area(key="_w_rj_text").value
    at.text_area(key="_w_rj_jd").set_value(JD).run()
    coverage = next(m for m in at.metric if m.label == zh("resume.coverage"))
    assert re.fullmatch(r"\d+%", coverage.value) and coverage.value != "100%"
    assert at.dataframe, "the gaps table, with questions to practise"
    # STAR: the first bullet, one answer, rewritten from the user's facts only
    bullet = keyed(at.selectbox, "rj_bullet_")[0].value
    assert "64 卡" in bullet
    (recovery,) = [w for w in keyed(at.text_input, "rj_ans_") if w.key.endswith("_recovery_time")]
    recovery.set_value("从 30 分钟降到 3 分钟")
    at.button(key="rj_rewrite").click().run()
    assert any("3 分钟" in c.value for c in at.code), "the rewrite uses the user's answer"
    # versions: master, then a tailored one from it, then the diff and the exports
    at.button(key="rj_save_master").click().run()
    at.text_input(key="rj_job").set_value("ACME · 训练稳定性")
    _submit(at, "rj_new_version")
    docs = versions.list_docs(conn)
    assert [d.kind for d in docs] == ["master", "tailored"]
    at.selectbox(key="rj_doc__zh").set_value(docs[1].id).run()
    labels = {b.label for b in at.get("download_button")}
    assert labels == {zh("resume.download_md"), zh("resume.download_docx")}


def test_applications_board_moves_cards_and_links_a_resume(at: AppTest, conn: sqlite3.Connection) -> None:
    master = versions.save_master(conn, RESUME)
    page(at, "applications")
    at.text_input(key="ap_company").set_value("ACME")
    at.text_input(key="ap_title").set_value("训练稳定性工程师")
    at.text_area(key="ap_jd").set_value(JD)
    at.selectbox(key="ap_doc__zh").set_value(master.doc_id)
    _submit(at, "ap_new")
    (card,) = board.board(conn)["saved"]
    assert card.coverage is not None and any(f"{card.coverage:.0f}%" in c.value for c in at.caption)
    at.selectbox(key=f"ap_move_{card.id}__zh").set_value("applied").run()
    assert board.get_card(conn, card.id).status == "applied"
    assert [m.to_status for m in board.history(conn, card.id)] == ["saved", "applied"]
    assert any(m.value == f"**{zh('apps.history')}**" for m in at.markdown)


def test_checklist_saves_ratings_and_recommends_the_weakest_first(at: AppTest, conn: sqlite3.Connection) -> None:
    page(at, "checklist")
    sliders = keyed(at.slider, "cl_")
    for s in sliders:
        s.set_value(4)
    sliders[1].set_value(2)
    _submit(at, "cl_form")
    saved = review.load_self_assessment(conn)
    weakest = sliders[1].key.removeprefix("cl_")
    assert len(saved) == len(sliders) and saved[weakest] == 2
    assert any(s.value == zh("checklist.saved") for s in at.success)
    assert at.get("image"), "the radar chart"
    assert at.expander[0].label.endswith("(2)")  # weakest first


def test_settings_keep_the_key_in_the_session_only(at: AppTest, tmp_path: Path) -> None:
    page(at, "settings")
    at.text_input(key="_w_llm_base_url").set_value(f"http://127.0.0.1:{_closed_port()}/v1")
    at.text_input(key="_w_llm_model").set_value("test-model")
    at.text_input(key="_w_llm_api_key").set_value("sk-secret-123")
    _submit(at, "set_llm")  # saving tests the endpoint: nothing listens there, and the page says so
    assert [e.value for e in at.error] == [zh("settings.status_failed").format(reason=zh("llm.connection error"))]
    assert not any("已连通" in s.value for s in at.success)
    assert any(zh("settings.key_policy") == i.value for i in at.info)
    page(at, "home")
    page(at, "settings")  # widget state is dropped on a page switch; the values are not
    assert at.text_input(key="_w_llm_model").value == "test-model"
    assert at.session_state["llm_api_key"] == "sk-secret-123"
    written = [p for p in tmp_path.rglob("*") if p.is_file() and b"sk-secret-123" in p.read_bytes()]
    assert written == []


def test_labs_page_launches_the_preset_s_options_and_stop_ends_the_job(at: AppTest, tmp_path: Path) -> None:
    """The launch and the Stop button; a preset run to its end (progress, verdict, downloads, estimate) is driven
    in a real browser by tests/test_app_browser.py."""
    page(at, "labs")
    at.selectbox(key="lb_lab__zh").set_value("fault_resume").run()
    assert any(c.value.startswith("真实的多进程") for c in at.caption)  # fault_resume does train for real
    at.radio(key="lb_preset_fault_resume__zh").set_value("quick").run()  # the cheapest preset
    with _torchrun_lock():
        at.button(key="lb_run").click().run()
        assert not at.exception, [e.value for e in at.exception]
        job = at.session_state["lb_job"]
        assert job.argv[1:4] == ["-m", "labs.run", "fault_resume"] and job.argv[job.argv.index("--steps") + 1] == "4"
        assert job.out.parent == tmp_path / "runs" / "fault_resume"
        at.button(key="lb_stop").click().run()
        job.proc.wait(timeout=30)
    assert job.poll() is not None and job.poll() != 0, "Stop ended the lab and its workers"


def test_a_lab_report_names_its_checks_in_the_ui_language(tmp_path: Path) -> None:
    def draw(run_dir: str) -> None:
        from pathlib import Path

        from app import render
        render.lab_report(Path(run_dir), {"passed": False, "checks": {"bit_exact": False, "fault_fired": True}})

    at = AppTest.from_function(draw, args=(str(tmp_path / "fault_resume" / "run1"),), default_timeout=30).run()
    assert not at.exception, [e.value for e in at.exception]
    checks = at.dataframe[0].value
    assert list(checks[zh("labs.check")]) == ["最终状态逐位一致", "故障确实发生了"]
    assert [e.value for e in at.error] == [zh("labs.failed")]


def test_labs_page_refuses_options_the_lab_rejects(at: AppTest, tmp_path: Path) -> None:
    page(at, "labs")
    at.selectbox(key="lb_lab__zh").set_value("fault_resume").run()
    at.number_input(key="lb_fault_resume_kill_fault_step").set_value(500)  # past --steps: the lab's own check says no
    _submit(at, "lb_form_fault_resume")
    assert any("--fault-step 必须在" in e.value for e in at.error)  # the lab's own check, in the UI language
    assert "lb_job" not in at.session_state and not (tmp_path / "runs" / "fault_resume").exists()


def test_every_ui_string_exists_in_both_languages() -> None:
    used = set()
    for path in (ROOT / "app").rglob("*.py"):
        used |= set(re.findall(r"""\bt\(["']([a-z_]+\.[a-z_0-9]+)["']""", path.read_text(encoding="utf-8")))
    assert used - set(STRINGS) == set()
    assert all(zh_ and en for zh_, en in STRINGS.values())


# ---- helpers ----------------------------------------------------------------------------------------------


def _submit(at: AppTest, form: str) -> None:
    """Click the submit button of form `form`."""
    buttons = [b for b in at.get("button") if getattr(b, "form_id", "") == form]
    assert buttons, f"no submit button in form {form!r}"
    buttons[0].click().run()
    assert not at.exception, [e.value for e in at.exception]


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def _torchrun_lock() -> Iterator[None]:
    with open(TORCHRUN_LOCK, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)  # released when the file closes
        yield
