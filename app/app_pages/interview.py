"""Mock interview: a chat. Each planned bank question is a thread: the candidate answers in the chat input, the
interviewer follows up (missed point, misconception, résumé claim, lab run), and when the thread closes it is
graded as a whole and the reference answer appears; past sessions and their transcripts below."""

import sqlite3

import streamlit as st

from app import i18n, render, state
from app.i18n import lang, t
from app.widgets import select
from coach import board, interview, interview_store, my_answers
from coach.interview import Session, Turn


def sep() -> str:
    return "；" if lang() == "zh" else "; "


def setup(conn: sqlite3.Connection) -> None:
    cards = {c.id: c for status in board.board(conn).values() for c in status}
    with st.form("iv_setup"):
        n, follow, language = st.columns(3)
        n.number_input(t("iv.n"), 1, 15, 5, key="iv_n")
        follow.number_input(t("iv.follow_ups_n"), 0, 3, interview.DEFAULT_FOLLOW_UPS, key="iv_follow")
        language.selectbox(t("iv.lang"), ["zh", "en"], index=["zh", "en"].index(lang()), key="iv_lang",
                           format_func=i18n.LANG_NAMES.get)
        st.text_area(t("iv.jd"), st.session_state["rj_jd"], key="iv_jd", height=120)
        st.checkbox(t("iv.use_resume"), bool(st.session_state["rj_text"].strip()), key="iv_use_resume",
                    help=t("iv.use_resume_help"))
        st.checkbox(t("iv.with_kata"), False, key="iv_kata", help=t("iv.with_kata_help"))
        select(st, t("iv.card"), [None, *cards], "iv_card",
               lambda i: t("iv.no_card") if i is None else f"{cards[i].company} · {cards[i].title}")
        if st.form_submit_button(t("iv.start"), type="primary"):
            start(conn)


def start(conn: sqlite3.Connection) -> None:
    s = st.session_state
    resume = s["rj_text"] if s.iv_use_resume else ""
    st.session_state["iv_session"] = interview.start_session(
        conn, s.iv_jd, resume, n=int(s.iv_n), lang=s.iv_lang, card_id=s.iv_card, runs_dir=state.runs_dir(),
        llm=state.llm(), bank=state.bank(), max_follow_ups=int(s.iv_follow), with_kata=bool(s.iv_kata))
    st.rerun()


def interviewer(text: str, caption: str | None = None) -> None:
    with st.chat_message("assistant", avatar="🎤"):
        if caption:
            st.caption(caption)
        st.markdown(text)


def candidate(text: str | None) -> None:
    with st.chat_message("user"):
        st.markdown(text or "…")


def thread(turn: Turn, session: Session) -> None:
    """The thread's messages so far: the question, the answers, the follow-ups; the grade once closed."""
    interviewer(turn.text or render.text_of_lang(turn.question_id, session.lang, state.bank()),
                t("iv.progress", n=turn.position + 1, total=len(session.plan)))
    q = state.bank().by_id.get(turn.question_id)
    for kata in q.katas if q else []:  # the interviewer asks for code too: write it on the Katas page
        with st.chat_message("assistant", avatar="⌨️"):
            st.markdown(t("iv.kata", kata=kata))
            st.page_link("app_pages/katas.py", label=t("q.open_kata", kata=kata), query_params={"kata": kata})
    if turn.answer is not None:
        candidate(turn.answer)
    for k, f in enumerate(turn.follow_ups, 1):
        interviewer(f.text, t("iv.follow_up", k=k))
        if f.answer is not None:
            candidate(f.answer)
    if turn.closed:
        with st.chat_message("assistant", avatar="📝"):
            grade(turn)
            if turn.answer:
                save_button(turn, session)


def save_button(turn: Turn, session: Session) -> None:
    """The thread's first answer into "my answers", as a revision graded on the question's key points."""
    key = f"iv_save_{session.id}_{turn.position}"
    if saved := st.session_state.get(key):
        st.caption(t("iv.saved_answer", revision=saved[0], score=saved[1]))
    else:
        st.button(t("iv.save_answer"), key=f"{key}_btn", on_click=_save, args=(turn, session, key))


def _save(turn: Turn, session: Session, key: str) -> None:
    try:
        with state.db() as conn:
            rev = my_answers.save_answer(conn, state.bank(), turn.question_id, turn.answer or "", session.lang,
                                         source="interview")
    except my_answers.AnswerError as e:  # the question left the bank since the session was planned
        st.session_state[key] = None
        st.toast(e.text(lang()))
        return
    st.session_state[key] = (rev.revision, rev.score)


def grade(turn: Turn) -> None:
    g = turn.grade
    st.markdown(f"**{t('iv.score', score=g.score)}**")
    if turn.notice:
        st.warning(turn.notice)
    st.markdown("\n".join(f"- {r}" for r in g.reasons))
    scores = [t("iv.fu_score", k=k, score=f.grade.score) if f.grade else t("iv.fu_none", k=k)
              for k, f in enumerate(turn.follow_ups, 1)]
    if scores:
        st.caption(" · ".join(scores))
    if g.missed:
        st.markdown(f"**{t('iv.missed')}**\n\n" + "\n".join(f"- {p.zh if lang() == 'zh' else p.en}" for p in g.missed))
    if g.misconceptions:
        st.error("\n".join([f"**{t('iv.misconceptions')}**",
                            *(f"- {m.zh if lang() == 'zh' else m.en}" for m in g.misconceptions)]))
    if g.feedback:
        st.info(t("iv.feedback", text=g.feedback))
    with st.expander(t("iv.reference")):
        st.markdown(f"**{g.reference.essence}**\n\n" + "\n".join(f"- {p}" for p in g.reference.parts))


def chat(conn: sqlite3.Connection, session: Session) -> None:
    bank = state.bank()
    for turn in session.turns:
        thread(turn, session)
    asked = None if session.finished else interview.next_question(session, bank)
    if asked is None:  # every question answered, or ended early
        done(conn, session)
        return
    if asked.follow_up == 0 and session.current is not None and session.current.answer is None:
        st.caption(t("iv.why", why=sep().join(asked.reasons)))
    thread(session.current, session)
    if answer := st.chat_input(t("iv.answer"), key="iv_answer"):
        interview.submit_answer(conn, session, answer, llm=state.llm(), bank=bank)
        st.rerun()
    skip, finish = st.columns(2)
    if asked.follow_up > 0 and skip.button(t("iv.skip"), key="iv_skip"):
        interview.close_thread(conn, session, llm=state.llm(), bank=bank)
        st.rerun()
    if finish.button(t("iv.finish"), key="iv_finish"):
        interview.finish_session(conn, session, llm=state.llm())
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
    roles = render.session_roles(conn)
    render.sessions_table(rows, roles)
    by_id = {r["id"]: r for r in rows}
    chosen = select(st, t("iv.open"), [None, *by_id], "iv_past",
                    lambda i: "–" if i is None else render.session_label(by_id[i], roles))
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
