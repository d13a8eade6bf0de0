"""Applications: the board, one column per status; move cards, link a résumé version (coverage follows), and see
each card's history and mock interviews."""

import sqlite3

import streamlit as st

from app import render, state
from app.i18n import lang, t
from coach import board, versions


def status_name(status: str) -> str:
    zh, en = board.STATUS_NAMES[status]
    return zh if lang() == "zh" else en


def doc_label(doc: versions.ResumeDoc) -> str:
    return t("resume.master") if doc.kind == versions.MASTER else t("resume.for_job", job=doc.job)


def new_card(conn: sqlite3.Connection) -> None:
    docs = versions.list_docs(conn)
    first = not any(board.board(conn).values())
    with st.expander(t("apps.new"), expanded=first), st.form("ap_new", clear_on_submit=True):
        company, title = st.columns(2)
        company.text_input(t("apps.company"), key="ap_company")
        title.text_input(t("apps.job_title"), key="ap_title")
        st.text_area(t("apps.jd"), key="ap_jd", height=120)
        status, version = st.columns(2)
        status.selectbox(t("apps.status"), board.STATUSES, format_func=status_name, key="ap_status")
        labels = {d.id: doc_label(d) for d in docs}
        version.selectbox(t("apps.resume"), [None, *labels], key="ap_doc",
                          format_func=lambda d: t("apps.no_resume") if d is None else labels[d])
        if st.form_submit_button(t("apps.add"), type="primary"):
            add_card(conn)


def add_card(conn: sqlite3.Connection) -> None:
    s = st.session_state
    if not (s.ap_company.strip() and s.ap_title.strip()):
        st.error(t("apps.need_names"))
        return
    card = board.create_card(conn, s.ap_company.strip(), s.ap_title.strip(), s.ap_jd, s.ap_status)
    if s.ap_doc is not None:
        board.link_resume(conn, card.id, s.ap_doc)
    st.success(t("apps.added", company=card.company))


def _move(card_id: int) -> None:
    with state.db() as conn:
        board.move(conn, card_id, st.session_state[f"ap_move_{card_id}"])


def card_view(card: board.Card) -> None:
    with st.container(border=True):
        st.markdown(f"**{card.company}**  \n{card.title}")
        cov = "–" if card.coverage is None else f"{card.coverage:.0f}%"
        st.caption(t("apps.card_meta", coverage=cov, sessions=len(card.session_ids)))
        st.selectbox(t("apps.move"), board.STATUSES, index=board.STATUSES.index(card.status), format_func=status_name,
                     key=f"ap_move_{card.id}", on_change=_move, args=(card.id,), label_visibility="collapsed")


def columns(conn: sqlite3.Connection) -> list[board.Card]:
    cards = board.board(conn)
    for col, status in zip(st.columns(len(board.STATUSES)), board.STATUSES, strict=True):
        with col:
            st.markdown(f"**{status_name(status)}** ({len(cards[status])})")
            for card in cards[status]:
                card_view(card)
    return [c for status in board.STATUSES for c in cards[status]]


def details(conn: sqlite3.Connection, cards: list[board.Card]) -> None:
    st.subheader(t("apps.details"))
    by_id = {c.id: c for c in cards}
    card_id = st.selectbox(t("apps.pick"), list(by_id), key="ap_pick",
                           format_func=lambda i: f"{by_id[i].company} · {by_id[i].title}")
    if card_id is None:
        return
    card = by_id[card_id]
    labels = {d.id: doc_label(d) for d in versions.list_docs(conn)}
    if labels:
        left, right = st.columns([3, 1], vertical_alignment="bottom")
        doc_id = left.selectbox(t("apps.resume"), list(labels), format_func=labels.get, key=f"ap_link_doc_{card.id}")
        if right.button(t("apps.link"), key=f"ap_link_{card.id}"):
            card = board.link_resume(conn, card.id, doc_id)
            st.success(t("apps.linked", coverage="–" if card.coverage is None else f"{card.coverage:.0f}%"))
    else:
        st.caption(t("apps.no_versions"))
    st.markdown(f"**{t('apps.history')}**")
    st.dataframe([{t("apps.from"): "–" if m.from_status is None else status_name(m.from_status),
                   t("apps.to"): status_name(m.to_status), t("apps.when"): m.moved[:16].replace("T", " ")}
                  for m in board.history(conn, card.id)], hide_index=True)
    st.markdown(f"**{t('apps.interviews')}**")
    sessions = [r for r in render.interview_rows(conn) if r["id"] in card.session_ids]
    if sessions:
        render.sessions_table(sessions)
    else:
        st.caption(t("apps.no_interviews"))


def main() -> None:
    st.title(t("apps.title"))
    with state.db() as conn:
        new_card(conn)
        cards = columns(conn)
        if cards:
            details(conn, cards)


main()
