"""Applications: the board, one column per status; move cards, edit them (names, JD, notes, dates) or delete
them, link a résumé version (coverage follows), and see each card's history and mock interviews."""

import sqlite3
from datetime import date

import streamlit as st

from app import render, state
from app.i18n import lang, t
from app.widgets import select, widget_key
from coach import board, version_stats, versions


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
        select(status, t("apps.status"), board.STATUSES, "ap_status", status_name)
        labels = {d.id: doc_label(d) for d in docs}
        select(version, t("apps.resume"), [None, *labels], "ap_doc",
               lambda d: t("apps.no_resume") if d is None else labels[d])
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
        board.move(conn, card_id, st.session_state[widget_key(f"ap_move_{card_id}")])


def dates_line(card: board.Card) -> str:
    """"applied 2026-03-01 · next 2026-03-09", or '' when neither date is set."""
    if not (card.applied_on or card.next_on):
        return ""
    return t("apps.dates", applied=card.applied_on or "–", next=card.next_on or "–")


def card_view(card: board.Card) -> None:
    with st.container(border=True):
        st.markdown(f"**{card.company}**  \n{card.title}")
        cov = "–" if card.coverage is None else f"{card.coverage:.0f}%"
        st.caption(t("apps.card_meta", coverage=cov, sessions=len(card.session_ids)))
        if line := dates_line(card):
            st.caption(line)
        st.session_state[f"ap_move_{card.id}"] = card.status  # the board's truth seeds the widget
        select(st, t("apps.move"), board.STATUSES, f"ap_move_{card.id}", status_name, on_change=_move,
               args=(card.id,), label_visibility="collapsed")


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
    edit(conn, card)
    labels = {d.id: doc_label(d) for d in versions.list_docs(conn)}
    if labels:
        left, right = st.columns([3, 1], vertical_alignment="bottom")
        doc_id = select(left, t("apps.resume"), list(labels), f"ap_link_doc_{card.id}", labels.get)
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
        render.sessions_table(sessions, render.session_roles(conn))
    else:
        st.caption(t("apps.no_interviews"))


def _day(value: str | None) -> date | None:
    return date.fromisoformat(value) if value else None


def edit(conn: sqlite3.Connection, card: board.Card) -> None:
    """Edit the card's fields, or delete it (after a confirming tick)."""
    with st.expander(t("apps.edit")):
        with st.form(f"ap_edit_{card.id}"):
            company, title = st.columns(2)
            company.text_input(t("apps.company"), card.company, key=f"ap_e_company_{card.id}")
            title.text_input(t("apps.job_title"), card.title, key=f"ap_e_title_{card.id}")
            applied, nxt = st.columns(2)
            applied.date_input(t("apps.applied_on"), _day(card.applied_on), key=f"ap_e_applied_{card.id}")
            nxt.date_input(t("apps.next_on"), _day(card.next_on), key=f"ap_e_next_{card.id}")
            st.text_area(t("apps.notes"), card.notes, key=f"ap_e_notes_{card.id}", height=100)
            st.text_area(t("apps.jd"), card.jd_text, key=f"ap_e_jd_{card.id}", height=120)
            if st.form_submit_button(t("apps.save"), type="primary"):
                save_edit(conn, card)
        sure = st.checkbox(t("apps.delete_confirm"), key=f"ap_del_sure_{card.id}")
        if st.button(t("apps.delete"), key=f"ap_del_{card.id}", disabled=not sure):
            board.delete_card(conn, card.id)
            st.session_state["ap_flash"] = t("apps.deleted", company=card.company)
            st.rerun()


def save_edit(conn: sqlite3.Connection, card: board.Card) -> None:
    s = st.session_state
    fields = {"company": s[f"ap_e_company_{card.id}"].strip(), "title": s[f"ap_e_title_{card.id}"].strip(),
              "applied_on": s[f"ap_e_applied_{card.id}"], "next_on": s[f"ap_e_next_{card.id}"],
              "notes": s[f"ap_e_notes_{card.id}"], "jd_text": s[f"ap_e_jd_{card.id}"]}
    if not (fields["company"] and fields["title"]):
        st.error(t("apps.need_names"))
        return
    try:  # date_input gives dates, so what is left to refuse is a card deleted meanwhile
        board.update_card(conn, card.id, **fields)
        if fields["jd_text"] != card.jd_text:
            board.refresh_coverage(conn, card.id)  # the coverage belongs to the JD it was computed on
    except board.BoardError as e:
        st.error(t("apps.bad_edit", problem=str(e)))
        return
    st.session_state["ap_flash"] = t("apps.saved", company=fields["company"])
    st.rerun()


# ---- which résumé version works (coach.version_stats) -------------------------------------------------------
def version_analytics(conn: sqlite3.Connection) -> None:
    """Per résumé version sent: applications, invitations (with counts), days to answer, coverage vs outcome."""
    st.subheader(t("va.title"))
    rows = version_stats.version_stats(conn)
    if not rows:
        st.info(t("va.empty"))
        return
    table = version_stats.render(rows, lang())
    st.markdown(table)
    st.caption(t("va.caption"))


def main() -> None:
    st.title(t("apps.title"))
    flash = st.empty()  # always drawn: a message that comes and goes must not move the elements after it (an
    if msg := st.session_state.pop("ap_flash", None):  # expander that moves is redrawn closed, mid-edit)
        flash.success(msg)  # said after the rerun that redrew the board
    with state.db() as conn:
        new_card(conn)
        cards = columns(conn)
        if cards:
            details(conn, cards)
        version_analytics(conn)


main()
