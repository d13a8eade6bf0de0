"""JD analysis: which taxonomy skills a job description asks for, required or preferred, and how well a
résumé version covers them, with the gaps linked to bank questions and labs.

Coverage counts curated taxonomy skills only (`question_bank/taxonomy.yaml`, both languages and their
synonyms, plus `coach.skills` rules: 断点续训 covers "checkpoint resume", ZeRO-3 covers FSDP). Free keyword
extraction (jieba tf-idf) only proposes candidate new taxonomy terms in `JDAnalysis.candidates`; it never
counts toward coverage, because an unreviewed word list would reward keyword stuffing.
"""

from __future__ import annotations

import logging
import re
import warnings
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType

from coach.skills import covered_skills, skill_name, stated_skills
from question_bank.loader import Bank, load_bank
from question_bank.taxonomy import alias_pattern, load_taxonomy

REQUIRED, PREFERRED = "required", "preferred"
REQUIRED_WEIGHT = 2.0   # a required skill counts twice a preferred one
PREFERRED_WEIGHT = 1.0
QUESTIONS_PER_GAP = 5

_PREFERRED = re.compile(
    r"优先(?!级)|加分|更佳|为佳|者更好|\bplus\b|\bbonus\b|\bpreferred\b|nice[\s-]to[\s-]have|\bdesirable\b|"
    r"\bideally\b|\badvantage(?:ous)?\b",
    re.IGNORECASE,
)
_REQUIRED = re.compile(
    r"熟悉|精通|掌握|要求|必须|必备|具备|熟练|扎实|深入理解|\brequired?\b|\brequirements?\b|\bmust\b|"
    r"\bproficien(?:t|cy)\b|\bstrong\b|\bsolid\b|\bexpert(?:ise)?\b|\bdeep understanding\b|\bqualifications?\b",
    re.IGNORECASE,
)
_LIST_NUMBER = re.compile(r"^[(（]?\d{1,2}[.、)）]\s*")
_HARD_REQUIRED = re.compile(r"必须|必备|\bmust\b|\brequired\b", re.IGNORECASE)
# Section headers that set the level of the lines under them (职责 = what the job is: required).
_HEADER_REQUIRED = re.compile(r"职责|资格|要求|条件|responsibilit|qualification|requirement|what you", re.IGNORECASE)
_HEADER = re.compile(r"^\s*(?:#+\s*)?(?P<head>[^:：。；;]{1,40}?)\s*[:：]\s*(?P<rest>.*)$")
# Sentence ends (Chinese punctuation; a period after a word, not "1."), and list numbers inside a line.
_SENTENCE = re.compile(r"(?<=[。；;！？!?])|(?<=[A-Za-z)]\.)\s+|\s+(?=\(?\d{1,2}[.、)）]\s*\S)")


@dataclass(frozen=True)
class Clause:
    text: str
    level: str  # required | preferred


@dataclass(frozen=True)
class SkillMention:
    skill_id: str
    level: str
    aliases: tuple[str, ...]  # as the JD wrote them
    clauses: tuple[str, ...]  # where


@dataclass
class JDAnalysis:
    text: str
    required: dict[str, SkillMention]
    preferred: dict[str, SkillMention]
    candidates: list[str] = field(default_factory=list)  # proposed new taxonomy terms; never counted

    @property
    def skills(self) -> dict[str, SkillMention]:
        return {**self.required, **self.preferred}  # required first; disjoint (see analyze_jd)


def analyze_jd(text: str, propose: bool = True) -> JDAnalysis:
    """Split the JD into clauses, mark each required or preferred, and collect the skills of each.

    A clause is preferred when it says so (优先 / 加分 / plus / nice to have / preferred), required when it
    says 熟悉 / 精通 / 掌握 / 要求 / 必须 / required / must / proficient ..., and otherwise takes the level of
    its section header (任职要求 / 加分项 / Requirements / Nice to have); with no header, required. Under a
    preferred header only a hard 必须 / must / required makes a clause required. A sentence with both kinds
    of phrase is judged comma part by comma part. A skill named at both levels is required.
    """
    hits: dict[str, dict[str, tuple[list[str], list[str]]]] = {REQUIRED: {}, PREFERRED: {}}
    for clause in clauses(text):
        for skill_id, aliases in stated_skills(clause.text).items():
            seen_aliases, where = hits[clause.level].setdefault(skill_id, ([], []))
            seen_aliases += [a for a in aliases if a not in seen_aliases]
            where.append(clause.text)
    required = {k: SkillMention(k, REQUIRED, tuple(a), tuple(w)) for k, (a, w) in hits[REQUIRED].items()}
    preferred = {
        k: SkillMention(k, PREFERRED, tuple(a), tuple(w)) for k, (a, w) in hits[PREFERRED].items() if k not in required
    }
    return JDAnalysis(text, required, preferred, propose_terms(text) if propose else [])


def clauses(text: str) -> list[Clause]:
    """The JD's sentences with their level (see `analyze_jd`)."""
    out: list[Clause] = []
    mode = REQUIRED
    for line in text.splitlines():
        level, line = _split_header(line)
        mode = level or mode
        for sentence in _SENTENCE.split(line):
            out += _classify(_LIST_NUMBER.sub("", sentence.strip()), mode)
    return [c for c in out if c.text]


def _split_header(line: str) -> tuple[str | None, str]:
    """A section header's level and what follows it on the line: "任职要求：1. 熟悉 ..." -> (required, "1. 熟悉 ...");
    a bare header line ("加分项", "## Nice to have") -> (preferred, "")."""
    m = _HEADER.match(line)
    if m and not stated_skills(m.group("head")) and (level := _header_level(m.group("head"))):
        return level, m.group("rest")
    bare = line.strip().lstrip("#").strip().rstrip(":：").strip()
    if bare and len(bare) <= 30 and not stated_skills(bare) and (level := _header_level(bare)):
        return level, ""
    return None, line


def _header_level(head: str) -> str | None:
    if _PREFERRED.search(head):
        return PREFERRED
    if _HEADER_REQUIRED.search(head):
        return REQUIRED
    return None


def _classify(sentence: str, mode: str) -> list[Clause]:
    """A preferred phrase makes the sentence preferred; under a preferred header only a hard requirement
    (必须 / must / required) makes it required, since 熟悉 / familiar is how every JD line starts."""
    pref, req = bool(_PREFERRED.search(sentence)), bool(_REQUIRED.search(sentence))
    if pref and req:  # "必须熟悉 PyTorch，有 Megatron 经验者优先": judge each comma part on its own
        parts = [p.strip() for p in re.split(r"[，,]", sentence) if p.strip()]
        if len(parts) > 1:
            return [c for p in parts for c in _classify(p, mode)]
    if pref:
        level = PREFERRED
    elif mode == PREFERRED:
        level = REQUIRED if _HARD_REQUIRED.search(sentence) else PREFERRED
    else:
        level = REQUIRED
    return [Clause(sentence, level)]


# ---- coverage -------------------------------------------------------------------------------------------


@dataclass
class Coverage:
    percent: float | None                # None when the JD names no taxonomy skill
    covered: dict[str, list[str]]        # skill id -> the résumé's evidence ("ZeRO-3 ≈" for an equivalent)
    missing_required: list[str]
    missing_preferred: list[str]


def coverage(jd: JDAnalysis, resume_text: str) -> Coverage:
    """Keyword coverage of one résumé version against the JD, weighted:

        percent = 100 × (2·|R ∩ C| + 1·|P ∩ C|) / (2·|R| + 1·|P|)

    R = the JD's required skills, P = its preferred skills (a skill in both is in R only), C = the skills the
    résumé covers (stated, implied or by an equivalent tool; see `coach.skills`). Free keywords never count.
    """
    have = covered_skills(resume_text)
    covered = {k: have[k] for k in jd.skills if k in have}
    total = REQUIRED_WEIGHT * len(jd.required) + PREFERRED_WEIGHT * len(jd.preferred)
    got = REQUIRED_WEIGHT * sum(k in have for k in jd.required) + PREFERRED_WEIGHT * sum(
        k in have for k in jd.preferred
    )
    return Coverage(
        round(100 * got / total, 1) if total else None,
        covered,
        [k for k in jd.required if k not in have],
        [k for k in jd.preferred if k not in have],
    )


@dataclass(frozen=True)
class Gap:
    skill_id: str
    name_zh: str
    name_en: str
    level: str                         # required | preferred
    kind: str                          # unstated: in the master résumé, not in this version | missing: in neither
    master_lines: tuple[str, ...]      # the master résumé's lines that state it (to copy into this version)
    questions: tuple[str, ...]         # bank question ids tagged with the skill, to practise
    labs: tuple[str, ...]              # labs those questions point to


UNSTATED, MISSING = "unstated", "missing"


def gaps(jd: JDAnalysis, version_text: str, master_text: str | None = None, bank: Bank | None = None) -> list[Gap]:
    """The JD's skills this version does not cover, required first: "unstated" when the master résumé
    has it (you have it but didn't say it), else "missing". Each links bank questions (by tag) and labs."""
    bank = bank or _default_bank()
    cov = coverage(jd, version_text)
    master_lines = _lines_by_skill(master_text or "")
    out: list[Gap] = []
    for level, missing in ((REQUIRED, cov.missing_required), (PREFERRED, cov.missing_preferred)):
        for skill_id in missing:
            lines = master_lines.get(skill_id, [])
            questions, labs = practice_for(skill_id, bank)
            out.append(Gap(
                skill_id, skill_name(skill_id, "zh"), skill_name(skill_id, "en"), level,
                UNSTATED if lines else MISSING, tuple(lines), tuple(questions), tuple(labs),
            ))
    return out


def practice_for(skill_id: str, bank: Bank | None = None,
                 limit: int = QUESTIONS_PER_GAP) -> tuple[list[str], list[str]]:
    """Bank questions tagged `skill_id` (those where it is the first tag first, then easier first), and the
    labs of all of them."""
    bank = bank or _default_bank()
    tagged = [q for q in bank.questions if skill_id in q.tags]
    ranked = sorted(tagged, key=lambda q: (q.tags.index(skill_id) > 0, q.difficulty))
    labs = sorted({lab for q in tagged for lab in q.labs})
    return [q.id for q in ranked[:limit]], labs


def _lines_by_skill(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        clean = line.strip().lstrip("#-*•· ").strip()
        for skill_id in covered_skills(clean):
            out.setdefault(skill_id, []).append(clean)
    return out


@cache
def _default_bank() -> Bank:
    return load_bank()


@dataclass
class MatchReport:
    jd: JDAnalysis
    coverage: Coverage
    gaps: list[Gap]


def match(jd_text: str, version_text: str, master_text: str | None = None, bank: Bank | None = None) -> MatchReport:
    """Analyse a JD against one résumé version (and the master, for "you have it but didn't say it")."""
    jd = analyze_jd(jd_text)
    return MatchReport(jd, coverage(jd, version_text), gaps(jd, version_text, master_text, bank))


# ---- candidate new taxonomy terms -------------------------------------------------------------------------

_STOP = frozenset(
    "岗位职责 任职要求 职位描述 岗位要求 分布式 稳定性 优先 加分 经验 能力 负责 相关 以上 团队 工作 开发 "
    "岗位 职责 要求 任职 熟悉 精通 掌握 具备 良好 优秀 沟通 "
    "理解 使用 参与 设计 实现 优化 模型 训练 大模型 方案 系统 技术 问题 框架 建设 规模 调度 业务 公司 能够 学历 "
    "本科 硕士 博士 专业 计算机 年限 职位 加分项 经历 场景 方向 领域 产品 平台 研发 工程师 "
    "experience experiences strong solid good excellent ability skills skill knowledge understanding team work "
    "nice have plus bonus preferred required requirements qualifications years year degree with and or the "
    "for of in to on a an is are be we you our your will who what about role job including such as etc".split()
)


@cache
def _alias_patterns() -> tuple[re.Pattern[str], ...]:
    aliases = {a for s in load_taxonomy().skills.values() for a in s.aliases}
    return tuple(alias_pattern(a) for a in sorted(aliases, key=len, reverse=True))


@cache
def _jieba() -> ModuleType:
    with warnings.catch_warnings():
        # jieba 0.42 predates current Python: invalid escapes, pkg_resources deprecation.
        for category in (DeprecationWarning, SyntaxWarning, UserWarning):
            warnings.simplefilter("ignore", category)
        import jieba
        import jieba.analyse
    jieba.setLogLevel(logging.WARNING)  # silence "Building prefix dict..."
    return jieba


def propose_terms(text: str, top_k: int = 12) -> list[str]:
    """Words the JD stresses that the taxonomy does not know (Triton, JAX, 推理加速 ...): proposals for a
    maintainer to add to `question_bank/taxonomy.yaml`, never counted in coverage. Known aliases are blanked
    out first, so neither they nor their fragments come back."""
    rest = text
    for p in _alias_patterns():
        rest = p.sub(" ", rest)
    tags = _jieba().analyse.extract_tags(rest, topK=top_k * 3, allowPOS=("n", "nz", "vn", "eng", "nt", "nrt", "nr"))
    out: list[str] = []
    for t in tags:
        t = t.strip()
        if len(t) < 2 or t.lower() in _STOP or t.isdigit() or stated_skills(t):
            continue
        if t.isascii() and not alias_pattern(t).search(rest):
            continue  # jieba cut a fragment out of a longer English word
        if t.lower() not in (o.lower() for o in out):
            out.append(t)
    return out[:top_k]
