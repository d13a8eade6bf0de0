import streamlit as st

from labs.registry import LABS

st.title("Labs · 实验")
st.table([{"lab": name, "what it shows": desc} for name, desc in LABS.items()])
st.code("python -m labs.run fault_resume --fault kill", language="bash")
