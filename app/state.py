"""What the pages share: cached loaders of the read-only knowledge, the user's database, the LLM client,
the folders, and a helper that keeps a setting's value when its widget's page is left.

Caching: the bank and the taxonomy are data (st.cache_data: each caller gets its own copy); the search index
and the LLM client are resources (st.cache_resource: one shared object, never to be mutated by a page).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

import streamlit as st

from coach import jd
from coach.db import connect, default_data_dir
from coach.llm import LLMClient, LLMSettings
from question_bank.checklist import Item, load_checklist
from question_bank.loader import Bank, load_bank
from question_bank.search import Index
from question_bank.taxonomy import load_taxonomy

ROOT = Path(__file__).resolve().parents[1]
RUNS_ENV = "KGP_RUNS_DIR"


@st.cache_data(show_spinner=False)
def bank() -> Bank:
    return load_bank()


@st.cache_resource(show_spinner=False)
def index() -> Index:
    # Building it tokenises every question with jieba (~2 s): once per server process.
    return Index(bank())


@st.cache_data(show_spinner=False)
def skills() -> dict[str, tuple[str, str]]:
    """Taxonomy skill id -> (zh, en) name, in taxonomy order."""
    return {k: (s.zh, s.en) for k, s in load_taxonomy().skills.items()}


@st.cache_data(show_spinner=False)
def checklist() -> list[Item]:
    return load_checklist()


@st.cache_data(show_spinner=False, max_entries=16)
def match(jd_text: str, version_text: str, master_text: str | None) -> jd.MatchReport:
    """JD analysis and coverage (jieba keyword proposals included): recomputed only when a text changes."""
    return jd.match(jd_text, version_text, master_text, bank())


def data_dir() -> Path:
    return default_data_dir()


def runs_dir() -> Path:
    """Where lab runs live: runs/ under the working directory, as `python -m labs.run` writes them."""
    return Path(os.environ.get(RUNS_ENV) or "runs").resolve()


@contextmanager
def db() -> Iterator[sqlite3.Connection]:
    """A connection for one script run. Not cached: sqlite3 connections belong to the thread that opened
    them, and Streamlit runs each rerun in a new thread."""
    conn = connect(data_dir())
    try:
        yield conn
    finally:
        conn.close()


def now() -> datetime:
    return datetime.now(timezone.utc)


# ---- the LLM ----------------------------------------------------------------------------------------------

LLM_DEFAULTS = {
    "llm_model": os.environ.get("KGP_LLM_MODEL", ""),
    "llm_base_url": os.environ.get("OPENAI_BASE_URL", ""),
    "llm_api_key": "",  # typed on the Settings page only; OPENAI_API_KEY is read by the client itself
}


def llm_settings() -> LLMSettings:
    s = st.session_state
    return LLMSettings.from_env(model=s.get("llm_model") or None, base_url=s.get("llm_base_url") or None,
                                api_key=s.get("llm_api_key") or None)


@st.cache_resource(show_spinner=False, max_entries=4)
def _env_client(model: str | None, base_url: str | None) -> LLMClient:
    return LLMClient(LLMSettings.from_env(model=model, base_url=base_url))


def llm() -> LLMClient:
    """The session's LLM client (offline when no model is named)."""
    settings = llm_settings()
    if not settings.api_key:
        return _env_client(settings.model, settings.base_url)
    # A key typed in this session must neither outlive it nor reach another session: its client lives in
    # this session's state, not in the process-wide resource cache.
    client = st.session_state.get("_llm_client")
    if client is None or client.settings != settings:
        client = st.session_state["_llm_client"] = LLMClient(settings)
    return client


# ---- settings that outlive their widget ----------------------------------------------------------------------


def keep(key: str) -> str:
    """The widget key for the session value `key`. Streamlit drops a widget's state when its page is left, so
    the value lives under `key` and the widget gets a copy each run; pass `on_change=store, args=(key,)`."""
    st.session_state["_w_" + key] = st.session_state[key]
    return "_w_" + key


def store(key: str) -> None:
    st.session_state[key] = st.session_state["_w_" + key]
