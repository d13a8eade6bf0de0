"""Labs: pick a lab and one of its presets (or set every option under "all options"), see how long it took
before, run it in the background with live progress, then read its report, download it, and browse past runs.
`?lab=<name>` (a link from a question) opens that lab. Every run is `python -m labs.run <lab>`, after the lab's
own `check_config` has accepted the options."""

import dataclasses
import importlib
import time
import typing
from types import ModuleType
from typing import Any

import streamlit as st

from app import lab_catalog, lab_runs, render, state
from app.i18n import lang, t
from app.lab_catalog import Preset
from app.widgets import select
from labs.core import background, history
from labs.core.config import LaunchConfig, Problem, field_docs

HIDDEN = frozenset({"out", "job"})  # the run folder is chosen here; `job` is set by the lab itself
COLUMNS = 3
HISTORY = 50  # past runs listed


def load(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(f"labs.{name}")
    except Exception as e:  # a lab still being written must not take the page down
        st.error(t("labs.import_error", lab=name, error=f"{type(e).__name__}: {e}"))
        return None


def label(name: str) -> str:
    """An option's label in the UI language; options without one keep their name (it is also the CLI flag)."""
    return lab_catalog.pick(lab_catalog.FIELDS, name, lang()) or name


def widget(key: str, f: dataclasses.Field, kind: type, default: Any, choices: list[str] | None, help_: str) -> Any:
    name = label(f.name)
    if kind is bool:
        return st.checkbox(name, value=bool(default), key=key, help=help_)
    if choices:
        return st.selectbox(name, choices, index=choices.index(default) if default in choices else 0, key=key,
                            help=help_)
    if kind is int:
        return int(st.number_input(name, value=int(default), step=1, key=key, help=help_))
    if kind is float:
        return float(st.number_input(name, value=float(default), key=key, help=help_, format="%g"))
    return st.text_input(name, value=str(default), key=key, help=help_)


def groups(config: type) -> tuple[list[dataclasses.Field], list[dataclasses.Field]]:
    """The lab's own options (its class's fields first), and the launch options every lab shares."""
    launch = {f.name for f in dataclasses.fields(LaunchConfig)}
    own = set(vars(config).get("__annotations__", {}))
    fields = [f for f in dataclasses.fields(config) if f.name not in HIDDEN and f.default is not dataclasses.MISSING]
    lab_fields = sorted((f for f in fields if f.name not in launch), key=lambda f: f.name not in own)
    return lab_fields, [f for f in fields if f.name in launch]


def options_form(lab: str, config: type, preset: Preset) -> Any | None:
    """Every option, starting from the preset; returns the Config to run when submitted."""
    docs = {k: " ".join(v.split()) for k, v in field_docs(config).items()}
    hints, choices = typing.get_type_hints(config), getattr(config, "CHOICES", {})
    lab_fields, launch_fields = groups(config)
    values: dict[str, Any] = {}

    def grid(fields: list[dataclasses.Field]) -> None:
        cols = st.columns(COLUMNS)
        for n, f in enumerate(fields):
            with cols[n % COLUMNS]:
                flag = f"`--{f.name.replace('_', '-')}`"
                help_ = lab_catalog.help_text(lab, f.name, lang()) or docs.get(f.name, "")
                values[f.name] = widget(f"lb_{lab}_{preset.id}_{f.name}", f, hints[f.name],
                                        preset.overrides.get(f.name, f.default), choices.get(f.name),
                                        f"{flag} · {help_}")

    with st.form(f"lb_form_{lab}"):
        grid(lab_fields)
        if launch_fields:
            st.markdown(f"**{t('labs.launch_options')}**")
            grid(launch_fields)
        submitted = st.form_submit_button(t("labs.run_custom"), disabled=_running() is not None)
    return config(**values) if submitted else None


def launch(lab: str, module: ModuleType, cfg: Any) -> None:
    """Start the run, unless the lab's own check (`check_config`, where it has one) rejects the options."""
    problem = module.check_config(cfg) if hasattr(module, "check_config") else ""
    if problem:
        text = problem.text(lang()) if isinstance(problem, Problem) else problem
        st.error(t("labs.bad_options", problem=text))
        return
    st.session_state["lb_job"] = background.start(lab, cfg, state.runs_dir())
    st.session_state["lb_total"] = getattr(cfg, "steps", None)
    st.session_state["lb_eta"] = lab_runs.estimate(history.list_runs(state.runs_dir(), lab=lab),
                                                   dataclasses.asdict(cfg))
    st.rerun()  # draw the progress, not the form's last state


def _running() -> background.LabProcess | None:
    job = st.session_state.get("lb_job")
    return job if job is not None and job.poll() is None else None


def estimate_line(lab: str, cfg: Any) -> str:
    est = lab_runs.estimate(history.list_runs(state.runs_dir(), lab=lab), dataclasses.asdict(cfg))
    if est is None:
        return t("labs.no_estimate")
    key = "labs.estimate_same" if est.same_options else "labs.estimate_any"
    return t(key, seconds=f"{est.seconds:.0f}", n=est.runs)


@st.fragment(run_every=1.0)
def live() -> None:
    """Progress of the running lab, redrawn every second; a full rerun shows the report once it ends."""
    job = st.session_state.get("lb_job")
    if job is None:
        return
    if job.poll() is not None:
        st.rerun()
    elapsed = time.time() - job.started
    st.info(t("labs.running", lab=job.lab, seconds=int(elapsed)))
    if eta := st.session_state.get("lb_eta"):
        left = max(0, eta.seconds - elapsed)
        st.progress(min(elapsed / eta.seconds, 0.99) if eta.seconds else 0.0,
                    text=t("labs.time_left", seconds=f"{left:.0f}"))
    total = st.session_state.get("lb_total")
    for name, step in history.progress(job.out).items():
        text = t("labs.steps", job=name, step=step, total=total or "?")
        st.progress(min(step / total, 1.0) if total else 0.0, text=text)
    st.code(history.tail(job.log, 25) or "…", language="text")
    st.button(t("labs.stop"), on_click=job.stop, key="lb_stop")


def finished(job: background.LabProcess) -> None:
    code = job.poll()
    st.subheader(t("labs.result", lab=job.lab, run=job.out.name))
    st.caption(t("labs.exit", code=code, folder=str(job.out)))
    render.lab_report(job.out, history.read_report(job.out), key="lb_now")
    with st.expander(t("labs.log")):
        st.code(history.tail(job.log, 200) or "…", language="text")
        st.download_button(t("labs.download_log"), history.tail(job.log, 100000), f"{job.lab}-{job.out.name}.log",
                           "text/plain", key="lb_dl_log")


def past_runs(current: str | None) -> None:
    """The table of past runs; one opens only when picked (the run just finished is drawn above already)."""
    st.subheader(t("labs.history"))
    runs = history.list_runs(state.runs_dir(), limit=HISTORY)
    if not runs:
        st.info(t("home.no_runs"))
        return
    verdict = {True: "✅", False: "❌", None: "…"}
    st.dataframe([{t("labs.lab"): r.lab, t("labs.run"): r.stamp, t("labs.ok"): verdict[r.passed],
                   t("labs.took"): "–" if (s := lab_runs.wall_seconds(r)) is None else f"{s:.0f}"} for r in runs],
                 hide_index=True)
    by_path = {str(r.path): r for r in runs if str(r.path) != current}
    chosen = select(st, t("labs.open_run"), [None, *by_path], "lb_history",
                    lambda p: "–" if p is None else f"{by_path[p].lab} · {by_path[p].stamp}")
    if chosen:
        render.lab_report(by_path[chosen].path, by_path[chosen].report, key="lb_past")


def take_link(labs: dict[str, str]) -> None:
    """A link's ?lab= picks the lab once; the parameter then goes."""
    if (name := st.query_params.get("lab")) is not None:
        if name in labs:
            st.session_state["lb_lab"] = name
        del st.query_params["lab"]


def chooser(lab: str, module: ModuleType) -> None:
    """The preset buttons' row, the estimate, and every option under an expander."""
    kind, *_ = lab_catalog.LABS.get(lab, (lab_catalog.TORCHRUN, "", ""))
    st.caption(lab_catalog.pick(lab_catalog.KIND_TEXT, kind, lang()))
    presets = {p.id: p for p in lab_catalog.presets(lab)}
    preset = presets[select(st, t("labs.preset"), list(presets), f"lb_preset_{lab}",
                            lambda i: presets[i].zh if lang() == "zh" else presets[i].en, kind="radio",
                            horizontal=True)]
    cfg = module.Config(**preset.overrides)
    st.caption(estimate_line(lab, cfg))
    if st.button(t("labs.run_preset"), type="primary", key="lb_run", disabled=_running() is not None):
        launch(lab, module, cfg)
    with st.expander(t("labs.all_options")):
        custom = options_form(lab, module.Config, preset)
    if custom is not None:
        launch(lab, module, custom)


def main() -> None:
    st.title(t("labs.title"))
    labs = history.available()
    take_link(labs)
    lab = select(st, t("labs.pick"), list(labs), "lb_lab", str)
    if lab:
        st.write(lab_catalog.describe(lab, lang()) or labs[lab])
    module = load(lab) if lab else None
    if module is not None:
        if module.__doc__:
            with st.expander(t("labs.about")):
                st.code(module.__doc__, language="text")
        chooser(lab, module)
    job = st.session_state.get("lb_job")
    if job is not None and job.poll() is None:
        live()
    elif job is not None:
        finished(job)
    past_runs(str(job.out) if job is not None else None)


main()
