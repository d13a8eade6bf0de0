"""Which taxonomy skills a text states: `question_bank.taxonomy.find_skills` plus a few rules of our own.

Three kinds of rule, kept apart because they are trusted differently:

- IMPLIED: a mention that states another skill as a matter of fact (resuming from a checkpoint means
  checkpointing). Safe for coverage and for the anti-fabrication check alike.
- EVIDENCE: what the user's own text shows without naming the skill ("64 张卡" is about GPUs). It backs a
  rewrite that says "GPU" and covers a JD's GPU requirement, but a JD that says 千卡 asks for no skill, so JD
  reading uses `stated_skills` only (precision).
- EQUIVALENT: a different tool for the same job, e.g. DeepSpeed ZeRO-3 and PyTorch FSDP (both shard
  parameters, gradients and optimizer states). It shows a JD's requirement is covered, but writing "FSDP"
  into a résumé that says ZeRO-3 would be a new claim, so the fact check does not accept it.
"""

from __future__ import annotations

import re

from question_bank.taxonomy import find_skills, load_taxonomy

# skill -> skills its mention implies.
IMPLIED: dict[str, tuple[str, ...]] = {
    "checkpoint_resume": ("checkpointing",),
}
# Evidence of a skill that the taxonomy's aliases miss: Chinese counts GPUs in 卡 (64 卡, 千卡, 多机多卡), and a
# résumé's "64 GPUs" is GPU work.
EVIDENCE: dict[str, tuple[re.Pattern[str], ...]] = {
    "gpu_hardware": (
        re.compile(r"\d+\s*(?:张|块)?\s*卡(?!死)|[千万百]卡|显卡|多卡|单卡|[一二两三四五六七八九十]+\s*[张块]\s*卡"),
        re.compile(r"(?<![A-Za-z])GPUs?(?![A-Za-z])"),  # a JD's bare "GPU" asks for nothing; a résumé's shows GPU work
    ),
}
# (skill, covered by these aliases of another skill, that skill): coverage only, see the module docstring.
EQUIVALENT: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("fsdp", ("ZeRO-3", "ZeRO-Infinity"), "zero"),
    ("zero", ("FSDP", "FSDP2", "fully_shard", "fully sharded data parallel", "全分片数据并行", "完全分片数据并行"),
     "fsdp"),
)


def stated_skills(text: str) -> dict[str, list[str]]:
    """Skill id -> evidence (aliases found, or "<alias> ⇒" for an implied skill) for what `text` states."""
    return _implied({k: list(v) for k, v in find_skills(text).items()})


def evidence_skills(text: str) -> dict[str, list[str]]:
    """`stated_skills` plus what the text shows without naming it (EVIDENCE): for the user's own texts."""
    found = {k: list(v) for k, v in find_skills(text).items()}
    for skill_id, patterns in EVIDENCE.items():
        for p in patterns:
            if m := p.search(text):
                found.setdefault(skill_id, []).append(m.group(0))
    return _implied(found)


def _implied(found: dict[str, list[str]]) -> dict[str, list[str]]:
    for skill_id in list(found):
        for implied in IMPLIED.get(skill_id, ()):
            found.setdefault(implied, []).append(f"{found[skill_id][0]} ⇒")
    return found


def covered_skills(text: str) -> dict[str, list[str]]:
    """`evidence_skills` plus skills covered by an equivalent tool ("ZeRO-3 ≈"), for a résumé's JD coverage only."""
    found = evidence_skills(text)
    for skill_id, aliases, via in EQUIVALENT:
        if skill_id in found or via not in found:
            continue
        wanted = {a.lower() for a in aliases}
        hits = [a for a in found[via] if a.lower() in wanted]
        if hits:
            found[skill_id] = [f"{hits[0]} ≈"]
    return found


def skill_name(skill_id: str, lang: str = "en") -> str:
    skill = load_taxonomy().skills.get(skill_id)
    if skill is None:
        return skill_id
    return skill.zh if lang == "zh" else skill.en
