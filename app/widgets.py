"""Widgets that survive what plain Streamlit widgets do not: a language switch.

Streamlit's frontend keeps a selectbox's choice as its *formatted label*. When the labels change language, the
label sent back matches no option, and Streamlit returns the label itself as the value ("any" in a zh UI), so a
filter silently matches nothing and the box shows "Choose an option". `select` keys the widget by the UI language
(a switch draws a fresh widget) and keeps the choice itself under a language-free key that seeds the new one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import streamlit as st

from app.i18n import lang

T = TypeVar("T")


def widget_key(key: str) -> str:
    """The key of the widget drawn for the choice `key` in the current language."""
    return f"{key}__{lang()}"


def select(where: Any, label: str, options: Sequence[T], key: str, format_func: Callable[[T], str],
           kind: str = "selectbox", **kwargs: Any) -> T | None:
    """A selectbox (or a radio: `kind`) in `where` (st or a column) whose choice, kept under `key`, outlives a
    language switch."""
    options = list(options)
    chosen = st.session_state.get(key)
    index = options.index(chosen) if key in st.session_state and chosen in options else 0  # None can be an option
    # Labels computed now, in this run's language: a format_func that read the language later (AppTest calls it
    # outside the script run) would name the options in another language than the one they were drawn in.
    labels = [format_func(o) for o in options]

    def shown(option: T) -> str:
        return labels[options.index(option)] if option in options else str(option)

    draw = getattr(where, kind)
    value = draw(label, options, index=index, key=widget_key(key), format_func=shown, **kwargs)
    if value not in options:  # never hand a page a label as if it were an option
        value = options[index] if options else None
    st.session_state[key] = value
    return value
