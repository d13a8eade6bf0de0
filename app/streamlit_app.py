"""KiloGPU Prep (千卡面试实验室): `streamlit run app` starts here and builds the navigation."""

from pathlib import Path

import streamlit as st

PAGES = Path(__file__).parent / "app_pages"

st.set_page_config(page_title="KiloGPU Prep", page_icon="🧪", layout="wide")
st.session_state.setdefault("lang", "zh")

nav = st.navigation([
    st.Page(PAGES / "home.py", title="Home · 首页", default=True),
    st.Page(PAGES / "labs.py", title="Labs · 实验"),
])
nav.run()
