"""Settings: the LLM endpoint (the key stays in this session's memory only) and where the data lives."""

import os

import streamlit as st

from app import state
from app.i18n import t
from coach.db import DB_NAME
from coach.llm import LLMUnavailable

PING = [{"role": "user", "content": "Reply with the single word: ok"}]


def llm_settings() -> None:
    st.subheader(t("settings.llm"))
    st.caption(t("settings.llm_help"))
    st.text_input(t("settings.base_url"), key=state.keep("llm_base_url"), on_change=state.store,
                  args=("llm_base_url",), placeholder="http://localhost:8000/v1")
    st.text_input(t("settings.model"), key=state.keep("llm_model"), on_change=state.store, args=("llm_model",),
                  placeholder="qwen2.5-7b-instruct")
    st.text_input(t("settings.api_key"), key=state.keep("llm_api_key"), on_change=state.store,
                  args=("llm_api_key",), type="password")
    st.info(t("settings.key_policy"))
    env_key = t("settings.yes") if os.environ.get("OPENAI_API_KEY") else t("settings.no")
    st.caption(t("settings.env_key", value=env_key))
    client = state.llm()
    st.write(t("settings.status_on", model=client.settings.model) if client.enabled else t("settings.status_off"))
    if st.button(t("settings.test"), disabled=not client.enabled, key="set_test"):
        try:
            reply = client.chat_text(PING)
            st.success(t("settings.test_ok", reply=reply[:80]))
        except LLMUnavailable as e:
            st.error(t("settings.test_fail", reason=e.reason))


def data_folder() -> None:
    st.subheader(t("settings.data"))
    st.write(t("settings.data_dir"))
    st.code(str(state.data_dir() / DB_NAME))
    st.caption(t("settings.data_help"))
    st.write(t("settings.runs_dir"))
    st.code(str(state.runs_dir()))


def main() -> None:
    st.title(t("settings.title"))
    llm_settings()
    data_folder()


main()
