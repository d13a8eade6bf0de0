"""The user's own answer to one bank question, inside its card: write, save (graded), see every revision's score
and open any revision with the key points it missed. Storage and grading: coach.my_answers."""

from __future__ import annotations

import streamlit as st

from app import state
from app.i18n import lang, t
from app.widgets import select
from coach import my_answers
from question_bank.schema import Question


def panel(q: Question, prefix: str) -> None:
    with state.db() as conn:
        history = my_answers.answer_history(conn, q.id)
    title = t("my.title_n", n=len(history), best=max(r.score for r in history)) if history else t("my.title")
    box = f"{prefix}_my_{q.id}"
    with st.expander(title, expanded=bool(st.session_state.get(f"{box}_msg"))):
        if box not in st.session_state and history:  # start from the latest revision: a save revises it
            st.session_state[box] = history[-1].answer
        st.text_area(t("my.box"), key=box, height=140)
        st.button(t("my.save"), key=f"{box}_save", on_click=_save, args=(q.id, box))
        if msg := st.session_state.pop(f"{box}_msg", None):
            (st.success if msg[0] == "ok" else st.error)(msg[1])
        if history:
            revisions(history, box)


def _save(question_id: str, box: str) -> None:
    try:
        with state.db() as conn:
            rev = my_answers.save_answer(conn, state.bank(), question_id, st.session_state.get(box, ""), lang())
    except my_answers.AnswerError as e:
        st.session_state[f"{box}_msg"] = ("error", e.text(lang()))
        return
    st.session_state[f"{box}_msg"] = ("ok", t("my.saved", revision=rev.revision, score=rev.score))


def revisions(history: list[my_answers.AnswerRevision], key: str) -> None:
    """Scores over revisions (a line once there are two), the table, and one revision opened in full."""
    st.markdown(f"**{t('my.history')}**")
    if len(history) > 1:
        st.line_chart({t("my.score"): [r.score for r in history]}, x_label=t("my.revision"), height=160)
    st.dataframe([{t("my.revision"): r.revision, t("my.date"): r.created[:16].replace("T", " "),
                   t("my.source"): t(f"my.source.{r.source}"), t("my.score"): r.score} for r in history],
                 hide_index=True, key=f"{key}_table")
    by_rev = {r.revision: r for r in history}
    chosen = select(st, t("my.open"), [None, *reversed(by_rev)], f"{key}_open",
                    lambda v: "–" if v is None else f"{t('my.revision')} {v} · {by_rev[v].score}")
    if chosen:
        r = by_rev[chosen]
        st.markdown(r.answer)
        missed = [p.zh if lang() == "zh" else p.en for p in r.grade.missed]
        st.caption(t("my.missed") + ": " + "; ".join(missed) if missed else t("my.none_missed"))
