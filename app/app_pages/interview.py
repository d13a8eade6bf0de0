"""Mock interview: a chat with planned bank questions, each answer graded against the rubric, follow-ups drawn from
the answer, the résumé and the lab runs; past sessions and their transcripts."""

import sqlite3

import streamlit as st

from app import i18n, render, state
from app.i18n import lang, t
from coach import board, interview, interview_store
from coach.interview import Session, Turn


def setup(conn: sqlite3.Connection) -> None:
    cards = {c.id: c for status in board.board(conn).values() for c in status}
    with st.form("iv_setup"):
        n, language = st.columns(2)
        n.number_input(t("iv.n"), 1, 15, 5, key="iv_n")
        language.selectbox(t("iv.lang"), ["zh", "en"], index=["zh", "en"].index(lang()), key="iv_lang",
                           format_func=i18n.LANG_NAMES.get)
        st.text_area(t("iv.jd"), st.session_state["rj_jd"], key="iv_jd", height=120)
        st.checkbox(t("iv.use_resume"), bool(st.session_state["rj_text"].strip()), key="iv_use_resume",
                    help=t("iv.use_resume_help"))
        st.selectbox(t("iv.card"), [None, *cards], key="iv_card",
                     format_func=lambda i: t("iv.no_card") if i is None else f"{cards[i].company} · {cards[i].title}")
        if st.form_submit_button(t("iv.start"), type="primary"):
            start(conn)


def start(conn: sqlite3.Connection) -> None:
    s = st.session_state
    resume = s["rj_text"] if s.iv_use_resume else ""
    st.session_state["iv_session"] = interview.start_session(
        conn, s.iv_jd, resume, n=int(s.iv_n), lang=s.iv_lang, card_id=s.iv_card, runs_dir=state.runs_dir(),
        llm=state.llm(), bank=state.bank())
    st.rerun()


def show_turn(turn: Turn, text: str) -> None:
    with st.chat_message("assistant", avatar="🎤"):
        st.markdown(text)
    with st.chat_message("user"):
        st.markdown(turn.answer or "…")
    with st.chat_message("assistant", avatar="📝"):
        grade(turn)


def grade(turn: Turn) -> None:
    g = turn.grade
    st.markdown(f"**{t('iv.score', score=g.score)}**")
    if turn.notice:
        st.warning(turn.notice)
    st.markdown("\n".join(f"- {r}" for r in g.reasons))
    st.markdown("\n".join(f"- {'✅' if p.covered else '⬜'} {p.zh if lang() == 'zh' else p.en}" for p in g.points))
    if g.feedback:
        st.info(t("iv.feedback", text=g.feedback))
    if turn.follow_ups:
        st.markdown(f"**{t('iv.follow_ups')}**\n\n" + "\n".join(f"- {f.text}" for f in turn.follow_ups))
    with st.expander(t("iv.reference")):
        st.markdown(f"**{g.reference.essence}**\n\n" + "\n".join(f"- {p}" for p in g.reference.parts))


def chat(conn: sqlite3.Connection, session: Session) -> None:
    bank = state.bank()
    for turn in session.turns:
        show_turn(turn, render.text_of_lang(turn.question_id, session.lang, bank))
    asked = None if session.finished else interview.next_question(session, bank)
    if asked is None:  # every question answered, or ended early
        done(conn, session)
        return
    with st.chat_message("assistant", avatar="🎤"):
        st.caption(t("iv.progress", n=asked.position + 1, total=asked.total))
        st.markdown(asked.text)
    if answer := st.chat_input(t("iv.answer"), key="iv_answer"):
        interview.submit_answer(conn, session, answer, llm=state.llm(), bank=bank)
        st.rerun()
    if st.button(t("iv.finish"), key="iv_finish"):
        interview.finish_session(conn, session)
        st.rerun()


def done(conn: sqlite3.Connection, session: Session) -> None:
    interview.finish_session(conn, session)
    score = "–" if session.score is None else f"{session.score:.0f}"
    st.success(t("iv.done", score=score))
    st.download_button(t("iv.transcript"), interview.export_markdown(session, state.bank()),
                       f"interview-{session.id[:8]}.md", "text/markdown", key="iv_download")
    if st.button(t("iv.new"), key="iv_new", type="primary"):
        del st.session_state["iv_session"]
        st.rerun()


def past(conn: sqlite3.Connection) -> None:
    rows = interview_store.list_sessions(conn)
    if not rows:
        return
    st.subheader(t("iv.past"))
    render.sessions_table(rows)
    ids = [r["id"] for r in rows]
    chosen = st.selectbox(t("iv.open"), [None, *ids], key="iv_past", format_func=lambda i: "–" if i is None else i[:8])
    if chosen:
        with st.container(border=True):
            st.markdown(interview.export_markdown(interview.load_session(conn, chosen), state.bank()))


def main() -> None:
    st.title(t("iv.title"))
    st.caption(t("iv.intro"))
    with state.db() as conn:
        session = st.session_state.get("iv_session")
        if session is None:
            setup(conn)
        else:
            chat(conn, session)
        past(conn)


main()
