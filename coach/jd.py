"""JD analysis: which taxonomy skills a job description asks for, required or preferred, and how well a
résumé version covers them, with the gaps linked to bank questions and labs.

Coverage counts curated taxonomy skills only (`question_bank/taxonomy.yaml`, both languages and their
synonyms, plus `coach.skills` rules: 断点续训 covers "checkpoint resume", ZeRO-3 covers FSDP). Free keyword
extraction (rules for what a technical term looks like; no jieba, so the first call stays fast) only proposes
candidate new taxonomy terms in `JDAnalysis.candidates`; it never
counts toward coverage, because an unreviewed word list would reward keyword stuffing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

from coach.names import EN_ORGS
from coach.skills import covered_skills, skill_name, stated_skills
from question_bank.taxonomy import alias_hits, load_taxonomy

if TYPE_CHECKING:  # the bank (pydantic models, 40 YAML files) is loaded only when gaps need questions
    from question_bank.loader import Bank

REQUIRED, PREFERRED = "required", "preferred"
REQUIRED_WEIGHT = 2.0   # a required skill counts twice a preferred one
PREFERRED_WEIGHT = 1.0
QUESTIONS_PER_GAP = 5

# A clause is preferred when it says so. 优先 only at a clause's end (者优先, 优先考虑): "优先保证稳定" is a duty.
_PREFERRED = re.compile(
    r"优先(?:考虑)?\s*[。；;，,.!！)）]*\s*$|者优先|优先考虑|加分|更佳|为佳|尤佳|者更好|会更好|最好(?:有|能|具备|熟悉)|"
    r"\ba\s+(?:big\s+|huge\s+|strong\s+|nice\s+|definite\s+)?plus\b|\bplus(?:es)?\s*[:：]|\bbonus\b|\bpreferred\b|"
    r"\bpreferably\b|\b(?:nice|good)[\s-]to[\s-]have\b|\bdesirable\b|\bideally\b|\badvantage(?:ous)?\b|\bhelpful\b|"
    r"\boptional\b|would\s+be\s+(?:great|nice|ideal)",
    re.IGNORECASE,
)
_REQUIRED = re.compile(
    r"熟悉|精通|掌握|要求|必须|必备|具备|熟练|扎实|深入理解|\brequired?\b|\brequirements?\b|\bmust\b|"
    r"\bproficien(?:t|cy)\b|\bstrong\b|\bsolid\b|\bexpert(?:ise)?\b|\bdeep understanding\b|\bqualifications?\b",
    re.IGNORECASE,
)
_HARD_REQUIRED = re.compile(r"必须|必备|\bmust\b|\brequired\b", re.IGNORECASE)
# Section headers. Required: the duties and the requirements. Neutral: the company, the pay; they ask nothing.
_HEADER_PREFERRED = re.compile(
    r"加分|优先|nice[\s-]to[\s-]have|good[\s-]to[\s-]have|preferred|bonus|\bplus(?:es)?\b|desirable", re.IGNORECASE
)
_HEADER_NEUTRAL = re.compile(
    r"公司简介|公司介绍|关于我们|团队介绍|福利|待遇|薪资|薪酬|工作地点|\babout\s+(?:us|the\s+(?:team|company))|who\s+we\s+are|"
    r"benefits|perks|we\s+offer|compensation|salary|location|equal\s+opportunity",
    re.IGNORECASE,
)
_HEADER_REQUIRED = re.compile(
    r"职责|资格|要求|条件|内容|描述|希望你|你将|你需要|responsibilit|qualification|requirement|what\s+you|you\s+will|"
    r"you'll|you\s+bring|you\s+have|looking\s+for|about\s+(?:you|the\s+role)|must|minimum|basic|\bthe\s+role\b",
    re.IGNORECASE,
)
NEUTRAL = "neutral"
_BULLET_LINE = re.compile(r"^\s*(?:[-*•·●▪+]|\d{1,2}[.、)）]|[(（]\d{1,2}[)）])\s*")
_HEADER = re.compile(r"^\s*(?:#+\s*)?[【\[]?(?P<head>[^:：。；;【】\[\]]{1,40}?)[】\]]?\s*[:：]\s*(?P<rest>.*)$")
_BRACKET_HEADER = re.compile(r"^\s*[【\[](?P<head>[^】\]]{1,30})[】\]]\s*(?P<rest>.*)$")
# Sentence ends (Chinese punctuation; a period after a word, not "1."), and list numbers inside a line.
_SENTENCE = re.compile(r"(?<=[。；;！？!?])|(?<=[A-Za-z)]\.)\s+|\s+(?=\(?\d{1,2}[.、)）]\s*\S)")
# Where a sentence holds several clauses: every Chinese comma; an English comma only before a new clause
# ("Strong C++, experience with Triton is a plus"), never inside a list ("CUDA, Triton or CUTLASS is a plus").
_CLAUSE = re.compile(
    r"[，；;]|,(?=\s*(?:and\s+|but\s+|while\s+|or\s+)?(?:experience|familiarity|knowledge|exposure|background|"
    r"proficiency|expertise|understanding|ability|bonus|ideally|preferably|prior|hands-on|you|contributions?)\b)",
    re.IGNORECASE,
)
_ENUM_VERB = re.compile(r"、(?=\s*(?:有|熟悉|了解|精通|掌握|具备|熟练|参与|做过|使用过))")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")


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

    A clause is preferred when it says so (者优先 / 加分 / a plus / nice to have / preferred / bonus), and
    otherwise takes the level of its section (任职要求 / 加分项 / Requirements / Nice to have / a table's column
    or row label); with no section yet, required. Company blurbs and benefits ask for nothing. Under a preferred
    header only a hard 必须 / must / required makes a clause required. Clauses, not sentences: "熟悉 Megatron 或
    DeepSpeed，有 MoE 训练经验者优先" asks for Megatron and DeepSpeed and prefers MoE. A skill named at both levels
    is required.
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
    """The JD's clauses with their level (see `analyze_jd`); neutral sections are left out."""
    out: list[Clause] = []
    mode, columns, in_table = REQUIRED, None, False
    for line in text.splitlines():
        if _TABLE_RULE.match(line):
            continue
        if line.strip().startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            first_row, in_table = not in_table, True
            levels = [_header_level(c) if c and not stated_skills(c) else None for c in cells]
            if first_row and any(levels) and not any(stated_skills(c) for c in cells):
                columns = levels  # a header row ("| Area | Must have | Nice to have |"): each column's level
                continue
            for i, cell in enumerate(cells):
                level = (columns[i] if columns and i < len(columns) else None) or mode
                if i == 0 and len(cells) > 1 and (label := _header_level(cell)) and not stated_skills(cell):
                    for rest in cells[1:]:  # a row label ("职责", "加分") sets the level of the row's other cells
                        out += _line_clauses(rest, label)
                    break
                out += _line_clauses(cell, level)
            continue
        columns, in_table = None, False
        level, rest, sticky = _split_header(line)
        if sticky:
            mode = level or mode
        out += _line_clauses(rest, level or mode)
    return [c for c in out if c.text and c.level != NEUTRAL]


def _line_clauses(line: str, mode: str) -> list[Clause]:
    out: list[Clause] = []
    for sentence in _SENTENCE.split(line):
        out += _classify(_BULLET_LINE.sub("", sentence.strip()), mode)
    return out


def _split_header(line: str) -> tuple[str | None, str, bool]:
    """A section header's level, what follows it on the line, and whether it opens a section (a label on a
    bullet line, "- Bonus: Slurm", sets only that line): "任职要求：1. 熟悉 ..." -> (required, "1. 熟悉 ...", True);
    a bare header line ("加分项", "## Nice to have", "【岗位职责】") -> (preferred / required, "", True)."""
    bullet = bool(_BULLET_LINE.match(line))
    for pattern in (_BRACKET_HEADER, _HEADER):
        m = pattern.match(_BULLET_LINE.sub("", line) if bullet else line)
        if m and not stated_skills(m.group("head")) and (level := _header_level(m.group("head"))):
            return level, m.group("rest"), not bullet
    bare = line.strip().lstrip("#").strip().rstrip(":：").strip()
    if bare and len(bare) <= 40 and not bullet and not re.search(r"[。；;，,.]$", bare) and not stated_skills(bare) \
            and (level := _header_level(bare)):
        return level, "", True
    return None, line, False


def _header_level(head: str) -> str | None:
    if _HEADER_PREFERRED.search(head):
        return PREFERRED
    if _HEADER_NEUTRAL.search(head):
        return NEUTRAL
    if _HEADER_REQUIRED.search(head):
        return REQUIRED
    return None


def _classify(sentence: str, mode: str) -> list[Clause]:
    """Each clause of a sentence on its own: preferred when it says so, else the section's level. Inside a
    preferred clause, a part led by 熟悉 / 精通 ... with no preference of its own stays required
    ("熟悉 PyTorch、有 DeepSpeed 经验者优先"); under a preferred header only 必须 / must / required is required."""
    if mode == NEUTRAL:
        return []
    out: list[Clause] = []
    for part in (p.strip() for p in _CLAUSE.split(sentence)):
        if not part:
            continue
        if _PREFERRED.search(part):
            # 、 joins clauses only before a verb: "熟悉 PyTorch、有 DeepSpeed 经验者优先" is two, "熟悉 Prometheus、
            # Grafana 等者优先" one.
            for sub in (s.strip() for s in _ENUM_VERB.split(part)):
                led = re.match(r"(?:熟悉|精通|掌握|熟练)", sub) and not _PREFERRED.search(sub)
                if sub:
                    out.append(Clause(sub, REQUIRED if led and mode == REQUIRED else PREFERRED))
        elif mode == PREFERRED:
            out.append(Clause(part, REQUIRED if _HARD_REQUIRED.search(part) else PREFERRED))
        else:
            out.append(Clause(part, REQUIRED))
    return _merge(out)


def _merge(parts: list[Clause]) -> list[Clause]:
    """Neighbouring parts of one level back together, so a clause reads as the JD wrote it."""
    out: list[Clause] = []
    for c in parts:
        if out and out[-1].level == c.level and not re.search(r"[、]$", out[-1].text):
            sep = "，" if re.search(r"[\u4e00-\u9fff]", c.text) else ", "
            out[-1] = Clause(out[-1].text + sep + c.text, c.level)
        else:
            out.append(c)
    return out


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
    labs: tuple[str, ...]              # labs that practise the skill (taxonomy.yaml `labs`)


UNSTATED, MISSING = "unstated", "missing"


def gaps(jd: JDAnalysis, version_text: str, master_text: str | None = None, bank: Bank | None = None) -> list[Gap]:
    """The JD's skills this version does not cover, required first: "unstated" when the master résumé
    has it (you have it but didn't say it), else "missing". Each links bank questions (by tag) and the labs
    that practise the skill."""
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
    """Bank questions tagged `skill_id` (those where it is the first tag first, then easier first), and the labs
    that practise the skill, as the taxonomy maps them (pipeline_parallel -> pipeline, zero -> zero ...).

    The labs come from the skill, not from its questions: a question tagged with five skills links the labs of
    all five, so the union over a skill's questions points every gap at the same few labs. A skill no lab
    practises has none."""
    bank = bank or _default_bank()
    tagged = [q for q in bank.questions if skill_id in q.tags]
    ranked = sorted(tagged, key=lambda q: (q.tags.index(skill_id) > 0, q.difficulty))
    skill = load_taxonomy().skills.get(skill_id)
    return [q.id for q in ranked[:limit]], list(skill.labs) if skill else []


def _lines_by_skill(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        clean = line.strip().lstrip("#-*•· ").strip()
        for skill_id in covered_skills(clean):
            out.setdefault(skill_id, []).append(clean)
    return out


@cache
def _default_bank() -> Bank:
    from question_bank.loader import load_bank

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

# A proposal must look like a technical term, since a maintainer reads the list: a Latin token with two capitals
# (XLA, GEMM, vLLM, OpenTelemetry), letters with digits (NVL72), or a capitalised word inside a sentence (a product:
# "Kubernetes Operator"); a Chinese compound ending in a technical head word (任务调度, 灰度发布, 计算机网络).
# Ordinary words, job titles and generic acronyms never: "do", "Own", "Senior", "AI", 性能.
_LATIN_TERM = re.compile(r"(?<![A-Za-z0-9_'’])[A-Za-z][A-Za-z0-9]*(?:[.\-][A-Za-z0-9]+)*")
_GENERIC_ACRONYMS = frozenset(
    "AI ML DL LLM LLMS GPU GPUS CPU CPUS API APIS PHD MS BS BA MBA CS EE IT HR QA PM UI UX SDK OS IO OK US UK EU "
    "NLP CV RL TB PB GB QPS SLA KPI OKR CEO CTO VP FTE JD ETA FAQ USD RMB".split()
)
_TITLE_WORDS = frozenset(
    "senior junior staff principal lead engineer engineers engineering scientist scientists researcher research "
    "manager director intern head software hardware machine learning team teams we you our us i the a an and or "
    "about what who why how job role requirements responsibilities qualifications preferred plus bonus nice must "
    "minimum basic benefits january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday beijing shanghai shenzhen hangzhou china remote english mandarin "
    "chinese cantonese japanese korean german french spanish fortune".split()
)
_CJK_HEAD = (
    "调度|编译器|编译|缓存|通信|存储|网络|架构|引擎|算法|内核|协议|容器|索引|检索|蒸馏|剪枝|发布|并行|加速|带宽|算子|"
    "芯片|互联|虚拟化|数据库|中间件|微服务"
)
# What splits a run of Chinese into candidate compounds: function words, punctuation, the verbs JDs open with.
_CJK_SPLIT = re.compile(
    r"[的和与及或、等在对将把为是了并从到让被以及]|负责|参与|建设|优化|熟悉|了解|掌握|精通|具备|支持|提升|降低|实现|开发|"
    r"完成|推动|保障|使用|基于|进行|相关|经验|能力|方案|工作|有"
)
_CJK_TERM = re.compile(rf"^[\u4e00-\u9fff]{{2,4}}(?:{_CJK_HEAD})$")
_CJK_GENERIC = re.compile(r"模型|训练|推理|数据|系统|平台|技术|业务|产品|项目|团队|公司")


def propose_terms(text: str, top_k: int = 12) -> list[str]:
    """Technical terms the JD uses that the taxonomy does not know (JAX, XLA, GEMM, 灰度发布 ...): proposals for a
    maintainer to add to `question_bank/taxonomy.yaml`, never counted in coverage. Read from the clauses that ask
    for something (not the company blurb nor the benefits). Known aliases are blanked out first, so neither they
    nor their fragments ("Systems" of "Nsight Systems") come back. Most frequent first, then in text order."""
    rest = list("\n".join(c.text for c in clauses(text)))
    for _, _, (a, b) in alias_hits("".join(rest)):
        rest[a:b] = "\0" * (b - a)  # \0 marks where a known alias was
    rest = "".join(rest)
    found: dict[str, int] = {}
    for name in _latin_names(rest):
        found[name] = found.get(name, 0) + 1
    for run in re.findall(r"[\u4e00-\u9fff]+", rest):
        for part in _CJK_SPLIT.split(run):
            if _CJK_TERM.match(part) and not _CJK_GENERIC.search(part):
                found[part] = found.get(part, 0) + 1
    ranked = sorted(found, key=lambda t: -found[t])  # stable: ties keep their order in the text
    out: list[str] = []
    for t in ranked:
        if t.lower() not in (o.lower() for o in out):
            out.append(t)
    return out[:top_k]


def _latin_names(text: str) -> list[str]:
    """Runs of capitalised or technical-looking tokens ("Argo CD", "OpenTelemetry", "JAX"), each kept when it
    looks technical: a multi-word run only when one of its words has a technical shape ("San Francisco" not)."""
    tokens = list(_LATIN_TERM.finditer(text))
    out: list[str] = []
    i = 0
    while i < len(tokens):
        if not _name_like(tokens[i].group(0)):
            i += 1
            continue
        run = [tokens[i]]
        while i + 1 < len(tokens) and text[run[-1].end():tokens[i + 1].start()] == " " and _name_like(
                tokens[i + 1].group(0)):
            i += 1
            run.append(tokens[i])
        i += 1
        words = [m.group(0) for m in run]
        if "\0" in text[max(0, run[0].start() - 2):run[0].start()]:
            continue  # a fragment of a known alias ("Systems" of "Nsight Systems")
        shaped = [w for w in words if _shaped(w)]
        if len(words) > 1 and shaped:
            out.append(" ".join(words))
        elif len(words) == 1 and (shaped or not _at_sentence_start(text, run[0].start())):
            out.append(words[0])
    return out


def _name_like(token: str) -> bool:
    """Capitalised, and not a generic acronym, a title word or an employer (Google is a name, not a term)."""
    return token[0].isupper() and token.upper() not in _GENERIC_ACRONYMS and token.lower() not in _TITLE_WORDS \
        and token.lower() not in EN_ORGS and len(token) >= 2


def _shaped(token: str) -> bool:
    """XLA, GEMM, OpenTelemetry, vLLM, NVL72: two capitals, an inner capital, or letters with digits."""
    if sum(c.isupper() for c in token) >= 2 or re.search(r"[a-z].*[A-Z]", token):
        return True
    return bool(re.search(r"\d", token)) and sum(c.isalpha() for c in token) >= 2


def _at_sentence_start(text: str, start: int) -> bool:
    """A capital after an English sentence end, a line start, a bullet or a table bar is just a first word;
    after anything else (Chinese included: Chinese does not capitalise) it marks a name."""
    before = text[:start].rstrip(" \t\0")
    return not before or before[-1] in "\n.!?:;|(-*•"
