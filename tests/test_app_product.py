"""What a new user trips over (issue 19), through AppTest and the small modules behind the pages: choices that
survive a language switch, paging, the language kept in the URL and the user's settings, board edits, named
past interviews, export/reset, the charts, lab presets and estimates. No lab is run here (tests/test_app.py
runs the cheapest preset)."""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import sqlite3
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app import browse, charts, lab_catalog, lab_runs
from app.i18n import STRINGS, pick_lang
from coach import board, interview, user_settings, versions
from coach.db import connect
from labs.core import history
from question_bank.loader import load_bank
from question_bank.search import Index

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app" / "streamlit_app.py"


def zh(key: str) -> str:
    return STRINGS[key][0]


def new_app(query: dict[str, str] | None = None) -> AppTest:
    app = AppTest.from_file(APP, default_timeout=60)
    app.query_params.update(query or {})
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    return app


@pytest.fixture
def at(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setenv("KGP_RUNS_DIR", str(tmp_path / "runs"))
    for var in ("KGP_LLM_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return new_app()


@pytest.fixture
def conn() -> Iterator[sqlite3.Connection]:
    c = connect()
    yield c
    c.close()


def page(at: AppTest, name: str) -> AppTest:
    at.switch_page(f"app_pages/{name}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def submit(at: AppTest, form: str) -> None:
    buttons = [b for b in at.get("button") if getattr(b, "form_id", "") == form]
    assert buttons, f"no submit button in form {form!r}"
    buttons[0].click().run()
    assert not at.exception, [e.value for e in at.exception]


def results(at: AppTest) -> str:
    return next(c.value for c in at.caption if c.value.endswith("条结果") or c.value.endswith("results"))


# ---- 1 and 4: the bank ---------------------------------------------------------------------------------------


def test_bank_filters_survive_a_language_round_trip(at: AppTest) -> None:
    page(at, "bank")
    at.selectbox(key="qb_topic__zh").set_value("checkpoint").run()
    before = results(at)
    assert before != "0 条结果"
    at.radio(key="lang").set_value("en").run()
    assert at.selectbox(key="qb_topic__en").value == "checkpoint"  # the same topic, now named in English
    assert results(at) == before.replace(" 条结果", " results")
    at.radio(key="lang").set_value("zh").run()
    assert at.selectbox(key="qb_topic__zh").value == "checkpoint" and results(at) == before
    assert at.selectbox(key="qb_type__zh").value is None  # untouched filters stay on 全部


def test_bank_pages_every_match_and_a_new_search_starts_at_page_one(at: AppTest) -> None:
    page(at, "bank")
    n = len(load_bank().questions)
    first = [b.key for b in at.button if b.key.startswith("qb_reveal_")]
    assert len(first) == browse.PER_PAGE and n > browse.PER_PAGE  # no cap at 20: there are more pages
    assert at.button(key="qb_prev").disabled
    at.button(key="qb_next").click().run()
    second = [b.key for b in at.button if b.key.startswith("qb_reveal_")]
    assert second and not set(second) & set(first)
    assert any(c.value.startswith(f"第 2 / {browse.page_count(n)} 页") for c in at.caption)
    at.text_input(key="qb_query").set_value("checkpoint").run()
    assert any(c.value.startswith("第 1 / ") for c in at.caption)


def test_a_query_with_no_searchable_word_finds_nothing_even_with_a_filter(at: AppTest) -> None:
    page(at, "bank")
    at.selectbox(key="qb_topic__zh").set_value("checkpoint").run()
    at.text_input(key="qb_query").set_value("！！！").run()
    assert results(at) == "0 条结果" and [i.value for i in at.info] == [zh("bank.no_terms")]
    assert not [b for b in at.button if b.key.startswith("qb_reveal_")]


def test_a_question_link_opens_that_question_and_labs_are_links(at: AppTest) -> None:
    q = next(q for q in load_bank().questions if q.labs)
    page(at, "bank")
    at.query_params["q"] = q.id  # what the 🔗 link of a question carries
    at.run()
    assert [b.key for b in at.button if b.key.startswith("qb_reveal_")] == [f"qb_reveal_{q.id}"]
    links = {p.proto.label: (p.proto.page, p.proto.query_string) for p in at.get("page_link")}
    assert links[q.id] == ("bank", f"q={q.id}")
    for lab in q.labs:
        assert links[zh("q.open_lab").format(lab=lab)] == ("labs", f"lab={lab}")


def test_browse_logic_pages_and_refuses_empty_queries() -> None:
    bank = load_bank()
    index = Index(bank)
    assert browse.find(index, bank, "  ckpt-what-to-save ", {"topic": "memory"}).hits[0].question.id == \
        "ckpt-what-to-save"  # asked for by name: the filters do not hide it
    assert browse.find(index, bank, "的的", {"topic": "checkpoint"}).no_terms
    assert len(browse.find(index, bank, "", {}).hits) == len(bank.questions)
    assert (browse.page_count(0), browse.page_count(20), browse.page_count(21)) == (1, 1, 2)
    assert browse.clamp_page(9, 21) == 2 and browse.clamp_page(0, 21) == 1
    hits = browse.find(index, bank, "", {}).hits
    assert browse.page_of(hits, 2) == hits[20:40] and browse.page_of(hits, 99) == hits[-(len(hits) % 20 or 20):]


# ---- 5: the language, kept --------------------------------------------------------------------------------


def test_language_comes_from_the_url_then_from_the_users_settings(at: AppTest, conn: sqlite3.Connection) -> None:
    assert at.title[0].value == zh("home.title")
    at.radio(key="lang").set_value("en").run()
    assert at.query_params.get("lang") in ("en", ["en"])  # a reload or a shared link keeps it
    assert user_settings.get(conn, "lang") == "en"
    assert new_app().title[0].value == "KiloGPU Prep"  # a new session: the saved choice
    assert new_app({"lang": "zh"}).title[0].value == zh("home.title")  # the URL wins over the saved choice
    assert new_app({"lang": "fr"}).title[0].value == "KiloGPU Prep"  # an unknown one is ignored


def test_pick_lang_prefers_the_url_then_the_saved_choice() -> None:
    assert pick_lang("en", "zh") == "en" and pick_lang(None, "en") == "en"
    assert pick_lang("fr", None) == "zh" and pick_lang("", "de") == "zh"


# ---- 6: board, history, export and reset ------------------------------------------------------------------


def test_a_card_is_edited_dated_noted_then_deleted(at: AppTest, conn: sqlite3.Connection) -> None:
    card = board.create_card(conn, "ACME", "训练工程师")
    page(at, "applications")
    at.text_area(key=f"ap_e_notes_{card.id}").set_value("内推：李四")
    at.date_input(key=f"ap_e_applied_{card.id}").set_value(date(2026, 3, 1))
    at.date_input(key=f"ap_e_next_{card.id}").set_value(date(2026, 3, 9))
    submit(at, f"ap_edit_{card.id}")
    saved = board.get_card(conn, card.id)
    assert (saved.notes, saved.applied_on, saved.next_on) == ("内推：李四", "2026-03-01", "2026-03-09")
    assert any(c.value == zh("apps.dates").format(applied="2026-03-01", next="2026-03-09") for c in at.caption)
    at.text_input(key=f"ap_e_company_{card.id}").set_value("  ")
    submit(at, f"ap_edit_{card.id}")
    assert [e.value for e in at.error] == [zh("apps.need_names")] and board.get_card(conn, card.id).company == "ACME"
    assert at.button(key=f"ap_del_{card.id}").disabled  # not without the confirming tick
    at.checkbox(key=f"ap_del_sure_{card.id}").check().run()
    at.button(key=f"ap_del_{card.id}").click().run()
    assert not any(board.board(conn).values())
    assert any(s.value == zh("apps.deleted").format(company="ACME") for s in at.success)


def test_a_version_erased_meanwhile_is_no_longer_offered(at: AppTest, conn: sqlite3.Connection) -> None:
    """The board reads the versions on every run: a version erased in another window is not offered (and the
    board's own link_resume refuses it with a message: tests/test_coach_board.py)."""
    card = board.create_card(conn, "ACME", "训练工程师", "任职要求：熟悉 NCCL")
    master = versions.save_master(conn, "# 张三\n- 负责 NCCL 调优")
    page(at, "applications")
    assert at.button(key=f"ap_link_{card.id}")
    at.selectbox(key="ap_doc__zh").set_value(master.doc_id)  # chosen, then erased before the form is sent
    conn.execute("DELETE FROM resume_revisions WHERE doc_id = ?", (master.doc_id,))  # another window erased it
    conn.execute("DELETE FROM resume_docs WHERE id = ?", (master.doc_id,))
    conn.commit()
    at.text_input(key="ap_company").set_value("Other")
    at.text_input(key="ap_title").set_value("训练工程师")
    submit(at, "ap_new")
    assert zh("apps.no_versions") in [c.value for c in at.caption] and not at.error
    assert all(c.resume_doc_id is None for cards in board.board(conn).values() for c in cards)


def test_past_interviews_are_named_by_date_role_and_score(at: AppTest, conn: sqlite3.Connection) -> None:
    card = board.create_card(conn, "ACME", "训练工程师")
    linked = interview.start_session(conn, n=1, card_id=card.id)
    alone = interview.start_session(conn, n=1)
    page(at, "interview")
    box = at.selectbox(key="iv_past__zh")
    labels = {opt for opt in box.options}
    assert any("ACME · 训练工程师" in x and zh("iv.no_score") in x for x in labels)
    assert any(zh("iv.general") in x for x in labels)
    assert not any(s.id[:8] in x for s in (linked, alone) for x in labels)  # never the hex id
    assert "id" not in at.dataframe[0].value.columns


def test_reset_needs_the_typed_word_and_then_erases_everything(at: AppTest, conn: sqlite3.Connection) -> None:
    versions.save_master(conn, "# 张三\n- 负责断点续训\n")
    page(at, "settings")
    assert any(b.label == zh("settings.export") for b in at.get("download_button"))
    at.text_input(key="set_reset_word").set_value("delete")
    submit(at, "set_reset")
    assert [e.value for e in at.error] == [zh("settings.reset_wrong").format(word="删除")]
    assert versions.list_docs(conn)
    at.text_input(key="set_reset_word").set_value("删除")
    submit(at, "set_reset")
    assert not versions.list_docs(conn) and any("已清空" in s.value for s in at.success)


# ---- 2 and 7: the charts, the checklist's naming --------------------------------------------------------------


def test_readiness_axis_is_0_to_100_with_room_for_names() -> None:
    spec = charts.readiness_chart(["检查点与断点续训", "显存"], [12.5, 0.0], "主题", "掌握 %").to_dict()
    assert spec["encoding"]["x"]["scale"]["domain"] == [0, 100]
    assert spec["encoding"]["y"]["axis"]["labelLimit"] >= 200
    assert spec["encoding"]["y"]["sort"] == ["检查点与断点续训", "显存"]  # taxonomy order, not alphabetical


def test_radar_axes_carry_item_names(monkeypatch: pytest.MonkeyPatch) -> None:
    fig, shown = charts.radar(["讲清数据并行", "设计检查点"], ["Explain DP", "Design checkpoints"], [3, 4], "en")
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert shown == "en" and ticks == ["Explain DP", "Design checkpoints"]
    monkeypatch.setattr(charts, "cjk_font", lambda: None)  # a machine with no CJK font: English, not boxes
    fig, shown = charts.radar(["讲清数据并行", "设计检查点"], ["Explain DP", "Design checkpoints"], [3, 4], "zh")
    assert shown == "en" and not any(t.get_text().startswith("#") for t in fig.axes[0].get_xticklabels())
    assert charts.radar_labels(["一二三四五六七八九十一二"], wide=True) == ["一二三四五六七八九\n十一二"]


def test_the_app_and_the_site_call_the_checklist_the_same() -> None:
    assert STRINGS["nav.checklist"][0] == STRINGS["checklist.title"][0] == "自测清单"
    assert "自测清单" in (ROOT / "docs" / "hooks" / "bank_pages.py").read_text(encoding="utf-8")


# ---- 3 and 8: labs --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lab", sorted(history.available()))
def test_every_preset_is_accepted_by_its_labs_own_check(lab: str) -> None:
    module = importlib.import_module(f"labs.{lab}")
    fields = {f.name for f in dataclasses.fields(module.Config)}
    for preset in lab_catalog.presets(lab):
        assert set(preset.overrides) <= fields, (lab, preset.id)
        cfg = module.Config(**preset.overrides)
        if hasattr(module, "check_config"):
            assert module.check_config(cfg) == "", (lab, preset.id)
        if "log" in preset.overrides:
            assert (ROOT / preset.overrides["log"]).exists()
    assert lab_catalog.describe(lab, "zh") and lab_catalog.describe(lab, "en")


def test_the_labs_own_check_refuses_a_broken_preset() -> None:
    module = importlib.import_module("labs.fault_resume")
    assert module.check_config(module.Config(**{**lab_catalog.QUICK_FAULT, "fault_step": 4}))  # == --steps


def test_only_torchrun_labs_claim_real_training() -> None:
    assert lab_catalog.LABS["cluster_sim"][0] == lab_catalog.SIMULATION
    assert lab_catalog.LABS["diagnose"][0] == lab_catalog.READER
    assert "PyTorch" not in lab_catalog.KIND_TEXT[lab_catalog.SIMULATION][0]


def _run(root: Path, lab: str, stamp: str, seconds: float | None, config: dict) -> Path:
    path = root / lab / stamp
    path.mkdir(parents=True)
    if seconds is not None:
        (path / history.REPORT).write_text(json.dumps({"passed": True, "config": config}))
        start = lab_runs.started(history.Run(lab, path, None))
        os.utime(path / history.REPORT, (start + seconds, start + seconds))
    return path


def test_estimate_is_the_median_of_runs_with_the_same_options(tmp_path: Path) -> None:
    quick = {"steps": 4, "out": "/a"}
    _run(tmp_path, "fault_resume", "20260101-100000", 30, quick)
    _run(tmp_path, "fault_resume", "20260101-110000", 50, {**quick, "out": "/b"})  # another folder, same options
    _run(tmp_path, "fault_resume", "20260101-120000", 400, {"steps": 40})
    _run(tmp_path, "fault_resume", "20260101-130000", None, quick)  # still running: no report, not counted
    runs = history.list_runs(tmp_path, lab="fault_resume")
    assert lab_runs.estimate(runs, {"steps": 4, "out": "/c"}) == lab_runs.Estimate(40.0, 2, True)
    assert lab_runs.estimate(runs, {"steps": 8}) == lab_runs.Estimate(50.0, 3, False)
    assert lab_runs.estimate([], quick) is None


def test_the_server_listens_on_loopback_only() -> None:
    config = (ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8")
    assert 'address = "127.0.0.1"' in config
    assert "--server.address $(ADDRESS)" in (ROOT / "Makefile").read_text(encoding="utf-8")
