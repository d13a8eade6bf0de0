"""Question bank: bilingual search with filters; each answer is revealed on demand, then rated for review."""

import streamlit as st

from app import render, state
from app.i18n import t
from question_bank.loader import Bank
from question_bank.schema import Level, QType

RESULTS = 20


def filters(bank: Bank) -> dict:
    """The filter widgets; None means "any"."""
    any_ = t("bank.any")
    topic, qtype, difficulty, level, tag = st.columns(5)
    return {
        "topic": topic.selectbox(t("bank.topic"), [None, *bank.topics], key="qb_topic",
                                 format_func=lambda v: any_ if v is None else render.topic_name(v, bank)),
        "type": qtype.selectbox(t("bank.type"), [None, *(q.value for q in QType)], key="qb_type",
                                format_func=lambda v: any_ if v is None else t(f"type.{v}")),
        "difficulty": difficulty.selectbox(t("bank.difficulty"), [None, 1, 2, 3], key="qb_difficulty",
                                           format_func=lambda v: any_ if v is None else "★" * v),
        "level": level.selectbox(t("bank.level"), [None, *(lv.value for lv in Level)], key="qb_level",
                                 format_func=lambda v: any_ if v is None else t(f"level.{v}")),
        "tag": tag.selectbox(t("bank.tag"), [None, *state.skills()], key="qb_tag",
                             format_func=lambda v: any_ if v is None else render.skill_name(v)),
    }


def main() -> None:
    st.title(t("bank.title"))
    bank = state.bank()
    st.caption(t("bank.intro", n=len(bank.questions)))
    query = st.text_input(t("bank.search"), key="qb_query", placeholder=t("bank.placeholder"))
    hits = state.index().search(query, RESULTS, **filters(bank))
    st.caption(t("bank.results", n=len(hits)))
    if not hits:
        st.info(t("bank.none"))
    for hit in hits:
        render.question_card(hit.question, "qb", bank)


main()
