"""Question bank: bilingual search with filters, every match paged; each answer is revealed on demand, then rated
for review. `?q=<question id>` (a link from another question or page) opens that question."""

import hashlib

import streamlit as st

from app import browse, render, state
from app.i18n import t
from app.widgets import select
from question_bank.loader import Bank
from question_bank.schema import Level, QType


def filters(bank: Bank) -> dict:
    """The filter widgets; None means "any". Their labels change with the language: `select` keeps the choice."""
    any_ = t("bank.any")
    topic, qtype, difficulty, level, tag = st.columns(5)
    return {
        "topic": select(topic, t("bank.topic"), [None, *bank.topics], "qb_topic",
                        lambda v: any_ if v is None else render.topic_name(v, bank)),
        "type": select(qtype, t("bank.type"), [None, *(q.value for q in QType)], "qb_type",
                       lambda v: any_ if v is None else t(f"type.{v}")),
        "difficulty": select(difficulty, t("bank.difficulty"), [None, 1, 2, 3], "qb_difficulty",
                             lambda v: any_ if v is None else "★" * v),
        "level": select(level, t("bank.level"), [None, *(lv.value for lv in Level)], "qb_level",
                        lambda v: any_ if v is None else t(f"level.{v}")),
        "tag": select(tag, t("bank.tag"), [None, *state.skills()], "qb_tag",
                      lambda v: any_ if v is None else render.skill_name(v)),
    }


def take_link() -> None:
    """A link's ?q= fills the search box once; the parameter then goes, so later edits are the user's."""
    if (q := st.query_params.get("q")) is not None:
        st.session_state["qb_query"] = q
        del st.query_params["q"]


def _turn(by: int, pages: int) -> None:
    st.session_state["qb_page"] = browse.clamp_page(st.session_state.get("qb_page", 1) + by, pages * browse.PER_PAGE)


def pager(n: int, search: str) -> int:
    """The page shown; a new search or filter starts again at page 1."""
    if st.session_state.get("qb_search") != search:
        st.session_state["qb_search"], st.session_state["qb_page"] = search, 1
    page = browse.clamp_page(st.session_state.get("qb_page", 1), n)
    pages = browse.page_count(n)
    if n:
        first, last = (page - 1) * browse.PER_PAGE + 1, min(page * browse.PER_PAGE, n)
        info, prev, nxt = st.columns([6, 1, 1], vertical_alignment="center")
        info.caption(t("bank.page", page=page, pages=pages, first=first, last=last, n=n))
        prev.button(t("bank.prev"), key="qb_prev", disabled=page <= 1, on_click=_turn, args=(-1, pages))
        nxt.button(t("bank.next"), key="qb_next", disabled=page >= pages, on_click=_turn, args=(1, pages))
    return page


def main() -> None:
    st.title(t("bank.title"))
    bank = state.bank()
    st.caption(t("bank.intro", n=len(bank.questions)))
    take_link()
    query = st.text_input(t("bank.search"), key="qb_query", placeholder=t("bank.placeholder"))
    chosen = filters(bank)
    found = browse.find(state.index(), bank, query, chosen)
    st.caption(t("bank.results", n=len(found.hits)))
    if found.no_terms:
        st.info(t("bank.no_terms"))
    elif not found.hits:
        st.info(t("bank.none"))
    search = hashlib.sha1(repr((query.strip(), sorted(chosen.items()))).encode()).hexdigest()
    for hit in browse.page_of(found.hits, pager(len(found.hits), search)):
        render.question_card(hit.question, "qb", bank)


main()
