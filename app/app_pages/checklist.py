"""Checklist: rate yourself 1-5 on each item (saved), see the radar, and what to study next, weakest first."""

import math
import sqlite3

import streamlit as st
from matplotlib.figure import Figure

from app import state
from app.i18n import t, text
from coach import interview_store, review
from question_bank.checklist import Item, recommend

QUESTIONS_SHOWN = 5


def short(item: Item) -> str:
    """The item's headline: its text up to the colon."""
    full = text(item)
    for sep in ("：", ":"):
        full = full.split(sep, 1)[0]
    return full


def ratings_form(items: list[Item], saved: dict[str, int]) -> None:
    with st.form("cl_form"):
        st.caption(t("checklist.scale"))
        for n, item in enumerate(items, start=1):
            st.slider(f"{n}. {short(item)}", 1, 5, saved.get(item.id, 1), key=f"cl_{item.id}", help=text(item))
        if st.form_submit_button(t("checklist.save"), type="primary"):
            with state.db() as conn:
                for item in items:
                    review.save_self_assessment(conn, item.id, int(st.session_state[f"cl_{item.id}"]))
            st.session_state["cl_saved"] = True
            st.rerun()


def radar(items: list[Item], ratings: dict[str, int]) -> None:
    # Axes are numbered (the form's numbers): matplotlib has no CJK font here, and the full texts do not fit.
    values = [ratings.get(i.id, 1) for i in items]
    angles = [2 * math.pi * k / len(items) for k in range(len(items))]
    fig = Figure(figsize=(4.5, 4.5))  # not pyplot: its global state is not safe across Streamlit's threads
    ax = fig.add_subplot(projection="polar")
    ax.plot([*angles, angles[0]], [*values, values[0]], color="tab:blue", lw=2)
    ax.fill([*angles, angles[0]], [*values, values[0]], color="tab:blue", alpha=0.25)
    ax.set_xticks(angles, [f"#{k}" for k in range(1, len(items) + 1)])
    ax.set_ylim(0, 5)
    ax.set_yticks([1, 2, 3, 4, 5], ["1", "2", "3", "4", "5"], color="0.5", fontsize=7)
    st.pyplot(fig)


def suggestions(conn: sqlite3.Connection, items: list[Item]) -> None:
    """Items the mock interviews suggest rating lower; only shown, the user decides."""
    suggested = interview_store.suggested_ratings(conn)
    if suggested:
        names = ", ".join(f"{n}. {short(i)}" for n, i in enumerate(items, start=1) if i.id in suggested)
        st.warning(t("checklist.suggested", items=names))


def recommendations(ratings: dict[str, int]) -> None:
    st.subheader(t("checklist.next"))
    for n, rec in enumerate(recommend(ratings, state.bank(), state.checklist())):
        rating = "–" if rec.rating is None else rec.rating
        with st.expander(f"{short(rec.item)} · {t('checklist.' + rec.level)} ({rating})", expanded=n < 3):
            st.write(text(rec.item))
            for q in rec.questions[:QUESTIONS_SHOWN]:
                st.markdown(f"- {text(q.question)} `{q.id}`")
            if rec.labs:
                st.caption(t("q.labs", labs=", ".join(rec.labs)))
            st.caption(t("checklist.in_bank", n=len(rec.questions)))


def main() -> None:
    st.title(t("checklist.title"))
    if st.session_state.pop("cl_saved", False):
        st.success(t("checklist.saved"))
    items = state.checklist()
    with state.db() as conn:
        saved = review.load_self_assessment(conn)
        left, right = st.columns([3, 2])
        with left:
            ratings_form(items, saved)
        with right:
            radar(items, saved)
            suggestions(conn, items)
    recommendations(saved)


main()
