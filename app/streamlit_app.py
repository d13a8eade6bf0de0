"""KiloGPU Prep (千卡面试实验室): `streamlit run app` starts here. It sets the session's defaults, draws the language
switch and builds the navigation; each page is one file under app/app_pages/."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:  # streamlit puts app/ on sys.path, not the repository root
    sys.path.insert(0, str(HERE.parent))

import streamlit as st  # noqa: E402

from app import i18n, state  # noqa: E402
from app.i18n import t  # noqa: E402
from app.navigation import PAGES  # noqa: E402
from coach import user_settings  # noqa: E402

# Streamlit's frontend writes a few hints in English whatever the UI language ("Press Ctrl+Enter to submit form",
# an uploader's "Limit 5MB per file"): hidden here, and the pages say the same in the user's language.
ENGLISH_HINTS_CSS = """<style>
[data-testid="InputInstructions"], [data-testid="stFileUploaderDropzoneInstructions"] { display: none; }
</style>"""


def uploader_button_css() -> str:
    """The uploader's button says "Upload" in English whatever the UI language; our words replace it (CSS: the
    button's own text is hidden and ours drawn in its place)."""
    label = '[data-testid="stFileUploaderDropzone"] button [data-testid="stMarkdownContainer"]'
    return (f"<style>{label} p {{ display: none; }} "
            f'{label}::after {{ content: "{t("ui.upload_button")}"; }}</style>')


def defaults() -> None:
    # Session values that outlive their page's widgets (see state.keep); page-local ones carry the page's prefix.
    if "lang" not in st.session_state:
        with state.db() as conn:
            saved = user_settings.get(conn, "lang")
        st.session_state["lang"] = i18n.pick_lang(st.query_params.get("lang"), saved)
    for key, value in {**state.LLM_DEFAULTS, "rj_text": "", "rj_jd": ""}.items():
        st.session_state.setdefault(key, value)


def remember_lang() -> None:
    with state.db() as conn:
        user_settings.put(conn, "lang", st.session_state["lang"])


def language_switch() -> None:
    st.sidebar.radio("语言 / Language", i18n.LANGS, format_func=i18n.LANG_NAMES.get, key="lang", horizontal=True,
                     on_change=remember_lang)
    # In the URL too, so a reload or a shared link opens in this language (a page switch clears the query).
    if st.query_params.get("lang") != st.session_state["lang"]:
        st.query_params["lang"] = st.session_state["lang"]


def run_page() -> None:
    pages = [st.Page(HERE / "app_pages" / f"{name}.py", title=t(f"nav.{name}"), icon=icon, url_path=name,
                     default=name == "home") for name, icon, _ in PAGES]
    st.navigation(pages).run()


st.set_page_config(page_title="KiloGPU Prep · 千卡面试实验室", page_icon="🧪", layout="wide")
st.html(ENGLISH_HINTS_CSS)
defaults()
st.html(uploader_button_css())
language_switch()  # before the navigation: the page titles are in the chosen language
run_page()
