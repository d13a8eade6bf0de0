"""The Streamlit UI: `streamlit run app` (entry app/streamlit_app.py, pages in app/app_pages/)."""
