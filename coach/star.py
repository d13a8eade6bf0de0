"""STAR rewriting of résumé bullets, with targeted questions for the missing numbers.

`questions_for(bullet)` asks only what fits the bullet: a training bullet is asked for GPUs and model size, an
optimisation bullet for the speedup and its baseline, a fault-tolerance bullet for failure rate and recovery
time, and so on, skipping what the bullet already quantifies. `rewrite(bullet, answers, ...)` then builds the
STAR story and several one-line variants from the bullet, the résumé and the answers only, each listing the
JD skills it covers. Offline by default; with an `LLMClient` it asks the LLM and falls back to the offline
result (with a notice) on any failure. Every output, offline or LLM, passes `coach.guard.check` first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from coach import guard
from coach.jd import JDAnalysis
from coach.llm import LLMClient, LLMUnavailable, fallback_notice
from coach.numbers import quantities
from coach.prompts import rewrite_messages
from coach.skills import covered_skills, skill_name, stated_skills


@dataclass(frozen=True)
class StarQuestion:
    key: str
    zh: str
    en: str
    label: str  # what the answer is about; added to the sources so "64" answered here backs "64 GPUs"


_Q = StarQuestion
QUESTIONS: dict[str, StarQuestion] = {q.key: q for q in (
    _Q("gpus", "用了多少张卡（几机几卡、什么型号）？", "How many GPUs (nodes x GPUs, which model)?", "GPUs 卡"),
    _Q("model_size", "模型多大（参数量）？", "How large was the model (parameters)?", "parameters 参数"),
    _Q("speedup", "提速或提升了多少（倍数或百分比）？", "What speedup or improvement (x or %)?", ""),
    _Q("mfu", "MFU（或 GPU 利用率）前后各是多少？", "MFU (or GPU utilisation) before and after?", "MFU"),
    _Q("throughput", "吞吐（tokens/s 或 QPS）前后各是多少？", "Throughput (tokens/s or QPS) before and after?",
       "throughput 吞吐"),
    _Q("latency", "延迟（如 P99）前后各是多少？", "Latency (e.g. p99) before and after?", "latency 延迟"),
    _Q("baseline", "和什么基线比（之前的方案、数值）？", "Compared with which baseline (previous setup, figure)?", ""),
    _Q("time_saved", "节省了多少时间（每次、每周或总共）？", "How much time was saved (per run, per week)?", ""),
    _Q("cost_saved", "节省了多少成本或卡时？", "How much cost or GPU-hours were saved?", ""),
    _Q("failure_rate", "故障率或中断次数，前后各多少？", "Failure or interruption rate, before and after?", ""),
    _Q("recovery_time", "故障后恢复要多久（前后对比）？", "How long did recovery take, before and after?", ""),
    _Q("memory", "每卡内存占用从多少降到多少？", "Memory per device, before and after?", ""),
    _Q("data_size", "数据量多大（tokens、样本数、TB）？", "How much data (tokens, samples, TB)?", ""),
    _Q("role", "你本人具体负责哪一部分？", "Which part did you own personally?", ""),
    _Q("result", "最终结果是什么（可量化的指标）？", "What was the outcome, as a measurable figure?", ""),
    _Q("tools", "这段经历用到了 JD 提到的哪些技术？", "Which of the JD's skills did this work involve?", ""),
)}

_SCALE_SKILLS = {
    "data_parallel", "tensor_parallel", "pipeline_parallel", "sequence_parallel", "expert_parallel",
    "hybrid_parallel", "zero", "fsdp", "deepspeed", "megatron", "pytorch_distributed", "nccl", "cluster_design",
    "gpu_hardware", "collective_communication", "elastic_training", "interconnect",
}
_PERF_SKILLS = {
    "profiling", "mfu", "comm_overlap", "mixed_precision", "gradient_compression", "activation_checkpointing",
}
_MEMORY_SKILLS = {"zero", "fsdp", "activation_checkpointing", "gpu_memory"}
_RELIABILITY_SKILLS = {
    "checkpointing", "checkpoint_resume", "fault_tolerance", "elastic_training", "hang_debugging",
    "hardware_faults", "training_stability",
}
_TRAIN = re.compile(r"train|训练|预训练|pretrain|fine-?tun|微调|大模型|LLM|step\s+time|每步|迭代", re.I)
_CLUSTER = re.compile(r"集群|cluster|分布式|distributed|多机|多卡|nodes?\b|节点", re.I)
_MODEL_SKILLS = {"data_parallel", "tensor_parallel", "pipeline_parallel", "sequence_parallel", "expert_parallel",
                 "hybrid_parallel", "zero", "fsdp", "deepspeed", "megatron", "finetuning", "rlhf"}
_MFU = re.compile(r"MFU|HFU|利用率|utili[sz]ation", re.I)
_THROUGHPUT = re.compile(r"吞吐|throughput|tokens?/s|QPS|samples?/s", re.I)
_LATENCY = re.compile(r"延迟|时延|latency|TTFT|首 ?token|p9\d", re.I)
_MEMORY_WORDS = re.compile(r"显存|内存|memory|OOM|offload|卸载", re.I)
_PERF = re.compile(
    r"优化|加速|提升|提速|降低|缩短|\boptimi[sz]|\bspeed(?:up|ed)?\b|\bsped\b|faster|\baccelerat|\bimprov|\breduc|"
    r"\bboost|\btun(?:e|ed|ing)\b|\bcut\b",
    re.I,
)
_EFFICIENCY = re.compile(
    r"平台|工具|自动化|流程|节省|成本|\bautomat|\bplatform|\btool|\bworkflow|\bsav(?:e|ed|ing)\b|\bcost", re.I
)
_DATA = re.compile(r"数据|语料|token|corpus|dataset|data\b", re.I)
_SHARED_ROLE = re.compile(
    r"参与|协助|配合|我们|团队|\b(?:participated|helped|assisted|involved|contributed|we|team)\b", re.I
)
_VAGUE = re.compile(
    r"\b(?:big|large|huge|massive|many|lots of|significantly|greatly|dramatically|various|several|substantial(?:ly)?)\b"
    r"|大量|显著|大幅|很多|若干|一些|极大|明显|较大|大规模|多个",
    re.I,
)
# Is a quantity of this kind already in the bullet?
_PRESENT: dict[str, re.Pattern[str]] = {
    "gpus": re.compile(r"\d[\d,.]*\s*[kK万千]?\s*(?:张|块|台)?\s*(?:GPUs?|卡|cards?|nodes?|节点|机)|[千万百]卡", re.I),
    "model_size": re.compile(
        r"\d+(?:\.\d+)?\s*(?:[BMT](?![A-Za-z])|亿|billion|million)|[百千万]亿|params?\b|参数", re.I
    ),
    "speedup": re.compile(r"\d+(?:\.\d+)?\s*(?:x\b|×|倍|%|％)", re.I),
    "mfu": re.compile(r"\d+(?:\.\d+)?\s*(?:%|％)", re.I),
    "throughput": re.compile(
        r"\d[\d,.]*\s*[kK万]?\s*(?:tokens?/s|QPS|samples?/s)|吞吐.{0,12}\d|throughput.{0,16}\d", re.I
    ),
    "latency": re.compile(r"\d+(?:\.\d+)?\s*(?:ms|毫秒|s\b|秒)|延迟.{0,12}\d|latency.{0,16}\d", re.I),
    "baseline": re.compile(r"\bfrom\b.+\bto\b|从.+(?:到|至)|baseline|基线|相比|相较|compared|\bvs\.?\b|versus", re.I),
    "time_saved": re.compile(r"\d\s*(?:hours?|hrs?|days?|weeks?|minutes?|mins?|小时|天|周|分钟)", re.I),
    "cost_saved": re.compile(r"\d\s*(?:元|万元|美元|USD|\$|GPU-?hours?|卡时)|\$\s*\d|成本.{0,6}\d|cost.{0,12}\d", re.I),
    "failure_rate": re.compile(
        r"(?:故障|失败|中断|failure|interrupt|crash|MTBF).{0,12}\d|\d.{0,6}(?:故障|failures?)", re.I
    ),
    "recovery_time": re.compile(r"(?:恢复|recover|restart|重启|MTTR).{0,12}\d", re.I),
    "memory": re.compile(r"\d+(?:\.\d+)?\s*(?:GB|GiB|MB|TB)|memory.{0,12}\d|显存.{0,8}\d", re.I),
    "data_size": re.compile(r"\d+(?:\.\d+)?\s*[BMTK]?\s*(?:tokens?|samples?|样本|条|TB|PB)", re.I),
    "result": re.compile(
        r"\d+(?:\.\d+)?\s*(?:x\b|×|倍|%|％)|\d.{0,20}(?:降|升|提|减|增|reduc|increas|improv|cut)", re.I
    ),
}


def lang_of(text: str) -> str:
    return "zh" if re.search(r"[\u4e00-\u9fff]", text) else "en"


def questions_for(bullet: str, answers: dict[str, str] | None = None,
                  jd: JDAnalysis | None = None) -> list[StarQuestion]:
    """The questions worth asking about `bullet`: for quantities its topic calls for that it lacks and the
    user has not answered yet; with a JD, also which of the JD's skills the bullet does not name were used."""
    answered = {k for k, v in (answers or {}).items() if str(v).strip()}
    skills = set(stated_skills(bullet))
    keys: list[str] = []
    if skills & _SCALE_SKILLS or _TRAIN.search(bullet) or _CLUSTER.search(bullet):
        keys.append("gpus")
    if _TRAIN.search(bullet) or skills & _MODEL_SKILLS:
        keys.append("model_size")  # asked of training work, not of a cluster or a tool
    # The figure that measures this bullet's goal: MFU for an MFU bullet (not its memory), latency for serving...
    goal = [k for k, p in (("mfu", _MFU), ("throughput", _THROUGHPUT), ("latency", _LATENCY)) if p.search(bullet)]
    if "mfu" in skills and "mfu" not in goal:
        goal.insert(0, "mfu")
    keys += goal
    if not goal and (skills & _PERF_SKILLS or _PERF.search(bullet)):
        keys += ["speedup"]
    if skills & _PERF_SKILLS or _PERF.search(bullet) or goal:
        keys.append("baseline")
    if _MEMORY_WORDS.search(bullet) or (skills & _MEMORY_SKILLS and not goal):
        keys.append("memory")
    if skills & _RELIABILITY_SKILLS:
        keys += ["failure_rate", "recovery_time"]
    if _EFFICIENCY.search(bullet):
        keys += ["time_saved", "cost_saved"]
    if _DATA.search(bullet):
        keys.append("data_size")
    if _SHARED_ROLE.search(bullet):
        keys.append("role")
    if not any(k in keys for k in ("speedup", "failure_rate", "time_saved", "memory", "mfu", "throughput", "latency")):
        keys.append("result")  # every bullet needs an outcome
    keys = list(dict.fromkeys(keys))
    out = [QUESTIONS[k] for k in keys if k not in answered and not (k in _PRESENT and _PRESENT[k].search(bullet))]
    if jd is not None and "tools" not in answered:
        named = covered_skills(bullet)
        unnamed = [k for k in jd.skills if k not in named][:6]
        if unnamed:
            zh, en = "、".join(skill_name(k, "zh") for k in unnamed), ", ".join(skill_name(k) for k in unnamed)
            out.append(_Q("tools", f"JD 还要求：{zh}。这段经历用到了其中哪些？（没用到就留空）",
                          f"The JD also asks for: {en}. Which of these did this work involve? (empty if none)", ""))
    return out


def vague_words(bullet: str) -> list[str]:
    """Words that promise a size without giving it ("big", "大量"): each deserves a number."""
    return list(dict.fromkeys(m.group(0) for m in _VAGUE.finditer(bullet)))


# ---- results ------------------------------------------------------------------------------------------------


@dataclass
class StarStory:
    situation: str | None = None
    task: str | None = None
    action: str | None = None
    result: str | None = None

    def missing(self) -> list[str]:
        return [k for k in ("situation", "task", "action", "result") if not getattr(self, k)]


@dataclass(frozen=True)
class Variant:
    style: str                    # impact | result_first | concise | keywords | llm
    text: str
    keywords: tuple[str, ...]     # JD skill ids this bullet covers

    def keyword_names(self, lang: str = "en") -> list[str]:
        return [skill_name(k, lang) for k in self.keywords]


@dataclass
class RewriteResult:
    bullet: str
    lang: str
    questions: list[StarQuestion]          # still unanswered
    vague: list[str]
    star: StarStory
    variants: list[Variant]
    rejected: list[guard.Rejected] = field(default_factory=list)  # held back by the fact check, with why
    engine: str = "offline"                # offline | llm
    notice: str | None = None              # shown to the user when the LLM path fell back
    flagged: list[str] = field(default_factory=list)  # instructions found in the bullet: data, never obeyed

    @property
    def after(self) -> str | None:
        """The rewrite to show next to the bullet (before / after); None when every candidate was held back."""
        return self.variants[0].text if self.variants else None


def answer_sources(answers: dict[str, str]) -> list[str]:
    """Answers as source lines, each with the label of its question ("GPUs 卡 64")."""
    lines = []
    for key, value in answers.items():
        if str(value).strip():
            label = QUESTIONS[key].label if key in QUESTIONS else ""
            lines.append(f"{label} {value}".strip())
    return lines


def rewrite(bullet: str, answers: dict[str, str] | None = None, resume_text: str = "", jd: JDAnalysis | None = None,
            llm: LLMClient | None = None, lang: str | None = None,
            confirmed: list[str] | None = None) -> RewriteResult:
    """STAR story and bullet variants for `bullet`, using only the bullet, `answers` (question key -> the user's
    answer, see `QUESTIONS`; also "situation" / "task" free text) and `confirmed` (facts from elsewhere in the
    résumé the user said belong to this bullet). The rest of `resume_text` backs nothing (see `coach.guard`).

    Instructions inside the bullet are cut out first and listed in `flagged`: they are neither rewritten nor sent
    to the LLM."""
    answers = {k: str(v).strip() for k, v in (answers or {}).items() if str(v).strip()}
    flagged = guard.instructions(bullet)
    clean = guard.without_instructions(bullet)
    lang = lang or lang_of(clean or bullet)
    src = guard.sources(clean, answer_sources(answers), confirmed, context=resume_text)
    offline = _offline(bullet, clean, answers, lang, jd, src)
    offline.flagged = flagged
    if llm is None or not llm.enabled or not clean:
        return offline
    try:
        result = _with_llm(clean, answers, guard.without_instructions(resume_text), jd, lang, llm, src, offline)
    except LLMUnavailable as e:
        offline.notice = fallback_notice(e.reason)
        return offline
    result.bullet, result.flagged = bullet, flagged
    return result


def _offline(bullet: str, clean: str, answers: dict[str, str], lang: str, jd: JDAnalysis | None,
             src: guard.Sources) -> RewriteResult:
    questions = questions_for(clean, answers, jd)
    if not clean:  # the bullet was only an instruction: nothing of the user's to rewrite
        return RewriteResult(bullet, lang, questions, [], StarStory(), [])
    parts = _Parts(clean, answers, lang)
    star = StarStory(parts.situation(), answers.get("task") or answers.get("role"), parts.action(star=True),
                     parts.result(star=True))
    texts = parts.variants(jd)
    kept, rejected = guard.screen([t for _, t in texts], src)
    styles = {t: s for s, t in texts}
    variants = [Variant(styles[t], t, _keywords(t, jd)) for t in kept]
    star, star_rejected = _screen_star(star, src)
    return RewriteResult(bullet, lang, questions, vague_words(clean), star, variants, rejected + star_rejected)


def _keywords(text: str, jd: JDAnalysis | None) -> tuple[str, ...]:
    if jd is None:
        return ()
    have = covered_skills(text)
    return tuple(k for k in jd.skills if k in have)


def _screen_star(star: StarStory, src: guard.Sources) -> tuple[StarStory, list[guard.Rejected]]:
    rejected = []
    for name in ("situation", "task", "action", "result"):
        text = getattr(star, name)
        if text and (problems := guard.check(text, src)):
            rejected.append(guard.Rejected(text, tuple(problems)))
            setattr(star, name, None)
    return star, rejected


# ---- the offline engine -----------------------------------------------------------------------------------

_PAST = {
    "train": "Trained", "build": "Built", "design": "Designed", "implement": "Implemented", "optimize": "Optimized",
    "optimise": "Optimised", "reduce": "Reduced", "improve": "Improved", "develop": "Developed", "scale": "Scaled",
    "run": "Ran", "write": "Wrote", "lead": "Led", "make": "Made", "fix": "Fixed", "debug": "Debugged",
    "deploy": "Deployed", "migrate": "Migrated", "automate": "Automated", "speed": "Sped", "create": "Created",
    "profile": "Profiled", "tune": "Tuned", "port": "Ported", "add": "Added", "support": "Supported",
}
# Weak openings and the strongest verb that claims no more: 做了 is 实现, never 主导; "helped" stays a contribution.
_STRONGER_ZH = (
    (re.compile(r"^(?:我)?(?:做了|做过|搞了|搞定了|弄了|完成了|实现了)"), "实现"),
    (re.compile(r"^(?:我)?写了"), "编写"),
    (re.compile(r"^(?:我)?(?:用了|使用了)"), "使用"), (re.compile(r"^(?:我)?(?:改了|改进了)"), "改进"),
    (re.compile(r"^(?:我)?(?:帮忙|帮助)(?:做了|做)?"), "协助"), (re.compile(r"^(?:我)?参与了"), "参与"),
    (re.compile(r"^(?:我)?负责了"), "负责"),
)
_STRONGER_EN = (
    (re.compile(r"^(?:i\s+)?(?:did|done)\s+", re.I), "Implemented "),
    (re.compile(r"^(?:i\s+)?worked\s+on\s+", re.I), "Developed "),
    (re.compile(r"^(?:i\s+)?(?:was\s+)?responsible\s+for\s+", re.I), "Owned "),
    (re.compile(r"^(?:i\s+)?helped\s+(?:with\s+|to\s+)?", re.I), "Contributed to "),
)
_USED = re.compile(
    r"^(?:used|using|use|utili[sz]ed|leveraged|applied)\s+(?P<tool>.+?)\s+(?:to|for)\s+(?P<what>.+)$", re.I
)
_BIG_MODEL = re.compile(r"\b(?:an?\s+)?(?:big|large|huge|giant)\s+(?:language\s+)?models?\b", re.I)
_BARE_NUMBER = re.compile(r"[\d.,]+\s*[kK]?")
_BARE_SIZE = re.compile(r"[\d.,]+\s*(?:[BMT]|亿|万亿|billion|million)?", re.I)
_BARE_RATIO = re.compile(r"[\d.,]+\s*(?:x|×|倍|%|％)?", re.I)


class _Parts:
    """The pieces of a rewrite, phrased in the bullet's language from the bullet and the answers only."""

    def __init__(self, bullet: str, answers: dict[str, str], lang: str) -> None:
        self.bullet = bullet.strip().rstrip("。.;；，, ")
        self.a = answers
        self.zh = lang == "zh"

    def scale(self) -> str | None:
        g = self.a.get("gpus")
        if not g:
            return None
        if _BARE_NUMBER.fullmatch(g):
            return f"{g} 张 GPU" if self.zh else f"{g} GPUs"
        return g

    def model(self) -> str | None:
        m = self.a.get("model_size")
        if not m:
            return None
        if _BARE_SIZE.fullmatch(m):
            return (f"{m} 参数" if m[-1].isascii() else f"{m}参数") if self.zh else f"{m}-parameter"
        return m

    def action(self, star: bool = False) -> str:
        """The bullet as an action. In a STAR story the scale and model size already stand in the situation."""
        text, model, scale = self.bullet, self.model(), self.scale()
        if star and self.situation():
            model = scale = None
        said = {q.value for q in quantities(text)}
        model, scale = (x if x and not {q.value for q in quantities(x)} <= said else None for x in (model, scale))
        if self.zh:
            for weak, strong in _STRONGER_ZH:
                text = weak.sub(strong, text, count=1)
            if model and "大模型" in text:
                text = text.replace("大模型", f" {model}大模型", 1).replace("  ", " ")
            elif model:
                text += f"（模型规模：{model}）"
            return f"在 {scale} 上{text}" if scale else text
        for weak, strong in _STRONGER_EN:
            text = weak.sub(strong, text, count=1)
        if m := _USED.match(text):
            text = f"{m.group('what')} with {m.group('tool')}"
        first, _, rest = text.partition(" ")
        text = f"{_PAST.get(first.lower(), first[:1].upper() + first[1:])} {rest}".strip()
        if model and _BIG_MODEL.search(text):
            text = _BIG_MODEL.sub(f"a {model} model", text, count=1)
        elif model:
            text += f" ({model} model)"
        return f"{text} on {scale}" if scale else text

    def result(self, star: bool = False) -> str | None:
        """The outcome from the answers, leaving out figures the action already states (no number twice)."""
        a, pieces = self.a, []
        stated = {q.value for q in quantities(self.action(star))}
        fresh = [k for k in a if not {q.value for q in quantities(a[k])} <= stated or not quantities(a[k])]
        a = {k: v for k, v in a.items() if k in fresh}
        if s := a.get("speedup"):
            ratio = _BARE_RATIO.fullmatch(s)
            piece = (f"加速 {s}" if ratio else s) if self.zh else (f"{s} speedup" if ratio else s)
            if b := a.get("baseline"):
                piece += f"（基线：{b}）" if self.zh else f" over {b}"
            pieces.append(piece)
        elif b := a.get("baseline"):
            pieces.append(f"对比基线：{b}" if self.zh else f"compared with {b}")
        labels = (
            ("mfu", "MFU {}", "MFU {}"), ("throughput", "吞吐 {}", "throughput {}"),
            ("latency", "延迟 {}", "latency {}"),
            ("time_saved", "节省 {}", "saving {}"), ("cost_saved", "成本降低 {}", "cutting cost by {}"),
            ("failure_rate", "故障率 {}", "failure rate {}"), ("recovery_time", "恢复时间 {}", "recovery time {}"),
            ("memory", "每卡占用 {}", "memory per device {}"), ("result", "{}", "{}"),
        )
        for key, zh, en in labels:
            if v := a.get(key):
                # A Chinese answer that is a phrase ("每周中断从 5 次降到 1 次") reads better without the label.
                label = (zh if self.zh else en).split(" ")[0]
                phrase = (self.zh and re.search(r"[\u4e00-\u9fff]", v)) or label.lower() in v.lower()
                pieces.append(v if phrase else (zh if self.zh else en).format(v))
        if not pieces:
            return None
        return "，".join(pieces) if self.zh else ", ".join(pieces)

    def situation(self) -> str | None:
        if s := self.a.get("situation"):
            return s
        model, scale, data = self.model(), self.scale(), self.a.get("data_size")
        if not (model or scale or data):
            return None
        if self.zh:
            where = f"在 {scale} 上" if scale else ""
            what = f"训练 {model}模型" if model else "训练"
            return where + what + (f"，数据量 {data}" if data else "")
        what = f"Training a {model} model" if model else "Training"
        return what + (f" on {scale}" if scale else "") + (f" with {data} of data" if data else "")

    def variants(self, jd: JDAnalysis | None) -> list[tuple[str, str]]:
        action, result = self.action(), self.result()
        end = "。" if self.zh else "."
        out: list[tuple[str, str]] = []
        baseline_only = bool(result) and result.startswith(("对比基线", "compared with"))
        if result:
            if self.zh:
                impact = f"{action}，{result}{end}"
            elif baseline_only:
                impact = f"{action}, {result}{end}"
            else:  # "achieving 1.8x speedup", but not "achieving allowed a larger batch"
                impact = f"{action}, achieving {result}{end}" if result[0].isdigit() else f"{action}: {result}{end}"
            out.append(("impact", impact))
        if result and not baseline_only:  # "Compared with X: did Y" leads with nothing
            head = result[:1].upper() + result[1:] if not self.zh else result
            out.append(("result_first", f"{head}：{action}{end}" if self.zh else f"{head}: {action}{end}"))
        out.append(("concise", action + end))
        if extra := self._jd_terms(jd, out[0][1]):
            joined = "、".join(extra) if self.zh else ", ".join(extra)
            base = out[0][1][:-1]
            out.append(("keywords", f"{base}；涉及 {joined}{end}" if self.zh else f"{base}; using {joined}{end}"))
        return out

    def _jd_terms(self, jd: JDAnalysis | None, text: str) -> list[str]:
        """JD skills the user's answers about this bullet state but `text` does not, in the user's spelling.
        Only the answers: a skill listed elsewhere in the résumé may belong to another project."""
        if jd is None:
            return []
        in_text = covered_skills(text)
        stated = stated_skills("\n".join(answer_sources(self.a)))
        terms = []
        for skill_id in jd.skills:
            if skill_id in in_text or skill_id not in stated:
                continue
            aliases = [a for a in stated[skill_id] if not a.endswith(("⇒", "≈"))]
            alias = max(aliases, key=len, default=None)  # the most specific: ZeRO-3 over ZeRO
            if alias:
                terms.append(alias)
        return terms


# ---- the LLM path -------------------------------------------------------------------------------------------


class LLMStar(BaseModel):
    situation: str | None = None
    task: str | None = None
    action: str | None = None
    result: str | None = None


class LLMRewrite(BaseModel):
    star: LLMStar
    variants: list[str] = Field(min_length=1, max_length=6)


def _with_llm(bullet: str, answers: dict[str, str], resume_text: str, jd: JDAnalysis | None, lang: str,
              llm: LLMClient, src: guard.Sources, offline: RewriteResult) -> RewriteResult:
    labelled = {(QUESTIONS[k].en if k in QUESTIONS else k): v for k, v in answers.items()}
    keywords = [skill_name(k, lang) for k in (jd.skills if jd else {})]
    reply = llm.chat_json(rewrite_messages(bullet, labelled, resume_text, keywords, lang), LLMRewrite, "star_rewrite")
    kept, rejected = guard.screen([v.strip() for v in reply.variants if v.strip()], src)
    star, star_rejected = _screen_star(StarStory(**reply.star.model_dump()), src)
    for name in ("situation", "task", "action", "result"):  # fill what the LLM left out with the offline text
        if getattr(star, name) is None:
            setattr(star, name, getattr(offline.star, name))
    result = RewriteResult(bullet, lang, offline.questions, offline.vague, star,
                           [Variant("llm", t, _keywords(t, jd)) for t in kept], rejected + star_rejected, "llm")
    if not kept:
        result.variants = offline.variants
        result.engine = "offline"
        result.notice = "LLM output failed the fact check (see rejected): offline result shown"
    return result
