"""Every package imports, and the app entry is where `streamlit run app` looks for it."""

import importlib

from conftest import ROOT


def test_packages_import():
    for name in ["labs", "coach", "question_bank", "labs.run", "labs.core.theory", "labs.core.checkpoint",
                 "labs.fault_resume", "question_bank.schema"]:
        importlib.import_module(name)


def test_app_entry_exists():
    assert (ROOT / "app" / "streamlit_app.py").exists()
