"""mkdocs hook: pages generated at build time from question_bank/ and labs/, in zh (the default) and en.

One source: every build reads the bank's YAML files (`question_bank.loader.load_bank()`) and the lab registry, so
nothing generated is checked in and the site always shows the bank and the labs as they are:

    questions/index[.en].md     the topics with their question counts
    questions/<topic>[.en].md   one page per topic, every question under an anchor named by its id
    checklist[.en].md           the self-assessment checklist, each item linked to its questions and labs
    labs/index[.en].md          the labs of labs/registry.py
    labs/<lab>[.en].md          a page for each lab that has no hand-written page in docs/labs/ (its docstring)
    katas[.en].md               the katas of labs/kata/: each one's task (its stub's docstring), command, questions

They are in-memory files named with mkdocs-static-i18n's suffix scheme, so the language switcher pairs them like
hand-written pages. The hook also lists the topic and lab pages in the navigation, and hands the search plugin the
taxonomy's aliases as a jieba user dictionary so that 断点续训 or 流水线并行 are indexed as one word.
"""

from __future__ import annotations

import ast
import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

from labs import registry
from labs.kata.catalog import Kata, all_katas
from labs.registry import LABS
from question_bank import taxonomy
from question_bank.checklist import Item, load_checklist, questions_for
from question_bank.loader import Bank, load_bank
from question_bank.schema import Question, Text

LANGS = ("zh", "en")
LABS_DIR = Path(registry.__file__).parent  # the lab modules are read as text: importing them would load torch

WORDS: dict[str, dict[str, str]] = {
    "zh": {
        "sep": "：", "bank": "题库", "topic": "主题", "count": "题数", "total": "共 {n} 题，{t} 个主题。",
        "bank_intro": "每个主题一页，由 `question_bank/` 的 YAML 在构建时生成。参考答案、评分要点和常见错误默认折叠："
                      "先自己作答（最好说出声），再展开对照。",
        "topic_intro": "本页 {n} 题。先自己作答，再展开参考答案和评分要点对照。",
        "difficulty": "难度", "type": "题型", "level": "级别", "tags": "标签", "id": "编号",
        "answer": "参考答案（先自己作答，再展开）", "essence": "一句话",
        "key_points": "评分要点", "mistakes": "常见错误", "follow_ups": "追问", "labs": "动手实验",
        "refs": "参考资料", "missing": "（题库中尚无此题）", "katas": "手撕代码",
        "kata_intro": "面试常考的手写分布式代码。`python -m labs.kata start <名字>` 把题目骨架写到 "
                      "`~/.kilogpu-prep/katas/`，写完后 `python -m labs.kata check <名字>` 在 torchrun 启动的多个"
                      "真实进程上逐个用例评测（正确性、通信量、崩溃与卡死都会给出结论），至少评测一次后 `reveal` 才"
                      "显示参考答案。应用里的“手撕代码”页做同样的事。",
        "kata_ranks": "评测进程数", "kata_task": "题目（摘自骨架文件）", "kata_questions": "对应面试题",
        "checklist": "自测清单", "skills": "技能", "questions": "相关题目（{n}）",
        "checklist_intro": "每项按 1–5 分给自己打分：1–2 不熟，3 知道，4–5 掌握。打分后先补最弱的项：展开“相关题目”"
                           "逐题练习，有实验的项去跑一遍实验，并能讲清报告里的每个数字。"
                           "应用（`make run`）的「自测清单」页会保存你的打分，并按从弱到强列出题目与实验。",
        "lab_list": "实验", "lab": "实验", "description": "说明（英文）", "lab_title": "实验：{name}",
        "lab_intro": "用 `.venv/bin/python -m labs.run <实验名>` 运行（`--list` 列出全部实验，`--help` 看选项）。"
                     "多数实验是由 `torchrun` 拉起的真实多进程 PyTorch 任务；每次运行写一个 `runs/<实验>/<时间戳>/`"
                     "目录（`report.json` 与图），只有实验自己的验证通过时退出码才是 0。",
        "run": "运行", "lab_doc": "运行方法与说明（摘自 `labs/{name}.py`，英文）",
        "lab_missing": "`labs/{name}.py` 还没有写好，这里暂时只有登记表里的一句说明。",
        "scale": "GPU 上不用改任何东西：backend `auto` 有 CUDA 时选 NCCL，`--nproc 8` 用满 8 张卡。"
                 "多机：每台机器运行同一条命令，`--nnodes 2 --rdzv-endpoint node0:29500`，"
                 "`--out` 指向共享存储上的同一个目录。",
        "real_run": "一次真实运行的结果（本机 2 个 CPU 进程，gloo）", "figure": "指标", "value": "数值",
    },
    "en": {
        "sep": ": ", "bank": "Question bank", "topic": "Topic", "count": "Questions",
        "total": "{n} questions in {t} topics.",
        "bank_intro": "One page per topic, generated at build time from the YAML in `question_bank/`. The model "
                      "answer, rubric and common mistakes are folded: answer first (out loud, ideally), then compare.",
        "topic_intro": "{n} questions on this page. Answer each one yourself first, then open the model answer and "
                       "the rubric to compare.",
        "difficulty": "Difficulty", "type": "Type", "level": "Level", "tags": "Tags", "id": "ID",
        "answer": "Model answer (try it yourself first)", "essence": "In one sentence",
        "key_points": "Rubric key points", "mistakes": "Common mistakes", "follow_ups": "Follow-ups",
        "labs": "Hands-on lab", "refs": "References", "missing": " (not in the bank yet)", "katas": "Katas",
        "kata_intro": "The distributed code interviews ask you to write by hand. `python -m labs.kata start <name>` "
                      "writes the stub into `~/.kilogpu-prep/katas/`; `python -m labs.kata check <name>` runs your "
                      "file on real processes started by torchrun, case by case (results, bytes sent, crashes and "
                      "hangs all get a verdict); `reveal` shows the reference after your first check. The app's Katas "
                      "page does the same.",
        "kata_ranks": "Ranks", "kata_task": "The task (from the stub)", "kata_questions": "Interview questions",
        "checklist": "Self-assessment checklist", "skills": "Skills", "questions": "Questions ({n})",
        "checklist_intro": "Rate yourself 1-5 on each item: 1-2 unfamiliar, 3 know, 4-5 master. Then work on the "
                           "weakest first: open its questions and practise them, and where an item has a lab, run "
                           "it and be able to explain every figure of its report. The app's self-assessment page "
                           "(`make run`) saves your ratings and lists questions and labs weakest first.",
        "lab_list": "Labs", "lab": "Lab", "description": "Description", "lab_title": "Lab: {name}",
        "lab_intro": "Run one with `.venv/bin/python -m labs.run <name>` (`--list` lists them, `--help` shows the "
                     "options). Most labs are real multi-process PyTorch jobs launched with `torchrun`; each run "
                     "writes `runs/<lab>/<timestamp>/` (`report.json` and plots) and exits 0 only when the lab's own "
                     "verification passed.",
        "run": "Run it", "lab_doc": "How to run it and what it shows (from `labs/{name}.py`)",
        "lab_missing": "`labs/{name}.py` is not written yet; for now there is only the registry's description.",
        "scale": "On GPUs nothing changes: backend `auto` picks NCCL when CUDA is available; `--nproc 8` uses eight "
                 "GPUs. Several nodes: run the same command on each, with `--nnodes 2 --rdzv-endpoint node0:29500` "
                 "and an `--out` folder on shared storage.",
        "real_run": "A real run (2 CPU processes, gloo, on a laptop)", "figure": "figure", "value": "value",
    },
}
TYPES = {"concept": ("原理", "concept"), "experience": ("经验", "experience"), "scenario": ("场景设计", "scenario"),
         "debug": ("排错", "debugging"), "behavioral": ("项目经历（STAR）", "behavioural (STAR)")}
LEVELS = {"new_grad": ("应届", "new grad"), "mid": ("1–3 年", "1-3 years"), "senior": ("资深", "senior")}

# Markdown characters that bank text (plain sentences) must not trigger; <, > and & become entities instead.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]{}#])")

# The generated pages of the current build, src_uri -> Markdown: filled by on_config, read by on_files and on_nav;
# and the "related questions" ending of each hand-written lab page, added by on_page_markdown.
_pages: dict[str, str] = {}
_lab_endings: dict[str, str] = {}


# ---- mkdocs events ---------------------------------------------------------------------------------------------
@event_priority(50)  # before the search plugin's on_config, which loads jieba_dict_user, and before i18n's
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    # mkdocs serve rebuilds in the same process: drop the taxonomy caches so edits to taxonomy.yaml show up.
    taxonomy.load_taxonomy.cache_clear()
    taxonomy.jieba_user_dict_path.cache_clear()
    bank = load_bank()
    handwritten = {name for name in os.listdir(os.path.join(config.docs_dir, "labs")) if name.endswith(".md")}
    _pages.clear()
    _lab_endings.clear()
    for lang in LANGS:
        _pages.update(render_all(bank, lang, handwritten))
        _lab_endings.update({localized(f"labs/{lab}.md", lang): related_questions(bank, lab, lang)
                             for lab in LABS if f"{lab}.md" in handwritten})
    _fill_nav_section(config.nav, "questions/index.md", [f"questions/{t}.md" for t in bank.topics])
    _fill_nav_section(config.nav, "labs/index.md", [f"labs/{lab}.md" for lab in LABS])
    search = config.plugins.get("material/search")
    if search is not None:
        search.config.jieba_dict_user = str(taxonomy.jieba_user_dict_path())
    return config


@event_priority(50)  # before static-i18n's on_files (-100), which must see both languages of every page
def on_files(files: Files, config: MkDocsConfig) -> Files:
    for src_uri, markdown in _pages.items():
        file = File.generated(config, src_uri, content=markdown)
        # static-i18n only localises files under docs_dir, and rebuilds each one from its path (dropping the
        # in-memory content): give it the path a hand-written page would have; on_nav puts the content back.
        file.abs_src_path = os.path.join(config.docs_dir, src_uri)
        files.append(file)
    return files


def on_nav(nav: Any, config: MkDocsConfig, files: Files) -> Any:
    # Runs after every on_files, before any page is read: give static-i18n's copies their Markdown back.
    for file in files:
        if file.src_uri in _pages:
            file.content_string = _pages[file.src_uri]
    return nav


def on_page_markdown(markdown: str, page: Any, config: MkDocsConfig, files: Files) -> str:
    # A hand-written lab page ends, like a generated one, with the bank's questions that cite the lab.
    return markdown + _lab_endings.get(page.file.src_uri, "")


def _fill_nav_section(nav: list[Any] | None, index: str, pages: list[str]) -> None:
    """List `pages` after `index` in whichever nav section holds `index`. Idempotent, because static-i18n runs
    on_config again for each language on the same config."""
    for item in nav or []:
        children = next(iter(item.values())) if isinstance(item, dict) else None
        if isinstance(children, list):
            if index in children:
                children[:] = [index, *pages]
            else:
                _fill_nav_section(children, index, pages)


# ---- helpers ---------------------------------------------------------------------------------------------------
def render_all(bank: Bank, lang: str, handwritten: set[str]) -> dict[str, str]:
    """Every generated page of one language, keyed by its i18n-suffixed src_uri."""
    pages = {"questions/index.md": bank_index(bank, lang), "checklist.md": checklist_page(bank, lang),
             "labs/index.md": lab_index(bank, lang), "katas.md": kata_page(bank, lang)}
    for topic in bank.topics:
        pages[f"questions/{topic}.md"] = topic_page(bank, topic, lang)
    for lab in LABS:
        if f"{lab}.md" not in handwritten:
            pages[f"labs/{lab}.md"] = lab_page(bank, lab, lang)
    return {localized(uri, lang): text for uri, text in pages.items()}


def localized(src_uri: str, lang: str) -> str:
    """questions/x.md stays as is for the default language, becomes questions/x.en.md for English."""
    return src_uri if lang == LANGS[0] else src_uri.removesuffix(".md") + f".{lang}.md"


def esc(text: str) -> str:
    """Bank text is plain: one line, no Markdown, HTML-safe."""
    text = " ".join(text.split()).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text)


def tr(text: Text, lang: str) -> str:
    return esc(getattr(text, lang))


def stars(difficulty: int) -> str:
    return "★" * difficulty + "☆" * (3 - difficulty)


def skill_name(skill_id: str, lang: str) -> str:
    skill = taxonomy.load_taxonomy().skills.get(skill_id)
    return esc(getattr(skill, lang)) if skill else esc(skill_id)


def indent(lines: list[str]) -> list[str]:
    """The body of an admonition: four spaces in, blank lines kept blank."""
    return [f"    {line}" if line else "" for line in lines]


def lab_link(lab: str, folder: str) -> str:
    """Every registered lab has a page; a name the registry does not know stays plain text."""
    return f"[{lab}]({folder}{lab}.md)" if lab in LABS else f"`{lab}`"


def question_link(q: Question, bank: Bank, lang: str, folder: str) -> str:
    return f"[{tr(q.question, lang)}]({folder}{bank.topic_of[q.id]}.md#{q.id}) {stars(q.difficulty)}"


def url(address: str) -> str:
    """Parentheses and spaces would end a Markdown link early."""
    return address.replace(" ", "%20").replace("(", "%28").replace(")", "%29")


# ---- question pages --------------------------------------------------------------------------------------------
def bank_index(bank: Bank, lang: str) -> str:
    w = WORDS[lang]
    lines = [f"# {w['bank']}", "", w["bank_intro"], "", w["total"].format(n=len(bank.questions), t=len(bank.topics)),
             "", f"| {w['topic']} | {w['count']} | ★ | ★★ | ★★★ |", "|---|---:|---:|---:|---:|"]
    for name, topic in bank.topics.items():
        by_level = Counter(q.difficulty for q in topic.questions)
        title = tr(topic.title, lang).replace("|", r"\|")
        lines.append(f"| [{title}]({name}.md) | {len(topic.questions)} | "
                     + " | ".join(str(by_level[d]) for d in (1, 2, 3)) + " |")
    return "\n".join([*lines, "", f"[{w['checklist']}](../checklist.md)", ""])


def topic_page(bank: Bank, topic: str, lang: str) -> str:
    questions = bank.topics[topic].questions
    lines = [f"# {tr(bank.topics[topic].title, lang)}", "", WORDS[lang]["topic_intro"].format(n=len(questions)), ""]
    for n, q in enumerate(questions, 1):
        lines += question_section(q, n, bank, lang)
    return "\n".join(lines)


def question_section(q: Question, n: int, bank: Bank, lang: str) -> list[str]:
    """The question and its metadata in the open; the answer, rubric and mistakes folded, to try first."""
    w, i = WORDS[lang], LANGS.index(lang)
    answer = getattr(q.answer, lang)
    tags = " · ".join(skill_name(t, lang) for t in q.tags)
    lines = [f"## {n}. {tr(q.question, lang)} {{#{q.id}}}", "",
             f"**{w['difficulty']}** {stars(q.difficulty)} · **{w['type']}** {TYPES[q.type.value][i]} · "
             f"**{w['level']}** {LEVELS[q.level.value][i]} · **{w['tags']}** {tags} · **{w['id']}** `{q.id}`", ""]
    body = [f"**{w['essence']}**{w['sep']}{esc(answer.essence)}", ""]
    body += [f"{k}. {esc(part)}" for k, part in enumerate(answer.parts, 1)]
    lines += [f'??? note "{w["answer"]}"', "", *indent(body), ""]
    lines += [f'??? success "{w["key_points"]}"', "", *indent([f"- {tr(k, lang)}" for k in q.key_points]), ""]
    if q.mistakes:
        lines += [f'??? warning "{w["mistakes"]}"', "", *indent([f"- {tr(m, lang)}" for m in q.mistakes]), ""]
    if q.follow_ups:
        lines += [f"**{w['follow_ups']}**", "", *[f"- {follow_up(f, q, bank, lang)}" for f in q.follow_ups], ""]
    if q.labs:
        lines += [f"**{w['labs']}**{w['sep']}" + " · ".join(lab_link(lab, "../labs/") for lab in q.labs), ""]
    if q.katas:
        lines += [f"**{w['katas']}**{w['sep']}" + " · ".join(f"[{k}](../katas.md#{k})" for k in q.katas), ""]
    if q.references:
        lines += [f"**{w['refs']}**", "", *[f"- [{esc(r.title)}]({url(r.url)})" for r in q.references], ""]
    return lines


def follow_up(f: str | Text, q: Question, bank: Bank, lang: str) -> str:
    """A follow-up id links to that question's anchor (on this page or its topic page); text stays text."""
    if isinstance(f, Text):
        return tr(f, lang)
    if f not in bank.by_id:  # a dangling id: `python -m question_bank check` reports it; show it as it is
        return f"`{f}`{WORDS[lang]['missing']}"
    page = "" if bank.topic_of[f] == bank.topic_of[q.id] else f"{bank.topic_of[f]}.md"
    return f"[{tr(bank.by_id[f].question, lang)}]({page}#{f})"


# ---- checklist -------------------------------------------------------------------------------------------------
def checklist_page(bank: Bank, lang: str) -> str:
    w = WORDS[lang]
    lines = [f"# {w['checklist']}", "", w["checklist_intro"], ""]
    for n, item in enumerate(load_checklist(), 1):
        lines += checklist_item(item, n, bank, lang)
    return "\n".join(lines)


def checklist_item(item: Item, n: int, bank: Bank, lang: str) -> list[str]:
    w = WORDS[lang]
    lines = [f"## {n}. {esc(getattr(item, lang))} {{#{item.id}}}", "",
             f"**{w['skills']}**{w['sep']}" + " · ".join(skill_name(s, lang) for s in item.skills), ""]
    if item.labs:
        lines += [f"**{w['labs']}**{w['sep']}" + " · ".join(lab_link(lab, "labs/") for lab in item.labs), ""]
    questions = questions_for(item, bank)
    if questions:
        links = [f"- {question_link(q, bank, lang, 'questions/')}" for q in questions]
        lines += [f'??? abstract "{w["questions"].format(n=len(questions))}"', "", *indent(links), ""]
    return lines


# ---- labs ------------------------------------------------------------------------------------------------------
def lab_questions(bank: Bank, lab: str) -> list[Question]:
    return [q for q in bank.questions if lab in q.labs]


def lab_index(bank: Bank, lang: str) -> str:
    w = WORDS[lang]
    lines = [f"# {w['lab_list']}", "", w["lab_intro"], "",
             f"| {w['lab']} | {w['description']} | {w['count']} |", "|---|---|---:|"]
    for lab, description in LABS.items():
        cell = esc(description).replace("|", r"\|")
        lines.append(f"| [{lab}]({lab}.md) | {cell} | {len(lab_questions(bank, lab))} |")
    return "\n".join([*lines, ""])


def kata_page(bank: Bank, lang: str) -> str:
    """Every kata: its title, ranks, the commands, the task as its stub states it, and the questions it answers."""
    w = WORDS[lang]
    lines = [f"# {w['katas']}", "", w["kata_intro"], "", f"| kata | {w['kata_ranks']} | {w['kata_questions']} |",
             "|---|---:|---|"]
    lines += [f"| [{k.title(lang)}](#{k.name}) | {k.nproc} | {len(k.questions)} |" for k in all_katas().values()]
    for k in all_katas().values():
        lines += ["", *kata_section(k, bank, lang)]
    return "\n".join([*lines, ""])


def kata_section(k: Kata, bank: Bank, lang: str) -> list[str]:
    w = WORDS[lang]
    task = ast.get_docstring(ast.parse(k.stub())) or ""
    lines = [f"## {esc(k.title(lang))} {{#{k.name}}}", "", f"`{k.name}` · {w['kata_ranks']} {k.nproc}", "",
             "```bash", f"python -m labs.kata start {k.name}", f"python -m labs.kata check {k.name}", "```", "",
             f'??? info "{w["kata_task"]}"', "", *indent(["```text", task.replace("```", "\'\'\'"), "```"]), ""]
    questions = [bank.by_id[q] for q in k.questions if q in bank.by_id]
    if questions:
        lines += [f"**{w['kata_questions']}**", "", *[f"- {question_link(q, bank, lang, 'questions/')}"
                                                      for q in questions], ""]
    return lines


def lab_page(bank: Bank, lab: str, lang: str) -> str:
    """A lab without a hand-written page: its registry line, its docstring (the commands), its questions."""
    w = WORDS[lang]
    source = LABS_DIR / f"{lab}.py"
    docstring = ast.get_docstring(ast.parse(source.read_text(encoding="utf-8"))) if source.exists() else None
    lines = [f"# {w['lab_title'].format(name=lab)}", "", f"> {esc(LABS[lab])}", "",
             f"**{w['run']}**{w['sep']}`.venv/bin/python -m labs.run {lab} --help`", ""]
    if docstring:
        lines += [f"## {w['lab_doc'].format(name=lab)}", "", "```text", docstring.replace("```", "'''"), "```", ""]
        if "torchrun" in docstring:
            lines += [w["scale"], ""]
    else:
        lines += [w["lab_missing"].format(name=lab), ""]
    return "\n".join(lines + real_run(lab, lang)) + related_questions(bank, lab, lang)


def real_run(lab: str, lang: str) -> list[str]:
    """The plot and the headline figures of a real run, when docs/assets/labs/ has them (copied from runs/)."""
    w, assets = WORDS[lang], Path(__file__).parents[1] / "assets" / "labs"
    lines = []
    if (assets / f"{lab}.png").exists():
        lines += [f"## {w['real_run']}", "", f"![{lab}](../assets/labs/{lab}.png)", ""]
    if (assets / f"{lab}.json").exists():
        figures = json.loads((assets / f"{lab}.json").read_text(encoding="utf-8"))
        lines += [f"| {w['figure']} | {w['value']} |", "|---|---|"]
        lines += [f"| `{k}` | {esc(json.dumps(v, ensure_ascii=False))[:200]} |" for k, v in figures.items()]
        lines.append("")
    return lines


def related_questions(bank: Bank, lab: str, lang: str) -> str:
    """The bank's questions that cite the lab, folded, to end its page (generated or hand-written)."""
    questions = lab_questions(bank, lab)
    if not questions:
        return ""
    title = WORDS[lang]["questions"].format(n=len(questions))
    links = [f"- {question_link(q, bank, lang, '../questions/')}" for q in questions]
    return "\n".join(["", "", f'??? abstract "{title}"', "", *indent(links), ""])
