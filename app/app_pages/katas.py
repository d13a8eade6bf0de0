"""Katas (手撕): pick a kata, write the code in the editor, check it on real torchrun ranks with live progress,
read each case's verdict and hint, see past attempts, and open the reference after a first attempt. `?kata=<name>`
(a link from a question or the mock interview) opens that kata. The code is saved to the same file
`python -m labs.kata check` judges, so the app and the terminal share one attempt history."""

import streamlit as st

from app import render, state
from app.i18n import lang, t
from app.widgets import select
from coach import kata_attempts
from labs.kata import judge, workspace
from labs.kata.catalog import Kata, all_katas

# Code reads in a fixed-width font: the editor is a text area (no maintained code-editor component fits the
# browser test and AppTest both), drawn in Streamlit's monospace font.
MONO_CSS = '<style>[class*="st-key-kata_code_"] textarea { font-family: "Source Code Pro", monospace; }</style>'
STATUS_ICON = {"passed": "✅", "failed": "❌", "crashed": "💥", "timeout": "⏱️", "not_run": "·"}


def pick() -> Kata:
    katas = all_katas()
    wanted = st.query_params.get("kata")
    if wanted in katas:
        st.session_state["kata_pick"] = wanted
    name = select(st, t("kata.pick"), list(katas), "kata_pick", lambda k: f"{katas[k].title(lang())} · {k}")
    return katas[name]


def about(kata: Kata) -> None:
    st.caption(t("kata.ranks", n=kata.nproc))
    bank = state.bank()
    with st.container(horizontal=True):
        for qid in kata.questions:
            if qid in bank.by_id:
                st.page_link("app_pages/bank.py", label=render.text_of(qid, bank)[:60], icon="📚",
                             query_params={"q": qid})
    task = kata.stub().split('"""')[1] if '"""' in kata.stub() else ""
    with st.expander(t("kata.task"), expanded=True):
        st.code(task.strip(), language="text", wrap_lines=True)


def code_of(kata: Kata) -> str:
    path = workspace.solution_path(state.data_dir(), kata)
    return path.read_text(encoding="utf-8") if path.exists() else kata.stub()


def editor(kata: Kata) -> str:
    key = f"kata_code_{kata.name}"
    st.session_state.setdefault(key, code_of(kata))
    return st.text_area(t("kata.editor"), key=key, height=420, help=t("kata.editor_help",
                        path=workspace.solution_path(state.data_dir(), kata)))


def run_check(kata: Kata, code: str) -> None:
    path = workspace.save(state.data_dir(), kata, code)
    bar = st.progress(0.0, text=t("kata.running", n=kata.nproc))

    def progress(done: int, total: int, case: str) -> None:
        bar.progress(done / total if total else 0.0, text=t("kata.progress", done=done, total=total, case=case))

    verdict = judge.check(kata.name, path, progress=progress)
    bar.empty()
    if verdict.code_sha256:
        with state.db() as conn:
            kata_attempts.record(conn, verdict)
    st.session_state[f"kata_verdict_{kata.name}"] = verdict


def show(verdict: judge.Verdict) -> None:
    if verdict.problem:
        st.error(verdict.problem.text(lang()))
    if verdict.cases:
        k, n = verdict.passed_cases, len(verdict.cases)
        (st.success if verdict.passed else st.warning)(t("kata.passed" if verdict.passed else "kata.failed", k=k,
                                                         t=n, s=f"{verdict.seconds:.1f}"))
        st.dataframe([{t("kata.status"): f"{STATUS_ICON[c.status]} {t('kata.s.' + c.status)}",
                       t("kata.case"): c.name, t("kata.seconds"): None if c.seconds is None else round(c.seconds, 3),
                       t("kata.detail"): c.detail or c.what} for c in verdict.cases], hide_index=True,
                     key="kata_cases")
        first = next((c for c in verdict.cases if c.status in ("failed", "crashed", "timeout")), None)
        if first:
            st.info(t("kata.hint", case=first.name, hint=first.hint(lang())))
    if verdict.command:
        with st.expander(t("kata.by_hand")):
            st.code(verdict.command, language="bash", wrap_lines=True)


def history(kata: Kata) -> bool:
    with state.db() as conn:
        past = kata_attempts.attempts(conn, kata.name)
    if past:
        st.markdown(f"**{t('kata.attempts')}**")
        st.dataframe([{t("kata.when"): a.created[:16].replace("T", " "), t("kata.score"):
                       f"{a.passed_cases}/{a.total_cases}", t("kata.ok"): "✅" if a.passed else "",
                       t("kata.seconds"): round(a.seconds, 1), "sha256": a.code_sha256[:12]} for a in past],
                     hide_index=True, key="kata_history")
    return bool(past)


def reveal(kata: Kata, attempted: bool) -> None:
    if not attempted:
        st.caption(t("kata.reveal_locked"))
        return
    with st.expander(t("kata.reveal")):
        st.code(kata.reference(), language="python")


def main() -> None:
    st.html(MONO_CSS)
    st.title(t("kata.title"))
    st.caption(t("kata.intro"))
    kata = pick()
    about(kata)
    code = editor(kata)
    with st.container(horizontal=True):
        if st.button(t("kata.check"), type="primary", key="kata_check"):
            run_check(kata, code)
        if st.button(t("kata.reset"), key="kata_reset"):
            workspace.start(state.data_dir(), kata, force=True)
            st.session_state[f"kata_code_{kata.name}"] = kata.stub()
            st.rerun()
    verdict = st.session_state.get(f"kata_verdict_{kata.name}")
    if verdict:
        show(verdict)
    reveal(kata, history(kata))


main()
