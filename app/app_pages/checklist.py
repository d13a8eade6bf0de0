"""Checklist: rate yourself 1-5 on each item (saved), see the radar, and what to study next, weakest first."""

import sqlite3

import streamlit as st

from app import charts, state
from app.i18n import lang, t, text
from coach import interview_store, review
from question_bank.checklist import Item, recommend

QUESTIONS_SHOWN = 5


def short(item: Item) -> str:
    """The item's headline in the UI language: its text up to the colon."""
    return short_in(item, lang())


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
    """The ratings on axes named by the items (in English when a zh UI has no CJK font to draw them with)."""
    zh_names = [short_in(i, "zh") for i in items]
    en_names = [short_in(i, "en") for i in items]
    fig, shown = charts.radar(zh_names, en_names, [ratings.get(i.id, 1) for i in items], lang())
    st.pyplot(fig)
    if shown != lang():
        st.caption(t("checklist.radar_en"))


def short_in(item: Item, language: str) -> str:
    full = getattr(item, language)  # zh or en, whatever the UI language (the radar may need the other one)
    for sep in ("：", ":"):
        full = full.split(sep, 1)[0]
    return full


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
