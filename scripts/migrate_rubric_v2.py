"""One-off migration of the bank's key points from v1 `terms` (any one covered the point) to v2 concept groups.

    python scripts/migrate_rubric_v2.py            # rewrites question_bank/questions/*.yaml in place

Per key point: a bare number becomes a fact with the unit the reference answer writes next to it (dropped when it
writes none); terms too generic to be evidence (`question_bank.rubric.generic_reason`) and words of the question
text are dropped; spellings of one term, and aliases of one taxonomy skill, become one group; two groups left, one
Chinese and one Latin, are a translation pair and become one group; three or more need any two (`min_groups: 2`).
Only the key-point lines change, so the files keep their layout. Points left empty are printed to fix by hand.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

from question_bank.loader import QUESTIONS_DIR, load_bank
from question_bank.rubric import CJK, UNITS, find_term, generic_reason, is_bare_number, normalise, numbers
from question_bank.taxonomy import load_taxonomy

LINE = re.compile(r"^(?P<indent>\s+- )(?P<body>\{zh: .*terms: \[.*\}\s*)$")


def answer_text(q) -> str:
    return " ".join([q.answer.zh.essence, *q.answer.zh.parts, q.answer.en.essence, *q.answer.en.parts])


def fact_for(term: str, answer: str) -> dict | None:
    """The number as the answer writes it with a unit: {value, unit}; None when it never has one."""
    value = float(term.replace(",", ""))
    for n in numbers(answer):
        m = re.match(r"(?P<num>[\d.,]+)\s?(?P<unit>.*)$", n.text)
        if n.dimension and m and float(m.group("num").replace(",", "")) == value and m.group("unit") in UNITS:
            return {"value": int(value) if value == int(value) else value, "unit": m.group("unit")}
    return None


def skill_of(term: str) -> str | None:
    key = normalise(term).lower().strip()
    for sid, s in load_taxonomy().skills.items():
        if key in {normalise(a).lower().strip() for a in s.aliases}:
            return sid
    return None


def migrate_point(kp: dict, q, answers: dict[str, str]) -> dict:
    answer = answer_text(q)
    question = q.question.zh + " " + q.question.en
    others = [t for i, t in answers.items() if i != q.id]
    facts, kept = [], []
    for term in kp["terms"]:
        term = str(term)
        if is_bare_number(term):
            if (f := fact_for(term, answer)) and f not in facts:
                facts.append(f)
            continue
        share = sum(1 for t in others if find_term(term, t)) / len(others)
        if generic_reason(term, share) or find_term(term, question):
            continue
        kept.append(term)
    groups: list[list[str]] = []
    for term in kept:
        key, skill = normalise(term).lower(), skill_of(term)
        for g in groups:
            if any(normalise(t).lower() in key or key in normalise(t).lower() or (skill and skill_of(t) == skill)
                   for t in g):
                g.append(term)
                break
        else:
            groups.append([term])
    if len(groups) == 2 and len(facts) == 0:
        scripts = [all(bool(CJK.search(t)) for t in g) for g in groups]
        if scripts[0] != scripts[1]:
            groups = [groups[0] + groups[1]]
    out = {"zh": kp["zh"], "en": kp["en"]}
    if groups:
        out["groups"] = groups
    if len(groups) + len(facts) >= 3:
        out["min_groups"] = 2
    if facts:
        out["facts"] = facts
    return out


def main() -> int:
    bank = load_bank()
    answers = {q.id: answer_text(q) for q in bank.questions}
    empty = 0
    for path in sorted(Path(QUESTIONS_DIR).glob("*.yaml")):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        qid = None
        for i, line in enumerate(lines):
            if m := re.match(r"^\s+- id: (\S+)", line):
                qid = m.group(1)
            if not (m := LINE.match(line)):
                continue
            kp = yaml.safe_load(m.group("body"))
            new = migrate_point(kp, bank.by_id[qid], answers)
            if "groups" not in new and "facts" not in new:
                empty += 1
                print(f"{path.name}: {qid}: {kp['en']!r} has no term left: {kp['terms']}", file=sys.stderr)
                new["groups"] = [[str(t) for t in kp["terms"]]]  # kept for hand-fixing; `check` rejects it
            body = yaml.dump(new, default_flow_style=True, allow_unicode=True, sort_keys=False, width=100_000)
            lines[i] = m.group("indent") + body.strip() + "\n"
        path.write_text("".join(lines), encoding="utf-8")
    print(f"{empty} key point(s) to fix by hand", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
