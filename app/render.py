"""Rendering pieces shared by pages: a bank question (answer revealed on demand, self-rating), a lab report.

Functions take the bank as an argument: `state.bank()` is st.cache_data, so each call unpickles a copy (~15 ms);
a page fetches it once per run."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import streamlit as st

from app import own_answers, state
from app.i18n import lang, t, text
from app.lab_catalog import check_name
from coach import board, interview_store, review
from labs.core import history
from question_bank.loader import Bank
from question_bank.schema import Question

RATINGS = (1, 2, 3, 4)  # FSRS: Again, Hard, Good, Easy


def skill_name(skill_id: str) -> str:
    zh, en = state.skills().get(skill_id, (skill_id, skill_id))
    return zh if lang() == "zh" else en


def topic_name(topic: str, bank: Bank) -> str:
    t_file = bank.topics.get(topic)
    return text(t_file.title) if t_file else topic


def text_of(question_id: str, bank: Bank) -> str:
    q = bank.by_id.get(question_id)
    return text(q.question) if q else question_id


def text_of_lang(question_id: str, language: str, bank: Bank) -> str:
    """A question's text in a given language (a mock interview keeps the language it started in)."""
    q = bank.by_id.get(question_id)
    return getattr(q.question, language) if q else question_id


def question_meta(q: Question, bank: Bank) -> str:
    topic = topic_name(bank.topic_of.get(q.id, ""), bank)
    tags = ", ".join(skill_name(s) for s in q.tags)
    return (f"{topic} · {t('type.' + q.type.value)} · {t('bank.difficulty')} {'★' * q.difficulty} · "
            f"{t('level.' + q.level.value)} · {tags} · `{q.id}`")


def answer(q: Question, bank: Bank) -> None:
    """The model answer, rubric, mistakes and follow-ups, in the session's language."""
    a = getattr(q.answer, lang())
    st.markdown(f"**{a.essence}**")
    st.markdown("\n".join(f"- {p}" for p in a.parts))
    st.markdown(f"**{t('q.key_points')}**\n\n" + "\n".join(f"- {text(k)}" for k in q.key_points))
    if q.mistakes:
        st.markdown(f"**{t('q.mistakes')}**\n\n" + "\n".join(f"- {text(m)}" for m in q.mistakes))
    follow = [f if isinstance(f, str) else text(f) for f in q.follow_ups]
    if follow:
        st.markdown(f"**{t('q.follow_ups')}**\n\n" + "\n".join(f"- {_follow_up(f, bank)}" for f in follow))
    if q.labs:
        st.caption(t("q.labs", labs=", ".join(q.labs)))
    if q.references:
        st.caption(" · ".join(f"[{r.title}]({r.url})" for r in q.references))


def _follow_up(item: str, bank: Bank) -> str:
    """A follow-up is written out, or the id of another bank question."""
    other = bank.by_id.get(item)
    return text(other.question) if other else item


def question_card(q: Question, prefix: str, bank: Bank) -> None:
    """A question with a button that reveals the answer; once revealed, the four self-rating buttons."""
    shown = f"{prefix}_show_{q.id}"
    with st.container(border=True):
        st.markdown(f"#### {text(q.question)}")
        st.caption(question_meta(q, bank))
        links(q)
        label = t("q.hide") if st.session_state.get(shown) else t("q.show")
        st.button(label, key=f"{prefix}_reveal_{q.id}", on_click=_toggle, args=(shown,))
        if st.session_state.get(shown):
            answer(q, bank)
            rating_buttons(q.id, prefix)
        own_answers.panel(q, prefix)
        rated = st.session_state.get(f"{prefix}_rated")
        if rated and rated[0] == q.id:
            st.success(rated[1])


def links(q: Question) -> None:
    """The question's own link (shareable: the bank opens it by id) and one link per lab that practises it."""
    with st.container(horizontal=True):
        st.page_link("app_pages/bank.py", label=q.id, icon="🔗", query_params={"q": q.id}, help=t("bank.open"))
        for lab in q.labs:
            st.page_link("app_pages/labs.py", label=t("q.open_lab", lab=lab), icon="🧪", query_params={"lab": lab})
        for kata in q.katas:
            st.page_link("app_pages/katas.py", label=t("q.open_kata", kata=kata), icon="⌨️",
                         query_params={"kata": kata})


def _toggle(key: str) -> None:
    st.session_state[key] = not st.session_state.get(key, False)


def rating_buttons(question_id: str, prefix: str) -> None:
    st.caption(t("q.rate_prompt"))
    for col, rating in zip(st.columns(len(RATINGS)), RATINGS, strict=True):
        col.button(t(f"rating.{rating}"), key=f"{prefix}_rate_{rating}_{question_id}", on_click=_rate,
                   args=(question_id, rating, prefix), width="stretch")


def _rate(question_id: str, rating: int, prefix: str) -> None:
    # A callback runs before the rerun, so the page already draws the updated queue.
    with state.db() as conn:
        due = review.rate(conn, question_id, rating, state.now())
    when = due.astimezone().strftime("%Y-%m-%d %H:%M")
    st.session_state[f"{prefix}_rated"] = (question_id, t("q.rated", rating=t(f"rating.{rating}"), due=when))
    st.session_state.pop(f"{prefix}_show_{question_id}", None)


# ---- mock interviews --------------------------------------------------------------------------------------


def interview_rows(conn: sqlite3.Connection, limit: int | None = None) -> list[dict[str, Any]]:
    return interview_store.list_sessions(conn)[:limit]


def session_roles(conn: sqlite3.Connection) -> dict[str, str]:
    """Session id -> "company · title" of the application it was practised for."""
    return {sid: f"{c.company} · {c.title}" for sid, c in board.session_cards(conn).items()}


def session_label(row: dict[str, Any], roles: dict[str, str]) -> str:
    """How a past interview is named to its user: when, for which role, how it went (never its hex id)."""
    score = t("iv.no_score") if row["mean_score"] is None else t("iv.points", score=f"{row['mean_score']:.0f}")
    return t("iv.session", when=row["started"][:16].replace("T", " "), role=roles.get(row["id"], t("iv.general")),
             score=score)


def sessions_table(rows: list[dict[str, Any]], roles: dict[str, str] | None = None) -> None:
    roles = roles or {}
    st.dataframe([{
        t("iv.started"): r["started"][:16].replace("T", " "),
        t("iv.role"): roles.get(r["id"], t("iv.general")),
        t("iv.answered"): f"{r['answered']} / {r['planned']}",
        t("iv.mean"): "–" if r["mean_score"] is None else f"{r['mean_score']:.0f}",
        t("iv.finished"): "✅" if r["finished"] else "…",
    } for r in rows], hide_index=True)


# ---- lab reports -------------------------------------------------------------------------------------------


def lab_report(run_dir: Path, report: dict[str, Any] | None, key: str = "lab") -> None:
    """Verdict, checks, key figures, plots and downloads of one run (`key` tells two drawn reports apart)."""
    if report is None:
        st.warning(t("labs.no_report"))
        return
    (st.success if report.get("passed") else st.error)(t("labs.passed") if report.get("passed") else t("labs.failed"))
    checks = report.get("checks") or {}
    if checks:
        st.markdown(f"**{t('labs.checks')}**")
        st.dataframe([{t("labs.check"): check_name(k, lang()), t("labs.key"): k, t("labs.ok"): "✅" if v else "❌"}
                      for k, v in checks.items()], hide_index=True)
    figures = history.figures(report)
    if figures:
        st.markdown(f"**{t('labs.figures')}**")
        st.dataframe([{t("labs.figure"): k, t("labs.value"): _fmt(v)} for k, v in figures.items()], hide_index=True)
    name = f"{run_dir.parent.name}-{run_dir.name}"
    with st.container(horizontal=True):
        st.download_button(t("labs.download_report"), json.dumps(report, indent=2, ensure_ascii=False),
                           f"{name}-report.json", "application/json", key=f"{key}_dl_report")
        for n, png in enumerate(history.plots(run_dir)):
            st.download_button(t("labs.download_plot", name=png.name), png.read_bytes(), f"{name}-{png.name}",
                               "image/png", key=f"{key}_dl_png_{n}")
    for png in history.plots(run_dir):
        st.image(str(png), caption=png.name)
    if cmd := report.get("torchrun_command"):
        st.code(cmd, language="bash")
    with st.expander(t("labs.raw_report")):
        st.code(json.dumps(report, indent=2, ensure_ascii=False)[:20000], language="json")


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "✅" if value else "❌"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)
