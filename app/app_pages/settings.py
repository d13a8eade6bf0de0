"""Settings: the LLM endpoint (the key stays in this session's memory only; saving tests it at once), where the
data lives, and the user's data: export all of it, or erase it after typing a confirmation word."""

import hashlib
import os

import streamlit as st

from app import state
from app.i18n import llm_reason, t
from coach import export
from coach.db import DB_NAME
from coach.llm import LLMUnavailable

PING = [{"role": "user", "content": "Reply with the single word: ok"}]
FIELDS = ("llm_base_url", "llm_model", "llm_api_key")


def fingerprint() -> str:
    """What the last test was run on (the key only as a hash: the test result must not hold it)."""
    s = st.session_state
    return hashlib.sha256("\0".join(s.get(k, "") for k in FIELDS).encode()).hexdigest()


def save_and_test() -> None:
    """The form's callback: keep the three values, then ping the server so the status says what is true."""
    for key in FIELDS:
        state.store(key)
    client = state.llm()
    if not client.enabled:
        st.session_state.pop("set_tested", None)
        return
    try:
        reply = client.chat_text(PING)
        st.session_state["set_tested"] = (fingerprint(), True, reply[:80])
    except LLMUnavailable as e:
        st.session_state["set_tested"] = (fingerprint(), False, llm_reason(e.reason))


def status() -> None:
    client = state.llm()
    tested = st.session_state.get("set_tested")
    if not client.enabled:
        st.write(t("settings.status_off"))
    elif tested is None or tested[0] != fingerprint():
        st.warning(t("settings.status_untested", model=client.settings.model))
    elif tested[1]:
        st.success(t("settings.status_ok", model=client.settings.model) + " · " + t("settings.test_ok",
                                                                                     reply=tested[2]))
    else:
        st.error(t("settings.status_failed", reason=tested[2]))


def llm_settings() -> None:
    st.subheader(t("settings.llm"))
    st.caption(t("settings.llm_help"))
    with st.form("set_llm"):
        st.text_input(t("settings.base_url"), key=state.keep("llm_base_url"), placeholder="http://localhost:8000/v1")
        st.text_input(t("settings.model"), key=state.keep("llm_model"), placeholder="qwen2.5-7b-instruct")
        st.text_input(t("settings.api_key"), key=state.keep("llm_api_key"), type="password")
        st.form_submit_button(t("settings.save_test"), type="primary", on_click=save_and_test)
    status()
    st.info(t("settings.key_policy"))
    env_key = t("settings.yes") if os.environ.get("OPENAI_API_KEY") else t("settings.no")
    st.caption(t("settings.env_key", value=env_key))


def data_folder() -> None:
    st.subheader(t("settings.data"))
    st.write(t("settings.data_dir"))
    st.code(str(state.data_dir() / DB_NAME))
    st.caption(t("settings.data_help"))
    st.write(t("settings.runs_dir"))
    st.code(str(state.runs_dir()))


def your_data() -> None:
    st.subheader(t("settings.your_data"))
    st.caption(t("settings.export_help"))
    with state.db() as conn:
        data = export.export_zip(conn, state.bank())
    stamp = state.now().strftime("%Y%m%d-%H%M")
    st.download_button(t("settings.export"), data, f"kilogpu-prep-{stamp}.zip", "application/zip", key="set_export")
    word = t("settings.reset_word")
    with st.form("set_reset", clear_on_submit=True):
        st.caption(t("settings.reset_help", word=word))
        st.text_input(t("settings.reset_confirm"), key="set_reset_word", placeholder=word)
        if st.form_submit_button(t("settings.reset_button")):
            if st.session_state["set_reset_word"].strip() != word:
                st.error(t("settings.reset_wrong", word=word))
            else:
                with state.db() as conn:
                    st.success(t("settings.reset_done", n=export.reset(conn)))


def main() -> None:
    st.title(t("settings.title"))
    llm_settings()
    data_folder()
    your_data()


main()
