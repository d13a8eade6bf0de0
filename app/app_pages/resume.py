"""Résumé & JD: upload a résumé (read, never run), paste a JD, see coverage and gaps, rewrite bullets as STAR with
targeted questions, keep versions (master + one per job) with history and diffs, export Markdown and DOCX."""

import hashlib
import inspect
import sqlite3
from collections.abc import Callable

import streamlit as st

from app import render, state
from app.i18n import lang, t
from app.widgets import select
from coach import diagnose, guard, star, versions
from coach.documents import MAX_BYTES, SUFFIXES, parse_text
from coach.inputs import MAX_JD_BYTES, InputError, check_jd, jd_from_bytes, resume_from_bytes
from coach.jd import Gap, analyze_jd

# The browser refuses bigger files itself where this Streamlit can say so (newer than the 1.63 we require).
UPLOAD_LIMIT = ({"max_upload_size": MAX_BYTES >> 20}
                if "max_upload_size" in inspect.signature(st.file_uploader).parameters else {})


def master_text(conn: sqlite3.Connection) -> str | None:
    doc = versions.master(conn)
    return versions.latest(conn, doc.id).content if doc else None


# ---- the working résumé --------------------------------------------------------------------------------------


def read_upload() -> None:
    """Parse a new upload once; its error (if any) stays shown while the file stays in the uploader."""
    up = st.file_uploader(t("resume.upload"), type=[s.lstrip(".") for s in SUFFIXES], key="rj_upload",
                          help=t("resume.upload_help", mb=MAX_BYTES >> 20), **UPLOAD_LIMIT)
    st.caption(t("resume.limits", mb=MAX_BYTES >> 20))  # the uploader's own English limit line is hidden
    if up is None:
        return
    fingerprint = (up.file_id, up.name, up.size)
    if st.session_state.get("rj_parsed", (None,))[0] != fingerprint:
        st.session_state["rj_parsed"] = (fingerprint, parse(up.name, up.size, up.getvalue))
    if error := st.session_state["rj_parsed"][1]:
        st.error(error.text(lang()))


def parse(name: str, size: int, read: Callable[[], bytes]) -> InputError | None:
    """Load the upload into the editor; returns the error (shown in the UI language), or None."""
    if size > MAX_BYTES:  # say so before reading it
        return InputError("too_big", name=name, size=f"{size / 1e6:.1f} MB", limit=f"{MAX_BYTES >> 20} MB")
    try:
        resume = resume_from_bytes(read(), name)
    except InputError as e:
        return e
    st.session_state["rj_text"] = resume.to_markdown()
    st.session_state["rj_source"] = name
    return None


def editor(conn: sqlite3.Connection) -> None:
    read_upload()
    st.text_area(t("resume.text"), key=state.keep("rj_text"), on_change=state.store, args=("rj_text",), height=320,
                 help=t("resume.text_help"))
    text = st.session_state["rj_text"]
    if not text.strip():
        st.info(t("resume.empty"))
        return
    resume = parse_text(text)
    st.caption(t("resume.structure", sections=len(resume.sections), bullets=len(resume.bullets)))
    if st.button(t("resume.save_master"), key="rj_save_master"):
        rev = versions.save_master(conn, text, note=st.session_state.get("rj_source", ""))
        st.success(t("resume.saved", label=t("resume.master"), revision=rev.revision))


# ---- the JD ------------------------------------------------------------------------------------------------


def read_jd_upload() -> None:
    """A JD file fills the JD box once per upload; its error stays shown while the file stays in the uploader."""
    up = st.file_uploader(t("resume.jd_upload"), type=["txt", "md", "markdown", "pdf", "docx"], key="rj_jd_upload")
    if up is None:
        return
    fingerprint = (up.file_id, up.name, up.size)
    if st.session_state.get("rj_jd_parsed", (None,))[0] != fingerprint:
        try:
            st.session_state["rj_jd"] = jd_from_bytes(up.getvalue(), up.name)
            error = None
        except InputError as e:
            error = e
        st.session_state["rj_jd_parsed"] = (fingerprint, error)
    if error := st.session_state["rj_jd_parsed"][1]:
        st.error(error.text(lang()))


def jd_coverage(conn: sqlite3.Connection) -> None:
    read_jd_upload()
    st.text_area(t("resume.jd"), key=state.keep("rj_jd"), on_change=state.store, args=("rj_jd",), height=200,
                 placeholder=t("resume.jd_placeholder"))
    jd_text, text = st.session_state["rj_jd"], st.session_state["rj_text"]
    if not jd_text.strip() or not text.strip():
        st.info(t("resume.need_both"))
        return
    try:
        check_jd(jd_text)
    except InputError as e:
        st.error(e.text(lang()))
        return
    report = state.match(jd_text, text, master_text(conn))
    cov = report.coverage
    a, b, c = st.columns(3)
    a.metric(t("resume.coverage"), "–" if cov.percent is None else f"{cov.percent:.0f}%")
    b.metric(t("resume.required"), f"{len(report.jd.required) - len(cov.missing_required)} / {len(report.jd.required)}")
    c.metric(t("resume.preferred"),
             f"{len(report.jd.preferred) - len(cov.missing_preferred)} / {len(report.jd.preferred)}")
    st.caption(t("resume.coverage_help"))
    if cov.covered:
        st.markdown(f"**{t('resume.covered')}**: " + ", ".join(
            f"{render.skill_name(k)} ({'; '.join(v)})" for k, v in cov.covered.items()))
    gaps(report.gaps)
    if report.jd.candidates:
        st.caption(t("resume.candidates", terms=", ".join(report.jd.candidates)))


def gaps(found: list[Gap]) -> None:
    bank = state.bank()
    if not found:
        st.success(t("resume.no_gaps"))
        return
    st.markdown(f"**{t('resume.gaps')}**")
    st.dataframe([{
        t("resume.skill"): g.name_zh if lang() == "zh" else g.name_en,
        t("resume.level"): t(f"resume.{g.level}_level"),
        t("resume.kind"): t(f"resume.{g.kind}"),
        t("resume.in_master"): " / ".join(g.master_lines)[:120],
        t("resume.practice"): " | ".join(render.text_of(q, bank) for q in g.questions[:3]),
        t("nav.labs"): ", ".join(g.labs),
    } for g in found], hide_index=True)


# ---- STAR rewriting ------------------------------------------------------------------------------------------


def pick_bullet() -> str:
    text = st.session_state["rj_text"]
    bullets = parse_text(text).bullets if text.strip() else []
    custom = t("resume.custom_bullet")
    # Keyed by the bullets: a new résumé starts again from its first bullet. None is "type my own" (its label
    # changes with the language; `select` keeps the choice across a switch).
    key = "rj_bullet_" + hashlib.sha1("\n".join(bullets).encode()).hexdigest()[:10]
    choice = select(st, t("resume.pick_bullet"), [*bullets, None], key, lambda b: custom if b is None else b)
    if choice is None:
        return st.text_input(t("resume.bullet"), key="rj_custom").strip()
    return choice


def star_rewrite() -> None:
    bullet = pick_bullet()
    if not bullet:
        return
    jd_text = st.session_state["rj_jd"]
    jd = analyze_jd(jd_text, propose=False) if jd_text.strip() and len(jd_text.encode()) <= MAX_JD_BYTES else None
    digest = hashlib.sha1(bullet.encode()).hexdigest()[:10]  # answers belong to their bullet
    answers = {}
    st.caption(t("resume.star_help"))
    for q in star.questions_for(bullet, None, jd):
        answers[q.key] = st.text_input(q.zh if lang() == "zh" else q.en, key=f"rj_ans_{digest}_{q.key}")
    answers["situation"] = st.text_input(t("resume.situation_q"), key=f"rj_ans_{digest}_situation")
    confirm_key = f"rj_confirm_{digest}"  # drawn under the result; its choice backs the next rewrite
    if st.button(t("resume.rewrite"), key="rj_rewrite", type="primary"):
        st.session_state["rj_star"] = star.rewrite(bullet, answers, st.session_state["rj_text"], jd, state.llm(),
                                                   lang=None, confirmed=st.session_state.get(confirm_key, []))
    result = st.session_state.get("rj_star")
    if result is not None and result.bullet == bullet:
        star_result(result)
        confirm_borrowed(result, confirm_key)


def confirm_borrowed(result: star.RewriteResult, key: str) -> None:
    """Facts the rewrite took from other bullets: the user picks those that belong here too, and only those
    back the next rewrite."""
    borrowed = list(dict.fromkeys(v.value for r in result.rejected for v in r.violations if v.kind == "borrowed"))
    chosen = [v for v in st.session_state.get(key, []) if v not in borrowed]  # confirmed before: keep offering
    if borrowed or chosen:
        st.multiselect(t("resume.confirm"), chosen + borrowed, key=key)


def star_result(result: star.RewriteResult) -> None:
    if result.notice:
        st.warning(result.notice)
    for text in result.flagged:
        st.warning(t("resume.flagged", text=text))
    before, after = st.columns(2)
    before.markdown(f"**{t('resume.before')}**")
    before.code(result.bullet, language=None, wrap_lines=True)
    after.markdown(f"**{t('resume.after')}**")
    if result.after:
        after.code(result.after, language=None, wrap_lines=True)
    else:
        after.info(t("resume.none_kept"))
    st.markdown(f"**STAR** ({result.engine})")
    for part in ("situation", "task", "action", "result"):  # only what the sources say: no empty "任务: –"
        if value := getattr(result.star, part):
            st.markdown(f"- **{t('star.' + part)}**: {value}")
    if missing := result.star.missing():
        sep = "、" if lang() == "zh" else ", "
        st.caption(t("resume.star_missing", parts=sep.join(t("star." + p) for p in missing)))
    st.markdown(f"**{t('resume.variants')}**")
    for v in result.variants:
        st.code(v.text, language=None, wrap_lines=True)
        if v.keywords:
            st.caption(t("resume.keywords", names=", ".join(v.keyword_names(lang()))))
    if result.vague:
        st.caption(t("resume.vague", words=", ".join(result.vague)))
    if result.rejected:
        with st.expander(t("resume.rejected", n=len(result.rejected)), expanded=not result.variants):
            for r in result.rejected:
                st.markdown(f"- {r.text}  \n  _{held_back_why(r)}_")


def held_back_why(rejected: guard.Rejected) -> str:
    """Why a rewrite was held back, in the UI language: one phrase per claim the sources do not back."""
    return "; ".join(dict.fromkeys(t(f"resume.why_{v.kind}", value=v.value) for v in rejected.violations))


# ---- versions ------------------------------------------------------------------------------------------------


def doc_label(doc: versions.ResumeDoc) -> str:
    return t("resume.master") if doc.kind == versions.MASTER else t("resume.for_job", job=doc.job)


def new_version(conn: sqlite3.Connection) -> None:
    with st.form("rj_new_version", clear_on_submit=True):
        job = st.text_input(t("resume.job"), key="rj_job")
        source = select(st, t("resume.start_from"), ["master", "editor"], "rj_from",
                        lambda s: t(f"resume.from_{s}"), kind="radio", horizontal=True)
        if st.form_submit_button(t("resume.create")):
            content = None if source == "master" else st.session_state["rj_text"]
            try:
                rev = versions.create_tailored(conn, job, content)
                st.success(t("resume.saved", label=t("resume.for_job", job=job.strip()), revision=rev.revision))
            except versions.VersionError as e:
                st.error(str(e))


def version_view(conn: sqlite3.Connection) -> None:
    new_version(conn)
    docs = {d.id: d for d in versions.list_docs(conn)}
    if not docs:
        st.info(t("resume.no_versions"))
        return
    doc = docs[select(st, t("resume.version"), list(docs), "rj_doc", lambda i: doc_label(docs[i]))]
    revs = versions.history(conn, doc.id)
    latest = revs[-1]
    left, right = st.columns(2)
    left.button(t("resume.load"), key="rj_load", on_click=_load, args=(latest.content,))
    if right.button(t("resume.save_revision"), key="rj_save_rev"):
        rev = versions.save_revision(conn, doc.id, st.session_state["rj_text"], note=t("resume.edited"))
        st.success(t("resume.saved", label=doc_label(doc), revision=rev.revision))
        revs, latest = versions.history(conn, doc.id), rev
    st.dataframe([{t("resume.rev"): r.revision, t("resume.note"): r.note,
                   t("apps.when"): r.created[:16].replace("T", " ")} for r in revs], hide_index=True)
    diffs(conn, doc, [r.revision for r in revs])
    export(doc, latest)


def _load(content: str) -> None:
    st.session_state["rj_text"] = content


def diffs(conn: sqlite3.Connection, doc: versions.ResumeDoc, numbers: list[int]) -> None:
    if len(numbers) > 1:
        old, new = st.columns(2)
        a = old.selectbox(t("resume.diff_old"), numbers, index=len(numbers) - 2, key=f"rj_old_{doc.id}")
        b = new.selectbox(t("resume.diff_new"), numbers, index=len(numbers) - 1, key=f"rj_new_{doc.id}")
        st.code(versions.diff_revisions(conn, doc.id, a, b) or t("resume.same"), language="diff")
    if doc.kind == versions.TAILORED and versions.master(conn):
        with st.expander(t("resume.vs_master")):
            st.code(versions.diff_against_master(conn, doc.id) or t("resume.same"), language="diff")


def export(doc: versions.ResumeDoc, rev: versions.Revision) -> None:
    name = "resume-master" if doc.kind == versions.MASTER else f"resume-{doc.id}"
    md, docx = st.columns(2)
    md.download_button(t("resume.download_md"), versions.to_markdown(rev.content), f"{name}-r{rev.revision}.md",
                       "text/markdown", key="rj_dl_md")
    docx.download_button(t("resume.download_docx"), versions.to_docx(rev.content), f"{name}-r{rev.revision}.docx",
                         "application/vnd.openxmlformats-officedocument.wordprocessingml.document", key="rj_dl_docx")


# ---- diagnosis (coach.diagnose) -------------------------------------------------------------------------------
def diagnosis_view() -> None:
    """Scores of the working résumé: a summary, a chart, a per-bullet table, and each bullet's fixes."""
    text, jd_text = st.session_state.get("rj_text", ""), st.session_state.get("rj_jd", "")
    if not text.strip():
        st.info(t("dx.need"))
        return
    jd = None
    if jd_text.strip():
        try:
            check_jd(jd_text)
            jd = analyze_jd(jd_text)
        except InputError as e:
            st.error(e.text(lang()))
    d = diagnose.diagnose("resume", parse_text(text).bullets, text, jd, lang())
    if not d.bullets:
        st.info(t("dx.no_bullets"))
        return
    a, b, c = st.columns(3)
    a.metric(t("dx.coverage"), t("dx.no_jd") if d.coverage is None else str(d.coverage))
    b.metric(t("dx.quant"), str(d.quantification))
    c.metric(t("dx.star"), str(d.star))
    # bars named by the bullet's number as the table and the expanders below count them (1, 2, ...), not 0, 1
    st.bar_chart({t("dx.bullet"): [f"{i + 1}" for i in range(len(d.bullets))],
                  t("dx.quant"): [x.quantification for x in d.bullets], t("dx.star"): [x.star for x in d.bullets]},
                 x=t("dx.bullet"), stack=False, height=260)
    st.dataframe([{t("dx.bullet"): x.text, t("dx.quant"): x.quantification, t("dx.star"): x.star,
                   t("dx.skills"): ", ".join(render.skill_name(s) for s in x.skills)} for x in d.bullets],
                 key="rd_table")
    for i, x in enumerate(d.bullets):
        if x.notes:
            with st.expander(f"{i + 1}. {x.text}"):
                st.markdown(f"**{t('dx.why')}**: " + "; ".join(x.notes))
                if x.fixes:
                    st.markdown(f"**{t('dx.fix')}**:\n" + "\n".join(f"- {f}" for f in x.fixes))
    if d.missing:
        st.markdown(f"**{t('dx.gaps')}**")
        st.markdown("\n".join(f"- {render.skill_name(g.skill_id)} ({t('resume.' + g.level)}): "
                               f"{', '.join(g.labs) or '-'}; {', '.join(g.questions[:3]) or '-'}" for g in d.missing))


def main() -> None:
    st.title(t("resume.title"))
    tabs = st.tabs([t("resume.tab_resume"), t("resume.tab_jd"), t("resume.tab_star"), t("resume.tab_versions"),
                    t("dx.tab")])
    with state.db() as conn:
        with tabs[0]:
            editor(conn)
        with tabs[1]:
            jd_coverage(conn)
        with tabs[2]:
            star_rewrite()
        with tabs[3]:
            version_view(conn)
        with tabs[4]:
            diagnosis_view()


main()
