"""How rubric words are found in a text: term patterns, numbers with units, sentences. Shared by the bank's
validator (which rejects terms too generic to be evidence) and by `coach.grading` (which looks for them).

A term matches case-insensitively; an ASCII end must not touch another letter or digit ("TP" is not in "HTTP");
spaces and hyphens inside a term are interchangeable ("all-reduce" = "all reduce" = "allreduce" is not: a term
lists its spellings). A number is only compared with its unit: "17.5 GB" is 17.5e9 bytes, "30 分钟" 1800 s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

CJK = re.compile(r"[\u3400-\u9fff]")
_ASCII_WORD = re.compile(r"[A-Za-z0-9_]")
_DASHES = str.maketrans({"−": "-", "–": "-", "—": "-", "－": "-", "（": "(", "）": ")", "，": ",", "：": ":",
                         "％": "%", "／": "/", "＋": "+", "＝": "="})

# Unit spelling -> (dimension, factor to the dimension's base unit). Longest spellings are tried first.
UNITS: dict[str, tuple[str, float]] = {
    "B": ("bytes", 1.0), "bytes": ("bytes", 1.0), "byte": ("bytes", 1.0), "字节": ("bytes", 1.0),
    "KB": ("bytes", 1e3), "MB": ("bytes", 1e6), "GB": ("bytes", 1e9), "TB": ("bytes", 1e12), "PB": ("bytes", 1e15),
    "KiB": ("bytes", 2**10), "MiB": ("bytes", 2**20), "GiB": ("bytes", 2**30), "TiB": ("bytes", 2**40),
    "GB/s": ("bandwidth", 1e9), "TB/s": ("bandwidth", 1e12), "MB/s": ("bandwidth", 1e6),
    "Gbps": ("bits_per_s", 1e9), "Gb/s": ("bits_per_s", 1e9), "Tbps": ("bits_per_s", 1e12),
    "µs": ("time", 1e-6), "us": ("time", 1e-6), "微秒": ("time", 1e-6), "ms": ("time", 1e-3), "毫秒": ("time", 1e-3),
    "s": ("time", 1.0), "sec": ("time", 1.0), "secs": ("time", 1.0), "second": ("time", 1.0),
    "seconds": ("time", 1.0), "秒": ("time", 1.0), "秒钟": ("time", 1.0),
    "min": ("time", 60.0), "mins": ("time", 60.0), "minute": ("time", 60.0), "minutes": ("time", 60.0),
    "分钟": ("time", 60.0), "h": ("time", 3600.0), "hour": ("time", 3600.0), "hours": ("time", 3600.0),
    "小时": ("time", 3600.0), "day": ("time", 86400.0), "days": ("time", 86400.0), "天": ("time", 86400.0),
    "%": ("percent", 1.0), "percent": ("percent", 1.0),
    "x": ("times", 1.0), "×": ("times", 1.0), "倍": ("times", 1.0),
    "GPU": ("gpus", 1.0), "GPUs": ("gpus", 1.0), "卡": ("gpus", 1.0), "张卡": ("gpus", 1.0), "块卡": ("gpus", 1.0),
    "nodes": ("nodes", 1.0), "node": ("nodes", 1.0), "节点": ("nodes", 1.0), "台": ("nodes", 1.0),
    "steps": ("steps", 1.0), "step": ("steps", 1.0), "步": ("steps", 1.0),
    "bytes/param": ("bytes_per_param", 1.0), "字节/参数": ("bytes_per_param", 1.0),
    "TFLOPS": ("flops", 1e12), "PFLOPS": ("flops", 1e15), "FLOPs": ("flop", 1.0),
}
_SCALE = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12, "千": 1e3, "万": 1e4, "亿": 1e8}
_UNIT_ALT = "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True))
# A number not glued to a letter before it (H100, fp16, ZeRO-3), an optional scale, then an optional unit.
_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.])(?<![A-Za-z]-)(?P<num>\d+(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s?(?P<scale>[kKMT千万亿])(?![A-Za-z]))?"
    rf"(?:\s?(?P<unit>{_UNIT_ALT})(?![A-Za-z]))?"
)


def normalise(text: str) -> str:
    """Full-width punctuation and dashes as ASCII, so a pattern written once matches both."""
    return text.translate(_DASHES)


@cache
def term_pattern(term: str) -> re.Pattern[str]:
    """A case-insensitive pattern for one term (see the module docstring). ASCII case folding only: compiling a
    Unicode case-insensitive pattern costs a millisecond, and Chinese has no case."""
    term = normalise(term.strip())
    lead = re.match(r"-*", term).group(0)  # "--max-restarts" keeps its dashes: "fault_resume" is not "--resume"
    parts = re.split(r"[\s\-]+", term[len(lead):])
    ending = ""
    if term[-1].isascii() and term[-1].isalpha():
        parts[-1], ending = _inflections(parts[-1])  # "overlapped", "replicating", "GPUs" still state the term
    body = re.escape(lead) + r"[\s\-]*".join(re.escape(part) for part in parts) + ending
    before = r"(?<![A-Za-z0-9_])" if _ASCII_WORD.match(term[0]) else ""
    after = r"(?![A-Za-z0-9_])" if _ASCII_WORD.match(term[-1]) else ""
    return re.compile(before + body + after, re.IGNORECASE | re.ASCII)


def _inflections(word: str) -> tuple[str, str]:
    """(the word's stem, a pattern of its English endings): plural, past, -ing, -er, -ly, -al, with a doubled final
    consonant (overlapped) or a dropped final e (replicating). Only for a lowercase word of four letters or more:
    an acronym or an identifier ("NCCL", "RoCE", "GPU") only takes a plural."""
    if len(word) < 4 or not word.isalpha() or not word.islower():
        return word, r"(?:e?s)?"
    if word.endswith("e"):
        return word[:-1], r"(?:e|es|ed|er|ers|ing)"
    last = re.escape(word[-1])
    return word, rf"(?:s|es|ed|ing|er|ers|ly|ally|al|ical|{last}ed|{last}ing|{last}er)?"


@dataclass(frozen=True)
class Hit:
    """Where a term was found; the part of `re.Match` the callers use."""
    a: int
    b: int

    def start(self) -> int:
        return self.a

    def end(self) -> int:
        return self.b


@cache
def _plain(term: str) -> str | None:
    """The term itself when a substring search finds exactly what its pattern would: no ASCII, no space."""
    t = normalise(term.strip())
    return t if t and not any(c.isascii() for c in t) else None


def find_term(term: str, text: str) -> Hit | None:
    """The first place `text` states `term` (see `term_pattern`), or None."""
    if (plain := _plain(term)) is not None:
        i = text.find(plain)
        return Hit(i, i + len(plain)) if i >= 0 else None
    m = term_pattern(term).search(text)
    return Hit(m.start(), m.end()) if m else None


def mask_terms(terms: tuple[str, ...], text: str) -> str:
    """`text` with every occurrence of the terms blanked (longest terms first, so a phrase goes before its word)."""
    for term in terms:
        text = text.replace(plain, " ") if (plain := _plain(term)) is not None else term_pattern(term).sub(" ", text)
    return text


@dataclass(frozen=True)
class Number:
    text: str          # as written, unit included: "17.5 GB"
    value: float       # in the dimension's base unit: 17.5e9
    dimension: str     # bytes | time | percent | ... ; "" for a bare number
    start: int
    end: int


def numbers(text: str) -> list[Number]:
    """The numbers a text states, each with its unit's dimension when it has one."""
    out = []
    for m in _NUMBER.finditer(normalise(text)):
        value = float(m.group("num").replace(",", ""))
        if m.group("scale"):
            value *= _SCALE[m.group("scale")]
        dimension, factor = UNITS.get(m.group("unit") or "", ("", 1.0))
        out.append(Number(m.group(0), value * factor, dimension, m.start(), m.end()))
    return out


def unit_value(value: float, unit: str) -> tuple[str, float]:
    """(dimension, value in the base unit) of a fact written as `value` `unit`; KeyError for an unknown unit."""
    dimension, factor = UNITS[unit]
    return dimension, value * factor


# ---- what makes a term too generic to be evidence ---------------------------------------------------------

GENERIC_SHARE = 0.20  # a term in more than this share of the other questions' answers says nothing specific


def is_bare_number(term: str) -> bool:
    return bool(re.fullmatch(r"[\d.,\s]+", term.strip()))


def is_short_latin(term: str) -> bool:
    """A Latin term of two letters or fewer ("TP", "m", "α") matches too much by accident; "fp8" or "2S" are
    identifiers, kept."""
    t = term.strip()
    return not CJK.search(t) and not re.search(r"\d", t) and len(re.sub(r"[\W_]", "", t)) <= 2


def generic_reason(term: str, share: float) -> str | None:
    """Why `term` cannot be evidence ("bare number" ...), or None; `share` is its share of other answers."""
    if is_bare_number(term):
        return "a bare number without a unit (write it as a fact with value and unit)"
    if is_short_latin(term):
        return "a Latin term of 2 characters or fewer"
    if share > GENERIC_SHARE:
        return f"found in {share:.0%} of the other questions' answers (more than {GENERIC_SHARE:.0%})"
    return None


# ---- sentences and negation -------------------------------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=[A-Za-z0-9)\]%])\.(?=\s|$)|\n+")
_BULLET = re.compile(r"^\s*(?:[-*•·]|\d{1,2}[.)、])\s*")
MIN_SENTENCE_CHARS = 4


@dataclass(frozen=True)
class Sentence:
    text: str
    start: int   # offset in the answer


def sentences(text: str) -> list[Sentence]:
    """The text's sentences and bullet lines with their offsets, bullet marks dropped."""
    out, pos = [], 0
    for part in _SENTENCE_END.split(text):
        start = text.find(part, pos) if part else pos
        pos = start + len(part)
        stripped = _BULLET.sub("", part)
        lead = len(part) - len(stripped)
        body = stripped.strip()
        if len(body) >= MIN_SENTENCE_CHARS:
            out.append(Sentence(body, start + lead + (len(stripped) - len(stripped.lstrip()))))
    return out


# Words that deny what a clause says, or state it as a hypothesis or a consequence to avoid ("if you only save the
# model, Adam's moments reset"): a misconception stated to reject it is not one.
_NEGATION = re.compile(
    r"不是|不会|不能|不要|不用|不必|不再|不需要|并不|并非|而非|不|没有|没|无需|无法|没法|别|未必|误以为|误区|错误|以为|"
    r"如果|要是|假如|若|否则|不然|不像|不同于|会导致|会让|丢失|丢掉|丢了|重置|清零|灾难|糟糕|"
    r"\bnot\b|\bno\b|\bnever\b|n't\b|\bnor\b|\bwithout\b|\brather than\b|\binstead of\b|\bmyth\b|\bwrong\b|"
    r"\bdisaster|\bterrible\b|\bbad idea\b|\bcannot\b|\bmisconception\b|\bmistake\b|\bif\b|\botherwise\b|"
    r"\bunless\b|\bunlike\b|\bwould\b|\blose[sd]?\b|"
    r"\breset[s]?\b|\bbreaks?\b|\bfails?\b|\bmyth\b|\bthink\b|\bbelieve\b|\bassum",
    re.IGNORECASE,
)


def negated(clause: str) -> bool:
    """Whether the clause denies, supposes or warns about what it says (see `_NEGATION`)."""
    return bool(_NEGATION.search(clause))


_CONSEQUENCE = re.compile(
    r"会导致|导致|会让|丢失|丢掉|丢了|重置|清零|跳变|从零|重新起步|出错|崩溃|白跑|"
    r"\bwould\b|\bresets?\b|\blose[sd]?\b|\bbreaks?\b|\bfails?\b|\bcauses?\b|\bleads? to\b|\bcorrupt",
    re.IGNORECASE,
)


def consequence(clause: str) -> bool:
    """Whether the clause states a bad outcome: what comes before it ("只存权重再续训，Adam 会从零动量重新起步")
    is a warning, not a claim."""
    return bool(_CONSEQUENCE.search(clause))


_CLAUSE_END = re.compile(r"[,，;；:：。！？!?\n]|(?<=[A-Za-z0-9)\]%])\.(?=\s|$)|"
                         r"\s(?:and|but|while|whereas|however|although|though)\s|而且|并且|但是|但|而|然而|不过|虽然|以及")


def clauses(text: str) -> list[Sentence]:
    """The text cut at punctuation and at the connectives that join two statements ("A is X and B is Y")."""
    out, pos = [], 0
    for m in [*_CLAUSE_END.finditer(text), None]:
        end = m.start() if m else len(text)
        body = text[pos:end]
        if body.strip():
            out.append(Sentence(body.strip(), pos + len(body) - len(body.lstrip())))
        pos = m.end() if m else len(text)
    return out
