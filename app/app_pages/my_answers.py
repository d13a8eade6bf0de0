"""My answers: every question the user has answered, first, best and latest score; each opens in the bank,
where its card holds the answer and its revisions."""

import streamlit as st

from app import render, state
from app.i18n import t
from coach import my_answers


def main() -> None:
    st.title(t("my.page_title"))
    st.caption(t("my.page_intro"))
    with state.db() as conn:
        rows = my_answers.answered(conn)
    if not rows:
        st.info(t("my.page_empty"))
        return
    bank = state.bank()
    st.dataframe([{t("my.question"): render.text_of(r.question_id, bank), t("my.revisions"): r.revisions,
                   t("my.first"): r.first, t("my.best"): r.best, t("my.latest"): r.latest,
                   t("my.date"): r.updated[:16].replace("T", " ")} for r in rows], hide_index=True, key="my_table")
    for r in rows:
        q = bank.by_id.get(r.question_id)
        if q is None:
            st.warning(t("my.gone", qid=r.question_id))
            continue
        st.page_link("app_pages/bank.py", label=f"{render.text_of(r.question_id, bank)} · {r.best}", icon="📝",
                     query_params={"q": r.question_id})


main()
