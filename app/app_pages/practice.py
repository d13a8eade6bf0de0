"""Practice: the questions due for review now, or new ones when none is due; reveal, then rate."""

import streamlit as st

from app import render, state
from app.i18n import t
from coach import review
from question_bank.loader import Bank

NEW_PER_SESSION = 5


def queue(bank: Bank) -> tuple[list[str], bool]:
    """The ids to practise and whether they are due reviews (else new questions)."""
    with state.db() as conn:
        due = [q for q in review.due(conn, state.now()) if q in bank.by_id]  # skip ids no longer in the bank
        if due:
            return due, True
        return review.new_questions(conn, bank, NEW_PER_SESSION), False


def main() -> None:
    st.title(t("practice.title"))
    if rated := st.session_state.pop("pr_rated", None):  # the rated question has left the queue: say so here
        st.success(rated[1])
    bank = state.bank()
    ids, are_due = queue(bank)
    if not ids:
        st.success(t("practice.all_done"))
        return
    st.info(t("practice.due", n=len(ids)) if are_due else t("practice.new", n=len(ids)))
    render.question_card(bank.by_id[ids[0]], "pr", bank)
    with st.expander(t("practice.queue")):
        st.markdown("\n".join(f"1. {render.text_of(i, bank)}" for i in ids))


main()
