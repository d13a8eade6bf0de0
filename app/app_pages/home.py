import streamlit as st

st.title("KiloGPU Prep · 千卡面试实验室")
st.write("Interview prep for thousand-GPU training: questions you can defend, labs you can run. "
         "千卡训练面试准备：能讲清楚的答案，能亲手复现的实验。")
