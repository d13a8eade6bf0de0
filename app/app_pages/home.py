"""Home: readiness by topic, what is due today, recent lab runs and mock interviews."""

import sqlite3

import streamlit as st

from app import charts, render, state
from app.i18n import lang, t, text
from coach import readiness, review
from labs.core import history
from question_bank.loader import Bank


def metrics(conn: sqlite3.Connection, rows: list[readiness.TopicReadiness]) -> None:
    now = state.now()
    due_now = review.due(conn, now)
    due_today = review.due(conn, readiness.end_of_day(now))
    a, b, c, d = st.columns(4)
    a.metric(t("home.due_now"), len(due_now))
    b.metric(t("home.due_today"), len(due_today))
    c.metric(t("home.reviewed"), f"{sum(r.reviewed for r in rows)} / {sum(r.total for r in rows)}")
    d.metric(t("home.ready"), f"{sum(r.good for r in rows)}")
    if due_now:
        st.page_link("app_pages/practice.py", label=t("home.go_practice", n=len(due_now)), icon="🔁")


def readiness_chart(rows: list[readiness.TopicReadiness]) -> None:
    st.subheader(t("home.readiness"))
    st.caption(t("home.readiness_help"))
    names = [r.zh if lang() == "zh" else r.en for r in rows]
    chart = charts.readiness_chart(names, [r.percent for r in rows], t("home.topic"), t("home.percent"))
    st.altair_chart(chart.properties(height=max(320, 26 * len(rows))), width="stretch")


def recent_runs() -> None:
    st.subheader(t("home.recent_runs"))
    runs = history.list_runs(state.runs_dir(), limit=5)
    if not runs:
        st.info(t("home.no_runs"))
        return
    verdict = {True: "✅", False: "❌", None: "…"}
    st.dataframe([{t("labs.lab"): r.lab, t("labs.run"): r.stamp, t("labs.ok"): verdict[r.passed]} for r in runs],
                 hide_index=True)


def recent_reviews(conn: sqlite3.Connection, bank: Bank) -> None:
    st.subheader(t("home.recent_reviews"))
    rows = readiness.recent_reviews(conn)
    if not rows:
        st.info(t("home.no_reviews"))
        return
    st.dataframe([{t("home.question"): text(bank.by_id[qid].question) if qid in bank.by_id else qid,
                   t("home.rating"): t(f"rating.{rating}"), t("home.when"): when[:16].replace("T", " ")}
                  for qid, rating, when in rows], hide_index=True)


def recent_interviews(conn: sqlite3.Connection) -> None:
    st.subheader(t("home.recent_interviews"))
    rows = render.interview_rows(conn, limit=5)
    if not rows:
        st.info(t("home.no_interviews"))
        return
    render.sessions_table(rows, render.session_roles(conn))


def main() -> None:
    st.title(t("home.title"))
    st.write(t("home.intro"))
    bank = state.bank()
    with state.db() as conn:
        rows = readiness.by_topic(conn, bank)
        metrics(conn, rows)
        left, right = st.columns([3, 2])
        with left:
            readiness_chart(rows)
        with right:
            recent_runs()
            recent_interviews(conn)
            recent_reviews(conn, bank)


main()
