"""The bank's validator: every problem in the topic files, each with its file, line and field.

Beyond the schema it checks what pydantic cannot see: tags against the taxonomy, ids across files,
follow-up and lab links, blank text, every `verified_by` number against `labs.core.theory`, and every
figure of an answer against the question, `verified_by` and `cited` (see `question_bank.figures`).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from labs.core import theory
from labs.kata.catalog import all_katas
from labs.registry import LABS
from question_bank.figures import answer_text, read_baseline, uncited
from question_bank.loader import Loc, YamlDoc, read_yaml, topic_paths
from question_bank.rubric import find_term, generic_reason, normalise
from question_bank.schema import Question, TopicFile
from question_bank.taxonomy import skill_ids


@dataclass(frozen=True)
class Problem:
    file: str
    line: int
    field: str     # dotted path, e.g. questions[3].answer.en.essence; "" for the file as a whole
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.field + ': ' if self.field else ''}{self.message}"


@dataclass(frozen=True)
class _Found:
    """A schema-valid question and where it sits, for the checks that span files."""
    doc: YamlDoc
    index: int
    question: Question


def format_loc(loc: Loc) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")


def _problem(doc: YamlDoc, loc: Loc, message: str) -> Problem:
    return Problem(str(doc.path), doc.line_of(loc), format_loc(loc), message)


def check_bank(path: Path | str | None = None) -> list[Problem]:
    """Check every topic file under `path` (default: the package's questions/); [] means the bank is good."""
    problems: list[Problem] = []
    found: list[_Found] = []
    for file in topic_paths(Path(path) if path else None):
        file_problems, file_found = _check_file(file)
        problems += file_problems
        found += file_found
    problems += _check_links(found)
    problems += _check_rubric(found)
    if path is None:  # the shipped bank: every kata's questions exist and link the kata back
        problems += _check_kata_links(found)
    return problems


def _check_file(path: Path) -> tuple[list[Problem], list[_Found]]:
    try:
        doc = read_yaml(path)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
        line = mark.line + 1 if mark else 1
        return [Problem(str(path), line, "", f"bad YAML: {getattr(e, 'problem', None) or e}")], []
    problems = [Problem(str(path), line, format_loc(loc), "key repeated; YAML keeps only the last")
                for loc, line in doc.duplicate_keys]
    if not isinstance(doc.data, dict):
        return [*problems, _problem(doc, (), "expected a mapping with topic, title and questions")], []
    if doc.data.get("topic") != path.stem:
        problems.append(_problem(doc, ("topic",), f"topic must equal the file name {path.stem!r}"))
    try:
        topic = TopicFile.model_validate(doc.data)
        questions = list(enumerate(topic.questions))
    except ValidationError as e:
        problems += _schema_problems(doc, e)
        questions = list(_valid_questions(doc.data.get("questions")))
    found = [_Found(doc, i, q) for i, q in questions]
    for f in found:
        problems += [_problem(doc, loc, msg) for loc, msg in _check_question(f)]
    return problems, found


def _valid_questions(raw: Any) -> Iterator[tuple[int, Question]]:
    """The questions that pass the schema on their own, so one broken question hides no other's problems."""
    for i, item in enumerate(raw if isinstance(raw, list) else []):
        try:
            yield i, Question.model_validate(item)
        except ValidationError:
            pass  # already reported by the file's validation


def _schema_problems(doc: YamlDoc, error: ValidationError) -> list[Problem]:
    found: dict[tuple[int, str], list[str]] = {}
    union_branches: dict[Loc, list[tuple[Loc, dict]]] = {}
    for e in error.errors():
        if e["loc"] == ("questions",) and "duplicate question id" in e["msg"]:
            continue  # the id check below reports it at the duplicate's own line
        loc, union_at = _data_loc(doc.data, e["loc"], e["type"])
        if union_at is not None:
            union_branches.setdefault(union_at, []).append((loc, e))
        else:
            _add(found, doc, loc, e)
    for branches in union_branches.values():
        # For `str | Text`, a dict missing `en` also fails "should be a valid string"; keep the telling error.
        telling = [(loc, e) for loc, e in branches if not e["type"].endswith("_type")] or branches
        for loc, e in telling:
            _add(found, doc, loc, e)
    return [Problem(str(doc.path), line, field, "; ".join(msgs)) for (line, field), msgs in found.items()]


def _add(found: dict[tuple[int, str], list[str]], doc: YamlDoc, loc: Loc, e: dict) -> None:
    message = e["msg"]
    if e["type"] != "missing" and isinstance(e.get("input"), str | int | float | bool):
        message += f" (got {e['input']!r})"
    messages = found.setdefault((doc.line_of(loc), format_loc(loc)), [])
    if message not in messages:
        messages.append(message)


def _data_loc(data: Any, loc: Loc, err_type: str) -> tuple[Loc, Loc | None]:
    """Pydantic's `loc` without the segments that are not data keys (union members such as "str" or
    "Text"); also returns where such a segment was dropped, or None."""
    out: list[str | int] = []
    union_at: Loc | None = None
    node = data
    for i, seg in enumerate(loc):
        if _has(node, seg):
            node = node[seg]
            out.append(seg)
        elif i == len(loc) - 1 and err_type == "missing":
            out.append(seg)
        elif union_at is None:
            union_at = tuple(out)
    return tuple(out), union_at


def _has(node: Any, seg: str | int) -> bool:
    if isinstance(node, dict):
        return seg in node
    return isinstance(node, list) and isinstance(seg, int) and 0 <= seg < len(node)


def _check_question(f: _Found) -> Iterator[tuple[Loc, str]]:
    q, at = f.question, ("questions", f.index)
    known = set(skill_ids())
    for j, tag in enumerate(q.tags):
        if tag not in known:
            yield (*at, "tags", j), f"unknown tag {tag!r} (not a skill id in taxonomy.yaml)"
    for j, lab in enumerate(q.labs):
        if lab not in LABS:
            yield (*at, "labs", j), f"unknown lab {lab!r} (labs: {', '.join(sorted(LABS))})"
    for j, kata in enumerate(q.katas):
        if kata not in all_katas():
            yield (*at, "katas", j), f"unknown kata {kata!r} (katas: {', '.join(all_katas())})"
        elif q.id not in all_katas()[kata].questions:
            yield (*at, "katas", j), f"kata {kata!r} does not name this question in its questions (labs/kata/{kata})"
    yield from _blank_texts(f.doc.data["questions"][f.index], at)
    yield from _check_numbers(q, at)
    yield from _check_cited(q, at)


def _check_cited(q: Question, at: Loc) -> Iterator[tuple[Loc, str]]:
    for k, c in enumerate(q.cited):
        here = (*at, "cited", k)
        for lang in ("zh", "en"):
            if c.shown not in answer_text(q, lang):
                yield (*here, "shown"), f"{c.shown!r} does not appear in the {lang} answer (essence + parts)"
        if c.ref >= len(q.references):
            yield (*here, "ref"), f"no reference {c.ref} (the question has {len(q.references)})"
    legacy = read_baseline()
    for fig in uncited(q):
        if (q.id, fig) not in legacy:
            yield (*at, "answer"), (f"figure {fig!r} is neither in the question, nor verified_by, nor cited "
                                    "(add a verified_by or a cited entry naming its reference)")


def _blank_texts(raw: Any, loc: Loc) -> Iterator[tuple[Loc, str]]:
    # The schema's min_length rejects "", but not "  ", nor "" inside lists such as answer parts.
    if isinstance(raw, str) and not raw.strip():
        yield loc, "empty text"
    elif isinstance(raw, dict):
        for key, value in raw.items():
            yield from _blank_texts(value, (*loc, key))
    elif isinstance(raw, list):
        for i, value in enumerate(raw):
            yield from _blank_texts(value, (*loc, i))


def _theory_fn(name: str) -> Any:
    fn = getattr(theory, name, None)
    ok = inspect.isfunction(fn) and fn.__module__ == theory.__name__ and not name.startswith("_")
    return fn if ok else None


def _check_numbers(q: Question, at: Loc) -> Iterator[tuple[Loc, str]]:
    answers = {"zh": " ".join([q.answer.zh.essence, *q.answer.zh.parts]),
               "en": " ".join([q.answer.en.essence, *q.answer.en.parts])}
    for k, c in enumerate(q.verified_by):
        here = (*at, "verified_by", k)
        for lang, text in answers.items():
            if c.shown not in text:
                yield (*here, "shown"), f"{c.shown!r} does not appear in the {lang} answer (essence + parts)"
        fn = _theory_fn(c.fn)
        if fn is None:
            yield (*here, "fn"), f"labs.core.theory has no function {c.fn!r}"
            continue
        try:
            value = fn(**c.args)
        except Exception as e:  # the args come from YAML; any failure is the entry's fault
            yield (*here, "args"), f"{c.fn}(**args) raised {type(e).__name__}: {e}"
            continue
        if isinstance(value, dict) and c.key not in value:
            yield (*here, "key"), f"{c.fn} returns a dict; key must be one of {sorted(value)}"
            continue
        if not isinstance(value, dict) and c.key is not None:
            yield (*here, "key"), f"{c.fn} returns a number; remove key"
            continue
        got = (value[c.key] if isinstance(value, dict) else value) * c.scale
        if not math.isclose(got, c.expect, rel_tol=c.rtol):
            yield (*here, "expect"), f"{c.fn}(...) gives {got:.6g}, not {c.expect:g} (rtol {c.rtol:g})"


def _check_links(found: list[_Found]) -> list[Problem]:
    problems: list[Problem] = []
    first: dict[str, _Found] = {}
    for f in found:
        if f.question.id in first:
            other = first[f.question.id]
            where = f"{other.doc.path.name}:{other.doc.line_of(('questions', other.index, 'id'))}"
            problems.append(_problem(f.doc, ("questions", f.index, "id"), f"duplicate id, first at {where}"))
        else:
            first[f.question.id] = f
    for f in found:
        for j, follow in enumerate(f.question.follow_ups):
            if isinstance(follow, str) and follow not in first:
                loc = ("questions", f.index, "follow_ups", j)
                problems.append(_problem(f.doc, loc, f"follow-up {follow!r} is not a question id"))
    return problems


def _check_kata_links(found: list[_Found]) -> list[Problem]:
    by_id = {f.question.id: f for f in found}
    problems = []
    for kata in all_katas().values():
        for qid in kata.questions:
            f = by_id.get(qid)
            where = f"labs/kata/{kata.name}/__init__.py"
            if f is None:
                problems.append(Problem(where, 1, "questions", f"kata {kata.name!r} names {qid!r}, not a question id"))
            elif kata.name not in f.question.katas:
                problems.append(_problem(f.doc, ("questions", f.index, "id"),
                                         f"kata {kata.name!r} answers this question: add it to `katas`"))
    return problems


MIN_OTHERS = 5


def _answer_text(q: Question) -> str:
    return " ".join([q.answer.zh.essence, *q.answer.zh.parts, q.answer.en.essence, *q.answer.en.parts])


def _squash(text: str) -> str:
    return "".join(normalise(text).lower().split()).replace("-", "")


def _check_rubric(found: list[_Found]) -> list[Problem]:
    """The rubric rules of the module docstring, for every key point of every question."""
    answers = [(f.question.id, _answer_text(f.question)) for f in found]
    squashed = [(qid, _squash(text)) for qid, text in answers]
    problems = []
    for f in found:
        q, at = f.question, ("questions", f.index)
        asked = q.question.zh + " " + q.question.en
        others = [(text, sq) for (qid, text), (_, sq) in zip(answers, squashed, strict=True) if qid != q.id]
        for k, kp in enumerate(q.key_points):
            here = (*at, "key_points", k)
            if kp.legacy_terms:
                problems.append(_problem(f.doc, here, "v1 `terms`: write `groups` of synonyms (schema v2)"))
                continue
            for g, group in enumerate(kp.groups):
                for j, term in enumerate(group):
                    if reason := generic_reason(term, _share(term, others)):
                        loc = (*here, "groups", g, j)
                        problems.append(_problem(f.doc, loc, f"{term!r} is too generic: {reason}"))
                if all(find_term(t, asked) for t in group):
                    problems.append(_problem(f.doc, (*here, "groups", g),
                                             f"every synonym of {group} is in the question text: not evidence"))
        for m, mistake in enumerate(q.mistakes):
            if mistake.point is not None and mistake.point >= len(q.key_points):
                problems.append(_problem(f.doc, (*at, "mistakes", m, "point"),
                                         f"no key point {mistake.point} (the question has {len(q.key_points)})"))
    return problems


def _share(term: str, others: list[tuple[str, str]]) -> float:
    """The share of `others` (answer, squashed answer) that contain the term; the squashed text skips most.
    0 for a bank of fewer than `MIN_OTHERS` other questions, where a share says nothing."""
    if len(others) < MIN_OTHERS:
        return 0.0
    key = _squash(term)
    hits = sum(1 for text, sq in others if key in sq and find_term(term, text))
    return hits / max(1, len(others))
