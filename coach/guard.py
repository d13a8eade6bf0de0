"""The anti-fabrication check: a rewrite may only state what its sources state.

Sources are the bullet being rewritten and the user's answers about it, plus facts from elsewhere in the résumé
that the user confirmed for this bullet. The rest of the résumé is context: it names where a borrowed fact came
from, but backs nothing, because a number or a tool from another bullet may belong to another project. The JD is
never a source: it says what the employer wants, not what the user did.

A candidate is rejected when it holds
- number: a quantity no source states and none derives (see `coach.derive`: "40 s to 12 s" backs "70% faster");
- implied: a quantity in words (doubled, 翻倍, tenfold, an order of magnitude, 数倍) no source figure supports;
- outcome: a result called large (significantly improved, 大幅提升) where no source gives a figure for it;
- borrowed: a quantity found only elsewhere in the résumé (allowed once the user confirms it);
- date: a year no source states (dates, years and phone numbers are never quantities, on either side);
- role / scope: a claim of leading or owning (led a team, 主导, owned the architecture) or of reach (flagship,
  company-wide, production, 大规模) whose kind of phrase no source uses; a rewrite that drops "took part"
  (参与 -> 实现, "contributed to" -> "built") when a source says it;
- org: an employer, product or organisation (在字节跳动, at Google, 极光科技, 星河大模型) no source names;
- skill: a taxonomy skill no source states (an equivalent tool is a new claim: ZeRO-3 does not back FSDP);
- term: any technical token or proper noun (JAX, TPU, H100, vLLM, Kimi) absent from the sources, and any
  lower-case word that is not ordinary English (jax, triton-lang; see `coach.vocabulary`);
- instruction: text that gives orders ("ignore previous instructions"). Instructions found inside a bullet are
  data: `Sources` drops them (they back nothing) and lists them in `flagged` for the UI.
Every offline and LLM output goes through `check` before the user sees it; rejected ones come back with the
reasons, so the UI can show what was held back and why.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache

from coach.derive import Factors, derived_match, factors_of, implied_factors, implied_percents, targets, unit_kind
from coach.names import CJK_ORGS, EN_ORGS
from coach.numbers import EN_NUMBER, Quantity, base_value, quantities, same_value
from coach.skills import evidence_skills, skill_name, stated_skills
from coach.vocabulary import ordinary_chinese, ordinary_english
from question_bank.taxonomy import alias_pattern, load_taxonomy

# ---- what is not a quantity: contact details and dates ------------------------------------------------------

_CONTACT = re.compile(
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"                                   # e-mail
    r"|(?:https?://|www\.)\S+|\b(?:github|gitlab|linkedin)\.com/\S*"   # links
    r"|(?:\+?86[\s-]?)?(?<!\d)1[3-9]\d(?:[\s-]?\d{4}){2}(?!\d)"         # Chinese mobile: 138-1234-5678
    r"|\+\d{1,3}[\s-]?\(?\d{1,4}\)?(?:[\s-]?\d{2,4}){2,4}"              # international
    r"|\(\d{3}\)\s?\d{3}[\s.-]\d{4}|(?<!\d)\d{3}[.-]\d{3}[.-]\d{4}(?!\d)|(?<!\d)0\d{2,3}-\d{7,8}(?!\d)",
    re.IGNORECASE,
)
_YEAR = r"(?:19[89]\d|20[0-3]\d)"  # 1980-2039: 2048 is a power of two far more often than a year
_MONTHS = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
# A 4-digit number from 1980 to 2039 is a year unless a unit follows it ("2048 GPUs" is a count).
_COUNT_AFTER = (
    r"\s*(?:[kKMBTxX](?![A-Za-z])|[×倍%％]|GPUs?|cards?|nodes?|张|块|台|卡|个|节点|人|steps?|tokens?|次|条|GB|MB|TB|ms\b|s\b|秒|"
    r"小时|hours?|分钟|minutes?|QPS|samples?|样本)"
)
# "2000 提高到 3000", "2000 to 3500 tokens/s": a change whose other end is no year makes 2000 a quantity.
_CHANGE_TO_NON_YEAR = (
    rf"(?!\s*(?:[\u4e00-\u9fff]{{0,3}}|[A-Za-z]+\s+)?(?:到|至|to|->|→)\s*(?!{_YEAR}(?!\d))\d)"
)
_DATE = re.compile(
    rf"{_YEAR}\s*[年./-]\s*\d{{1,2}}(?!\d)(?:\s*[月./-]\s*\d{{1,2}}(?!\d)\s*日?|\s*月)?"
    rf"|{_YEAR}\s*(?:[-–—~～至到]|to)\s*(?:{_YEAR}|now|present|today|至今|现在|今)"
    rf"|{_MONTHS}\s+{_YEAR}|{_YEAR}\s*年|(?<![\d.,]){_YEAR}(?![\d.,])(?!{_COUNT_AFTER}){_CHANGE_TO_NON_YEAR}",
    re.IGNORECASE,
)

# ---- instructions inside a text ---------------------------------------------------------------------------

_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b.{0,30}?\b(?:instructions?|prompts?|rules|guidelines|messages?|above|"
    r"everything|context)\b"
    r"|\b(?:system|developer)\s+(?:prompt|message)|\bjailbreak|\bprompt\s+injection|<\|?(?:system|im_start)|\[INST\]"
    r"|\byou\s+(?:are\s+now|must|should|will|have\s+to|need\s+to)\b|\bact\s+as\b|\bpretend\b|\brole-?play\b"
    r"|\b(?:say|write|state|claim|output|print|respond|reply|answer|add|insert|mention)\b(?:\s+that)?\s+I\b"
    r"|\b(?:new|updated)\s+instructions?\b|\bnote\s+to\s+(?:the\s+)?(?:ai|assistant|model|llm|reviewer)\b"
    r"|\bas\s+an\s+ai\b|\b(?:dear\s+)?(?:ai|assistant|chatgpt|gpt|llm|model)\s*[,:，：]\s*(?:please\s+)?"
    r"(?:add|write|say|include|claim|mention|state|make)\b|\b(?:do\s+not|don't)\s+follow\b"
    r"|(?:AI|模型|助手|大模型)\s*[，,：:]\s*(?:请|务必)?(?:写|加|说|改)|给\s*(?:AI|模型|助手)\s*的(?:指令|提示)"
    r"|(?:忽略|无视|忘记|忘掉|跳过|覆盖)(?:掉)?(?:之前|以上|上面|前面|先前|上述|所有|全部|你的)?.{0,6}?"
    r"(?:指令|指示|提示|要求|规则|设定|限制|内容)"
    r"|系统提示|提示词|你(?:现在)?(?:是一个|必须|要|应该|需要|得)|扮演|假装"
    r"|(?:请|务必|一定要?|直接)?(?:写|说|声称|输出|回答|注明|加上|写上|改成|改写成|写成)(?:上|成)?[：:，,\s]*(?:我|本人)",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[。！？!?\n]|\.(?:\s|$)")


def instructions(text: str) -> list[str]:
    """The instructions in `text`, each from where it starts to the end of its sentence."""
    spans: list[str] = []
    pos = 0
    while m := _INSTRUCTION.search(text, pos):
        end = _SENTENCE_END.search(text, m.end())
        stop = end.end() if end else len(text)
        spans.append(text[m.start():stop].strip())
        pos = stop
    return spans


def without_instructions(text: str) -> str:
    """`text` with its instructions cut out: what is left is the user's own statement."""
    for span in instructions(text):
        text = text.replace(span, " ")
    return re.sub(r"[，,；;、\s]+$", "", text.strip())


# ---- roles, reach and organisations ----------------------------------------------------------------------

# A claim's kind -> phrases that make it. A source backs a claim when it uses any phrase of the same kind: 带领
# backs "led", 负责 backs "owned", 线上 backs "in production"; 做了 / 参与 back none of them.
_ROLE: dict[str, re.Pattern[str]] = {
    "lead": re.compile(
        r"(?<![-\w])(?:led|leads?|leading)\b(?!\s+to\b)|\bhead(?:ed|ing)?\s+(?:of|up|the|a)\b|\bheaded\b|\bspearhead"
        r"|\bdirect(?:ed|ing)\s+(?:a|an|the)\b|\bmanag(?:ed|es|ing)\s+(?:a\s+|an\s+|the\s+)?(?:[\w-]+\s+){0,2}"
        r"(?:team|group|engineers|people|reports|staff)|\b(?:manager|leader|tech\s+lead|team\s+lead)\b|\bmentor"
        r"|\boversaw\b|\boversee|\bteam\s+of\b|\bdr(?:o|i)ve\b(?!\s+(?:down|up))|\bdriving\b(?!\s+(?:down|up))"
        r"|\bcoordinat(?:ed|ing)\s+(?:\d+\s+|the\s+|multiple\s+|several\s+|cross-\w+\s+)?(?:teams|engineers|efforts|people)"
        r"|\bas\s+(?:a|an|the)\s+(?:senior|staff|principal|lead|head|chief)\b|\bpromoted\b|晋升|协调.{0,4}团队"
        r"|作为(?:技术)?(?:负责人|骨干|专家|架构师|leader)"
        r"|主导|带领|领导|带队|牵头|统筹|负责人|组长|领衔|总负责|指导.{0,6}(?:新人|同事|实习生|工程师|成员)"
        r"|管理.{0,6}(?:团队|小组|人)|\d+\s*人(?:的)?(?:团队|小组)|[一二两三四五六七八九十几百]+人(?:的)?(?:团队|小组)",
        re.IGNORECASE,
    ),
    "own": re.compile(
        r"\bown(?:ed|er|ership|s)\b|\bin\s+charge\s+of\b|\bresponsible\s+for\b|\bsole(?:ly)?\b|\bsingle-?handed"
        r"|\bindependently\b|\bon\s+my\s+own\b|\bby\s+myself\b|\barchitect(?:ed|ing)?\b"
        r"|\bfrom\s+(?:scratch|the\s+ground\s+up)\b"
        r"|负责|独立|独自|一人|一手|亲手|全权|主持|从\s*0\s*到\s*1|从零|从无到有|架构师",
        re.IGNORECASE,
    ),
}
_SCOPE: dict[str, re.Pattern[str]] = {
    "prestige": re.compile(
        r"\bflagship\b|\b(?:company|org|organi[sz]ation|group|enterprise)[\s-]?wide\b|\bcross-?(?:team|org)\b"
        r"|\b(?:industry|market|world)[\s-]?(?:leading|class)\b|\bstate[\s-]of[\s-]the[\s-]art\b|\bSOTA\b"
        r"|\bmission[\s-]critical\b|\bfirst[\s-]ever\b|\bcore\s+(?:system|platform|product|infrastructure|business|"
        r"service|team|project|member)|\bkey\s+(?:project|product|initiative)"
        r"|旗舰|全公司|公司级|集团级|全集团|全司|核心(?:业务|产品|系统|平台|项目|团队|成员|骨干)|(?:业界|行业|国内|国际|世界)领先"
        r"|\b(?:whole|entire)\s+(?:company|org|organi[sz]ation|group)\b|\bacross\s+the\s+(?:company|org)\b|\bcompany's\b"
        r"|\ball\s+(?:of\s+)?(?:the\s+|our\s+)?(?:teams|clusters|products|business(?:es)?|services)\b|\bbest[\s-]in[\s-]class\b"
        r"|\b(?:highest|best|fastest|largest|first)\s+in\s+the\s+(?:industry|company|world|market|field)\b|\bindustry's\b"
        r"|\b(?:key|core|lead|main|top)\s+contributor\b|\bbig\s+tech\b|\bFAANG\b|\btop-tier\b"
        r"|首个|首创|业内首|标杆|重点项目|主力|大厂|头部|一线(?:大厂|公司|互联网)|核心(?:开发者|贡献者|工程师|人员|开发)|整个公司|公司所有|所有(?:团队|集群|业务|产品)|业[界内]最|行业第一|全球首|国内首",
        re.IGNORECASE,
    ),
    "scale": re.compile(
        r"\b(?:large|massive|huge|giant|hyper|planet|web)[\s-]?scale\b|\bat\s+scale\b|\bmassive(?:ly)?\b"
        r"|\bmillions\s+of\s+users\b|(?:超)?大规模|海量|超大|万亿级",
        re.IGNORECASE,
    ),
    "recognition": re.compile(
        r"\baward(?:s|ed)?\b|\bprizes?\b|\brecogni[sz](?:ed|ition)\b|\bhonou?rs?\b|\bpatents?\b|\bpublished\b"
        r"|\bpapers?\b|\bpromotion\b|\bkudos\b|获奖|奖项|[年季]度.{0,4}奖|技术奖|表彰|嘉奖|专利|论文|发表|顶会",
        re.IGNORECASE,
    ),
    "production": re.compile(
        r"\bproduction\b|\bin\s+prod\b|\bdeploy(?:ed|ing|ment)?\b|\bshipped\b|\blive\s+traffic\b"
        r"|\badopt(?:ed|ion)\b|\brolled\s+out\b|\bused\s+by\b|\bwidely\s+used\b"
        r"|线上|生产环境|上线|落地|部署|投产|采用|推广|广泛使用",
        re.IGNORECASE,
    ),
}
# A source that says the user took part (参与, helped, contributed to) backs only a rewrite that still says so:
# 参与 -> 实现 or "contributed to" -> "built" turns a share of the work into all of it.
_PART = re.compile(
    r"\bhelp(?:ed|ing|s)?\b|\bassist(?:ed|ing|s)?\b|\bcontribut\w*|\bparticipat\w*|\btook\s+part\b|\bpart\s+of\b"
    r"|\bco-?(?:wrote|written|authored|developed|designed|built|implemented|led|owned)\b|\bcollaborat\w*"
    r"|\bworked\s+(?:with|alongside)\b|\btogether\s+with\b|\balongside\b|\bjointly\b|\bsupport(?:ed|ing)\s+the\b"
    r"|参与|协助|辅助|配合|帮助|协同|合作|共同|一起|跟随|支持.{0,4}(?:团队|同事|工作)",
    re.IGNORECASE,
)
# An outcome stated as large without a figure: "significantly improved", 大幅提升. Backed by the same kind of
# word in a source, or by a figure that states a change there (a percentage, a ratio, a from-to pair).
_OUTCOME = re.compile(
    r"\b(?:significant(?:ly)?|substantial(?:ly)?|dramatic(?:ally)?|drastic(?:ally)?|great(?:ly)?|vast(?:ly)?"
    r"|huge(?:ly)?|considerabl[ey]|marked(?:ly)?|tremendous(?:ly)?|sharp(?:ly)?|remarkabl[ey]|noticeabl[ey]"
    r"|enormous(?:ly)?|immense(?:ly)?|radical(?:ly)?|massive)\b(?!\s+(?:deal\s+of\s+)?(?:help|thanks))"
    r"|\b(?:far|much|way)\s+(?:faster|fewer|better|more|less|lower|higher|smaller|larger|cheaper|quicker)\b"
    r"|\ba\s+lot\s+(?:faster|fewer|better|more|less|lower|higher)\b|\bby\s+a\s+(?:wide|large|big)\s+margin\b"
    r"|大幅|显著|明显|极大|大大|巨大|大为|飞跃|质的|剧增|骤降|锐减|大量(?:减少|降低|提升|节省)|成倍|数量级",
    re.IGNORECASE,
)
_CJK_ORG = re.compile(
    "|".join(sorted(CJK_ORGS, key=len, reverse=True))
    + r"|(?:在|于|加入|任职于|就职于|供职于|服务于)[\u4e00-\u9fff]{2,6}?(?:有限公司|公司|集团)"
    + r"|[\u4e00-\u9fff]{2,6}?(?:有限公司|股份公司|集团|研究院|研究所|实验室|大学|学院|银行|事业群|事业部)"
)

# A Chinese company or product name: two characters the bank never pairs, then a word that ends a name
# (极光科技, 云启网络, 星河大模型). The name part is what must be in the sources or be ordinary Chinese.
_CJK_NAME = re.compile(
    r"([\u4e00-\u9fff]{2})(?=(?:科技|网络|智能|信息|软件|数据|电子|通信|互联网|云|半导体|芯片|微电子|资本|控股|汽车|医疗"
    r"|金融|证券|基金|传媒|游戏|大模型|模型|平台|引擎|框架|集群|芯片|系统|项目|产品|App|APP))"
)

_QUOTED = re.compile(r"[「『《“]([^」』》”]{1,24})[」』》”]|\"([^\"]{1,24})\"")

# ---- technical tokens and proper nouns ---------------------------------------------------------------------

_TOKEN = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z0-9_]*[A-Za-z][A-Za-z0-9_]*(?:[.\-/][A-Za-z0-9_]+)*(?:\+\+|#)?")
# "7B", "1.5x", "80GB", "64-GPU", "40s": a quantity (checked as a number), not an identifier.
_PURE_QUANTITY = re.compile(
    r"\d+(?:\.\d+)?(?:[kKMBT]|[xX]|[GMKTP]i?B|ms|us|s|h|min|GPUs?|nodes?|k)?(?:-[A-Za-z]+)*", re.IGNORECASE
)
# Closed-class words and units: capitalised at a sentence start or in a Chinese text, they are still not names.
_PLAIN = frozenset(
    "a an the and or but nor so yet for of in on at to by with from into onto over under across after before "
    "during while when where which that this these those each every all both any some no not via per as than then "
    "i me my we our us it its they their he she you your using used use based after also only more most less "
    "up down out off about around within without between through toward towards ms s h min sec secs x k gb mb tb "
    "gib mib tib tokens token step steps day days week weeks hour hours result results situation task action "
    "star ok".split()
)
# Generic words a source backs in other words (卡 is a GPU, 大模型 an LLM): not worth a taxonomy skill each.
_GENERIC: dict[str, re.Pattern[str]] = {
    "gpu": re.compile(r"GPU|卡|显卡|\bcards?\b", re.IGNORECASE),
    "llm": re.compile(r"LLM|大模型|大语言模型|语言模型|language\s+models?", re.IGNORECASE),
    "ai": re.compile(r"\bAI\b|人工智能|智能", re.IGNORECASE),
}
_SENTENCE_START = re.compile(r"(?:^|[.!?;:。；：！？(\n]|\s[-–—]\s|[，,、]\s*$)\s*$")


@dataclass(frozen=True)
class Violation:
    kind: str    # number | implied | outcome | borrowed | date | role | scope | org | skill | term | instruction
    value: str   # as written in the candidate
    reason: str


@dataclass(frozen=True)
class Rejected:
    text: str
    violations: tuple[Violation, ...]

    @property
    def reason(self) -> str:
        return "; ".join(v.reason for v in self.violations)

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(v.kind for v in self.violations))


@dataclass
class Sources:
    """What the user has said about one bullet, prepared once for checking many candidates.

    `texts`: the bullet, the answers about it, confirmed facts. `context`: the rest of the résumé (backs nothing).
    """
    texts: list[str]
    context: str = ""
    flagged: list[str] = field(init=False)     # instructions found in the texts: dropped, shown to the user
    joined: str = field(init=False)            # the texts without instructions, dates and contact details
    original: str = field(init=False)          # the texts without instructions (dates kept, to back a year)
    quantities: list[Quantity] = field(init=False)
    factors: Factors = field(init=False)
    skills: set[str] = field(init=False)
    years: set[str] = field(init=False)
    context_quantities: list[Quantity] = field(init=False)
    context_skills: set[str] = field(init=False)

    def __post_init__(self) -> None:
        self.flagged = [s for t in self.texts for s in instructions(t)]
        self.original = "\n".join(without_instructions(t) for t in self.texts)
        self.joined = mask_non_quantities(self.original)
        self.quantities = quantities(self.joined)
        self.factors = factors_of(self.joined, self.quantities)
        self.skills = set(evidence_skills(self.original))
        self.years = set(re.findall(_YEAR, "".join(m.group(0) for m in _DATE.finditer(self.original))))
        self.context = without_instructions(self.context)
        self.context_quantities = quantities(mask_non_quantities(self.context))
        self.context_skills = set(evidence_skills(self.context))

    @property
    def values(self) -> set[float]:
        return {q.value for q in self.quantities}


def sources(*texts: str | Iterable[str] | None, context: str | None = None) -> Sources:
    """Sources from strings, lists of strings (answers) or None (absent parts); `context` is the résumé."""
    flat: list[str] = []
    for t in texts:
        if t is None:
            continue
        flat += [t] if isinstance(t, str) else [str(x) for x in t]
    return Sources(flat, context or "")


def mask_non_quantities(text: str) -> str:
    """Blank out e-mails, links, phone numbers and dates (same length, so positions hold)."""
    for pattern in (_CONTACT, _DATE):
        text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    return text


def check(text: str, src: Sources) -> list[Violation]:
    """Every claim in `text` that `src` does not back; empty means the text may be shown."""
    found = _instructions(text) + _numbers(text, src) + _claims(text, src) + _skills(text, src)
    return found + _terms(text, src, {v.value.lower() for v in found})


def screen(candidates: Iterable[str], src: Sources) -> tuple[list[str], list[Rejected]]:
    """Split candidates into those that pass `check` and those rejected (with why)."""
    kept: list[str] = []
    rejected: list[Rejected] = []
    for c in candidates:
        problems = check(c, src)
        if problems:
            rejected.append(Rejected(c, tuple(problems)))
        else:
            kept.append(c)
    return kept, rejected


# ---- the checks ---------------------------------------------------------------------------------------------


def _borrowed(value: str, what: str) -> Violation:
    return Violation("borrowed", value, f"the {what} {value!r} comes from another part of your résumé, not this "
                     "bullet or your answers; if it belongs here too, say so in your answers (or confirm it)")


def _instructions(text: str) -> list[Violation]:
    return [Violation("instruction", s, f"{s!r} is an instruction, not a fact about your work")
            for s in instructions(text)]


def _numbers(text: str, src: Sources) -> list[Violation]:
    masked = mask_non_quantities(text)
    return _quantities(masked, src) + _shares(masked, src) + _factors(masked, src) + _years(text, src)


def _quantities(masked: str, src: Sources) -> list[Violation]:
    out: list[Violation] = []
    shares = _fraction_spans(masked)
    for q in quantities(masked):
        if any(a <= q.start < b for a, b in shares):
            continue  # "two" of "two-thirds": checked as a share
        if _stated(q, src.quantities) or derived_match(q, masked, src.quantities):
            continue
        if _stated(q, src.context_quantities):
            out.append(_borrowed(q.text, "number"))
        else:
            out.append(Violation("number", q.text, f"the number {q.text!r} is not in your bullet or answers "
                                 "and does not follow from them"))
    return out


SHARE_TOLERANCE = 3.0  # percentage points: "a third" is 30-36%, a word cannot be more precise


def _shares(masked: str, src: Sources) -> list[Violation]:
    backed = targets("%", src.quantities) + [q.value for q in src.quantities if q.unit == "%"]
    return [Violation("implied", m, f"{m!r} states a share that no figure in your bullet or answers backs")
            for m, pct in implied_percents(masked) if not any(abs(pct - t) <= SHARE_TOLERANCE for t in backed)]


def _factors(masked: str, src: Sources) -> list[Violation]:
    return [Violation("implied", m, f"{m!r} states a size that no figure in your bullet or answers backs")
            for m, factor in implied_factors(masked) if not factor.backed_by(src.factors)]


def _years(text: str, src: Sources) -> list[Violation]:
    return [Violation("date", m.group(0).strip(), f"the year {year} is not in your bullet or answers")
            for m in _DATE.finditer(text) for year in re.findall(_YEAR, m.group(0)) if year not in src.years]


def _stated(q: Quantity, stated: list[Quantity]) -> bool:
    """The same value, as written or in another unit of its kind ("1 h" is "60 min", "2 GB" is "2,000 MB")."""
    return any(same_value(q.value, s.value) or (q.unit and s.unit and unit_kind(q) == unit_kind(s) and same_value(
        base_value(q), base_value(s))) for s in stated)


def _fraction_spans(text: str) -> list[tuple[int, int]]:
    spans, pos = [], 0
    for words, _ in implied_percents(text):
        start = text.find(words, pos)
        spans.append((start, start + len(words)))
        pos = start + len(words)
    return spans


def _claims(text: str, src: Sources) -> list[Violation]:
    out: list[Violation] = []
    for kinds, label in ((_ROLE, "role"), (_SCOPE, "scope")):
        for kind, pattern in kinds.items():
            if (m := pattern.search(text)) and not pattern.search(src.original):
                out.append(Violation(label, m.group(0), f"{m.group(0)!r} claims a {label} ({kind}) that your bullet "
                                     "and answers do not state"))
    if _drops_part(text, src):
        out.append(Violation("role", "part", "your bullet says you took part in this work; the rewrite drops that "
                             "and claims all of it"))
    if (m := _OUTCOME.search(text)) and not (_OUTCOME.search(src.original) or _states_change(src)):
        out.append(Violation("outcome", m.group(0), f"{m.group(0)!r} claims a large result that no figure or "
                             "word in your bullet and answers states; give the figure instead"))
    for m in _CJK_NAME.finditer(text):
        name = m.group(1)
        if name not in src.original and not ordinary_chinese(name) and not _CJK_ORG.search(text, m.start()):
            out.append(Violation("org", name, f"{name!r} names something (a company, product or project) your "
                                 "bullet does not name"))
    for m in _QUOTED.finditer(text):  # a quoted name (「星火」, "Phoenix") is a name, whatever it is
        name = (m.group(1) or m.group(2)).strip()
        if name and name not in src.original and not alias_pattern(name).search(src.original):
            out.append(Violation("org", name, f"{name!r} is a name your bullet does not give"))
    for m in _CJK_ORG.finditer(text):
        name = re.sub(r"^(?:在|于|加入|任职于|就职于|供职于|服务于)", "", m.group(0))
        if name not in src.original:
            out.append(Violation("org", name, f"{name!r} is an organisation or product your bullet does not name"))
    return out


def _drops_part(text: str, src: Sources) -> bool:
    """A source says "took part", the rewrite does not, and no answer of the user's says what their own part was
    (the role answer "负责掉卡检测" does: then the role rules judge the rewrite's verbs)."""
    if not _PART.search(src.original) or _PART.search(text):
        return False
    said_own_part = any(not _PART.search(t) and any(p.search(t) for p in _ROLE.values()) for t in src.texts)
    return not said_own_part and not any(text.strip() in t for t in src.texts if not _PART.search(t))


def _states_change(src: Sources) -> bool:
    """Whether the sources give a figure for a change: a percentage, a ratio, or two quantities of one kind."""
    qs = src.quantities
    return any(q.unit in ("%", "x") for q in qs) or bool(implied_factors(src.joined)) or any(
        unit_kind(a) == unit_kind(b) for i, a in enumerate(qs) for b in qs[i + 1:])


def _skills(text: str, src: Sources) -> list[Violation]:
    out = []
    for skill_id, aliases in stated_skills(text).items():
        aliases = [a for a in aliases if not a.endswith("⇒")]  # implied by another skill, checked as that one
        if aliases and skill_id not in src.skills and not all(
                _reworded(a, src.original) or _singular_stated(a, src.original) for a in aliases):
            if skill_id in src.context_skills:
                out.append(_borrowed(aliases[0], "skill"))
            else:
                out.append(Violation("skill", aliases[0], f"the skill {skill_name(skill_id)!r} ({aliases[0]}) is not "
                                     "in your bullet or answers"))
    return out


def _singular_stated(alias: str, source: str) -> bool:
    """"collectives" is stated by a source that says "collective" (the taxonomy may list only one form)."""
    return len(alias) > 4 and alias.endswith("s") and bool(alias_pattern(alias[:-1]).search(source))


def _reworded(alias: str, source: str) -> bool:
    """Whether the source says every word of a multi-word alias, in any order: "recovery after a node failure"
    states "failure recovery", 自动恢复 + 训练 states 恢复训练. Chinese words are taken two characters at a time."""
    words = re.findall(r"[A-Za-z0-9]+|[\u4e00-\u9fff]{1,2}", alias)
    if len(words) < 2:
        return False
    return all(re.search(rf"(?<![A-Za-z]){re.escape(w)}", source, re.IGNORECASE) for w in words)


def _terms(text: str, src: Sources, reported: set[str]) -> list[Violation]:
    out = []
    cjk = len(re.findall(r"[\u4e00-\u9fff]", text)) > len(re.findall(r"[A-Za-z]", text)) / 3
    for m in _TOKEN.finditer(text):
        token = m.group(0)
        if token.lower() in reported or _PURE_QUANTITY.fullmatch(token) or not _technical(token, text, m.start(), cjk):
            continue
        if not _backed(token, src):
            reported.add(token.lower())
            in_context = any(alias_pattern(f).search(src.context) for f in _forms(token))
            out.append(_borrowed(token, "term") if in_context else
                       Violation("term", token, f"{token!r} is not in your bullet or answers"))
    return out


def _technical(token: str, text: str, start: int, cjk: bool) -> bool:
    """A name or a technical token: digits, inner capitals, dots or underscores; a capital not at a sentence
    start; any Latin word in a Chinese text. A capitalised first word ("Trained", "Cut") is an ordinary word."""
    if token.lower() in _PLAIN:
        return False
    if re.search(r"\d|[._+#]|.[A-Z]", token) or cjk:
        return True
    if not token[0].isupper():  # lower case: a name where a tool goes, unless it is ordinary English
        return _in_tool_slot(text, start, token) and not all(
            ordinary_english(p) or p in _PLAIN or EN_NUMBER.fullmatch(p) for p in re.split(r"[-/]", token) if p)
    # At a sentence start a capital is only the first word ("Reduced", "Baseline"), unless it is a known name.
    return not _SENTENCE_START.search(text[:start]) or token.lower() in EN_ORGS


# Where a tool's name goes: after a preposition or conjunction ("in jax", "with cutlass and sglang"), or
# before a word for software ("sglang backend"). Elsewhere a word the bank lacks is taken as plain English
# ("to pinpoint"), since a rewrite may reword.
_SLOT_BEFORE = re.compile(
    r"(?:\b(?:in|with|using|via|through|atop|on|onto|into|from|under|over|and|or|of|plus)|[,/(])\s*$",
    re.IGNORECASE,
)
_SLOT_AFTER = re.compile(
    r"\s*(?:kernels?|library|libraries|lib|framework|backend|runtime|compiler|server|engine|api|sdk|toolkit|plugin|"
    r"ops|operators?|cluster|scheduler|profiler|package|stack|integration)\b",
    re.IGNORECASE,
)


def _in_tool_slot(text: str, start: int, token: str) -> bool:
    return bool(_SLOT_BEFORE.search(text[:start]) or _SLOT_AFTER.match(text, start + len(token)))


def _backed(token: str, src: Sources) -> bool:
    """Whether the sources state `token`: as written (a plural or a suffix such as "-based" aside), as the name
    of a skill they state (Kubernetes for k8s), as a generic word they say in other words (GPU for 卡), or as an
    acronym of their words (PP for pipeline parallelism, DDP for DistributedDataParallel, and back)."""
    for form in _forms(token):
        if alias_pattern(form).search(src.original):
            return True
        if (generic := _GENERIC.get(form.lower())) and generic.search(src.original):
            return True
        if form.lower() == "gpu" and "gpu_hardware" in src.skills:  # H100s are GPUs
            return True
        if form.lower() in _skill_names(frozenset(src.skills)):
            return True
    initials = _initials(token)
    phrases = _source_phrases(src)
    return (token.isupper() and token.upper() in phrases) or (initials is not None and alias_pattern(
        initials).search(src.original) is not None)


def _forms(token: str) -> list[str]:
    """"H100-based" -> H100, "A100s" -> A100, "GPUs" -> GPU, "Google's" -> Google."""
    core = re.sub(r"(?:-(?:based|style|like|level|scale|class|powered|driven|aware|enabled|friendly))+$", "",
                  token, flags=re.IGNORECASE)
    core = re.sub(r"'s$", "", core)
    forms = [core]
    if re.search(r"(?<=[A-Za-z0-9])e?s$", core) and len(core) > 3:
        forms += [core[:-1], re.sub(r"es$", "", core)]
    return list(dict.fromkeys(forms))


def _initials(token: str) -> str | None:
    """The acronym a CamelCase or hyphenated token spells (DistributedDataParallel -> DDP), if it has 2+ parts."""
    parts = re.findall(r"[A-Z][a-z]+|[a-z]+", token.replace("-", " ").title() if "-" in token else token)
    if len(parts) < 2 or not token[0].isalpha():
        return None
    return "".join(p[0] for p in parts).upper()


def _source_phrases(src: Sources) -> set[str]:
    """Acronyms of the sources' multi-word phrases and of the aliases of the skills they state."""
    words = [w for w in re.findall(r"[A-Za-z]+", src.original)]
    phrases = {" ".join(words[i:j]) for i in range(len(words)) for j in range(i + 2, min(i + 5, len(words)) + 1)}
    tax = load_taxonomy().skills
    phrases |= {a for s in src.skills if s in tax for a in tax[s].aliases if " " in a or "-" in a}
    out = set()
    for p in phrases:
        parts = re.split(r"[\s-]+", p)
        out.add("".join(w[0] for w in parts).upper())
        out.add("".join(w[0] for w in parts if w.lower() not in ("of", "and", "the", "for")).upper())
    return out


@cache
def _skill_names(skills: frozenset[str]) -> frozenset[str]:
    """The names of these skills and their first words (Kubernetes, ZeRO, PyTorch from "PyTorch distributed")."""
    tax = load_taxonomy().skills
    names = set()
    for s in skills:
        if s in tax:
            names |= {tax[s].en.lower(), tax[s].en.split()[0].lower(), tax[s].zh.lower()}
    return frozenset(names)
