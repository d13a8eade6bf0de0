"""Labs: pick a lab, set its options (a form built from its Config dataclass, docstrings as help), run it in the
background with live progress and log, then see its report and plots; past runs below."""

import dataclasses
import importlib
import time
import typing
from types import ModuleType
from typing import Any

import streamlit as st

from app import render, state
from app.i18n import t
from labs.core import background, history
from labs.core.config import LaunchConfig, field_docs

HIDDEN = frozenset({"out", "job"})  # the run folder is chosen here; `job` is set by the lab itself
COLUMNS = 3
HISTORY = 50  # past runs listed


def load(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(f"labs.{name}")
    except Exception as e:  # a lab still being written must not take the page down
        st.error(t("labs.import_error", lab=name, error=f"{type(e).__name__}: {e}"))
        return None


def widget(lab: str, f: dataclasses.Field, kind: type, choices: list[str] | None, help_: str) -> Any:
    key, default = f"lb_{lab}_{f.name}", f.default
    if kind is bool:
        return st.checkbox(f.name, value=default, key=key, help=help_)
    if choices:
        index = choices.index(default) if default in choices else 0
        return st.selectbox(f.name, choices, index=index, key=key, help=help_)
    if kind is int:
        return int(st.number_input(f.name, value=default, step=1, key=key, help=help_))
    if kind is float:
        return float(st.number_input(f.name, value=float(default), key=key, help=help_, format="%g"))
    return st.text_input(f.name, value=str(default), key=key, help=help_)


def groups(config: type) -> tuple[list[dataclasses.Field], list[dataclasses.Field]]:
    """The lab's own options (its class's fields first), and the launch options every lab shares."""
    launch = {f.name for f in dataclasses.fields(LaunchConfig)}
    own = set(vars(config).get("__annotations__", {}))
    fields = [f for f in dataclasses.fields(config) if f.name not in HIDDEN and f.default is not dataclasses.MISSING]
    lab_fields = sorted((f for f in fields if f.name not in launch), key=lambda f: f.name not in own)
    return lab_fields, [f for f in fields if f.name in launch]


def options_form(lab: str, config: type) -> Any | None:
    """The form; returns the Config to run when submitted."""
    docs = {k: " ".join(v.split()) for k, v in field_docs(config).items()}
    hints, choices = typing.get_type_hints(config), getattr(config, "CHOICES", {})
    lab_fields, launch_fields = groups(config)
    values: dict[str, Any] = {}

    def grid(fields: list[dataclasses.Field]) -> None:
        cols = st.columns(COLUMNS)
        for n, f in enumerate(fields):
            with cols[n % COLUMNS]:
                values[f.name] = widget(lab, f, hints[f.name], choices.get(f.name), docs.get(f.name, ""))

    with st.form(f"lb_form_{lab}"):
        grid(lab_fields)
        if launch_fields:
            with st.expander(t("labs.launch_options")):
                grid(launch_fields)
        submitted = st.form_submit_button(t("labs.run_button"), type="primary", disabled=_running() is not None)
    return config(**values) if submitted else None


def launch(lab: str, module: ModuleType, cfg: Any) -> None:
    """Start the run, unless the lab's own check (`check_config`, where it has one) rejects the options."""
    problem = module.check_config(cfg) if hasattr(module, "check_config") else ""
    if problem:
        st.error(t("labs.bad_options", problem=problem))
        return
    st.session_state["lb_job"] = background.start(lab, cfg, state.runs_dir())
    st.session_state["lb_total"] = getattr(cfg, "steps", None)


def _running() -> background.LabProcess | None:
    job = st.session_state.get("lb_job")
    return job if job is not None and job.poll() is None else None


@st.fragment(run_every=1.0)
def live() -> None:
    """Progress of the running lab, redrawn every second; a full rerun shows the report once it ends."""
    job = st.session_state.get("lb_job")
    if job is None:
        return
    if job.poll() is not None:
        st.rerun()
    total = st.session_state.get("lb_total")
    st.info(t("labs.running", lab=job.lab, seconds=int(time.time() - job.started)))
    for name, step in history.progress(job.out).items():
        label = f"{name}: {step}" + (f" / {total}" if total else "")
        st.progress(min(step / total, 1.0) if total else 0.0, text=label)
    st.code(history.tail(job.log, 25) or "…", language="text")
    st.button(t("labs.stop"), on_click=job.stop, key="lb_stop")


def finished(job: background.LabProcess) -> None:
    code = job.poll()
    st.subheader(t("labs.result", lab=job.lab, run=job.out.name))
    st.caption(t("labs.exit", code=code, folder=str(job.out)))
    render.lab_report(job.out, history.read_report(job.out))
    with st.expander(t("labs.log")):
        st.code(history.tail(job.log, 200) or "…", language="text")


def past_runs() -> None:
    st.subheader(t("labs.history"))
    runs = history.list_runs(state.runs_dir(), limit=HISTORY)
    if not runs:
        st.info(t("home.no_runs"))
        return
    verdict = {True: "✅", False: "❌", None: "…"}
    st.dataframe([{t("labs.lab"): r.lab, t("labs.run"): r.stamp, t("labs.ok"): verdict[r.passed]} for r in runs],
                 hide_index=True)
    by_path = {str(r.path): r for r in runs}
    chosen = st.selectbox(t("labs.open_run"), list(by_path), key="lb_history",
                          format_func=lambda p: f"{by_path[p].lab} · {by_path[p].stamp}")
    if chosen:
        render.lab_report(by_path[chosen].path, by_path[chosen].report)


def main() -> None:
    st.title(t("labs.title"))
    st.caption(t("labs.intro"))
    labs = history.available()
    lab = st.selectbox(t("labs.pick"), list(labs), key="lb_lab", format_func=lambda n: f"{n} — {labs[n]}")
    module = load(lab) if lab else None
    if module is not None:
        if module.__doc__:
            with st.expander(t("labs.about")):
                st.code(module.__doc__, language="text")
        cfg = options_form(lab, module.Config)
        if cfg is not None:
            launch(lab, module, cfg)
    job = st.session_state.get("lb_job")
    if job is not None and job.poll() is None:
        live()
    elif job is not None:
        finished(job)
    past_runs()


main()
