"""Find the quantities a text states, in Arabic digits, Chinese numerals or English number words.

Used by the anti-fabrication check (`coach.guard`): a rewrite may only state a quantity that its sources state.
Each quantity is normalised to a value, so the same fact written differently still matches: 7B = 70亿 =
7 billion, 千卡 = 1000 卡 = 1k GPUs, 1.5x = 1.5倍. Units are not compared (20% and "20 points" are both 20);
comparing what a number counts would need understanding, and the value alone already stops invented figures.

What is deliberately not a quantity: digits inside identifiers (H100, fp16, ZeRO-3, GPT-4, 1F1B, 3D), which
`coach.guard` checks as terms instead; a lone 一 / "one" used as an article (一个方案, one of); numeral
characters inside words (统一, 百度, 千万不要), which are only quantities before a measure word or a scale.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SCALE = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12, "千": 1e3, "万": 1e4, "亿": 1e8, "百": 1e2}
_UNIT_AFTER = r"(?:%|％|x\b|X\b|×|倍)"
# Digits not glued to a preceding letter (H100, fp16) nor to "letter-" (ZeRO-3, GPT-4).
_ARABIC = re.compile(
    r"(?:(?<![A-Za-z0-9_.])(?<![A-Za-z]-)|(?<=\d[xX]))"  # "2x8" holds 8 too
    r"(?P<num>\d+(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s?(?P<cnscale>[千万亿百]+)|(?P<scale>[kKMBT])(?![A-Za-z])|\s+(?P<enscale>thousand|million|billion|trillion)\b)?"
    r"(?P<rest>[A-Za-z]*)"
)
_CN_DIGIT = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN_UNIT = {"十": 10, "百": 100, "千": 1000}
_CN_BIG = {"万": 1e4, "亿": 1e8}
# Measure words and scales after which a Chinese numeral states a quantity (千卡, 三倍, 两周, 十几个节点).
_CN_MEASURE = (
    r"(?:张|块|台|卡|个|位|倍|次|轮|条|项|套|种|篇|天|日|周|个月|月|年|小时|分钟|秒|节点|机|人|成|级|量级|规模|"
    r"参数|token|步|B\b|%|％|多|余|几|元|美元|块钱)"
)
_CN_NUMERAL = re.compile(
    r"(?P<vague>[数几上近超逾约]?)(?P<cn>[零〇一二两三四五六七八九十百千万亿]+)(?P<几>几|多|余)?"
    r"(?=\s*" + _CN_MEASURE + ")"
)
_CN_PERCENT = re.compile(r"百分之(?P<cn>[零〇一二两三四五六七八九十百]+)")
_EN_SMALL = {
    w: i for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen".split()
    )
} | {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if i > 1}
_EN_SCALE = {"hundred": 100, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "dozen": 12, "ten": 10}
_EN_WORD = "|".join(sorted([*_EN_SMALL, *_EN_SCALE, *(f"{w}s" for w in _EN_SCALE)], key=len, reverse=True))
_EN_NUMBER = re.compile(rf"\b(?:{_EN_WORD})(?:[\s-]+(?:and[\s-]+)?(?:{_EN_WORD}))*\b", re.IGNORECASE)
EN_NUMBER = _EN_NUMBER  # number words ("five", "twenty-one"), for the guard to tell them from names


@dataclass(frozen=True)
class Quantity:
    text: str       # as written: "7B", "千卡", "thirty-two"
    value: float    # normalised: 7e9, 1000.0, 32.0
    start: int
    unit: str = ""  # what follows it, normalised: % | x | s | ms | min | h | day | week | GB | gpu | node | ""


# What a unit written after a number means: its class, and for time and memory the factor to a base unit, so
# the guard can compare "2 h" with "30 min" when it checks a derived figure.
_UNITS: tuple[tuple[str, str], ...] = (
    (r"%|％|percent\b|个百分点", "%"), (r"x\b|X\b|×|倍|-?fold\b", "x"),
    (r"ms\b|毫秒", "ms"), (r"(?:s|sec|secs|seconds?)\b|秒", "s"), (r"(?:min|mins|minutes?)\b|分钟", "min"),
    (r"(?:h|hrs?|hours?)\b|小时", "h"), (r"days?\b|天|日", "day"), (r"weeks?\b|周|星期", "week"),
    (r"(?:months?)\b|个月", "month"),
    (r"TB\b|TiB\b", "TB"), (r"GB\b|GiB\b", "GB"), (r"MB\b|MiB\b", "MB"),
    (r"(?:GPUs?|cards?|卡|张卡|块卡|张GPU|张 GPU|块GPU|NPUs?)", "gpu"), (r"(?:nodes?|节点|台机器|台)", "node"),
)
_UNIT_AFTER_RE = tuple((re.compile(r"\s?(?:" + p + ")", re.IGNORECASE), u) for p, u in _UNITS)
SECONDS = {"ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0, "day": 86400.0, "week": 604800.0, "month": 2.6e6}
BYTES = {"MB": 1e6, "GB": 1e9, "TB": 1e12}


def unit_after(text: str, end: int) -> str:
    """The unit written right after a number ending at `end` ("" when none)."""
    for pattern, unit in _UNIT_AFTER_RE:
        if pattern.match(text, end):
            return unit
    return ""


def base_value(q: Quantity) -> float:
    """The value in its unit class's base unit (seconds, bytes); others as written."""
    return q.value * SECONDS.get(q.unit, BYTES.get(q.unit, 1.0))


def quantities(text: str) -> list[Quantity]:
    """Every quantity stated in `text`, in order of appearance."""
    found = _arabic(text)
    taken = [(q.start, q.start + len(q.text)) for q in found]
    for q in _chinese(text) + _english(text):
        if not any(a <= q.start < b for a, b in taken):
            found.append(q)
    return sorted(found, key=lambda q: q.start)


def values(text: str) -> set[float]:
    return {q.value for q in quantities(text)}


def same_value(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1.0)


def _arabic(text: str) -> list[Quantity]:
    out = []
    for m in _ARABIC.finditer(text):
        rest = m.group("rest")
        if rest and not re.fullmatch(r"x|X|[GMKTP]?B|[GMT]bps|ms|us|s|h|min|[TP]?FLOPS|GPUs?|nodes?|k", rest):
            continue  # 1F1B, 3D, 6ND: an identifier, not a count
        value = float(m.group("num").replace(",", ""))
        if cn := m.group("cnscale"):
            for ch in cn:
                value *= _SCALE[ch]
        elif m.group("scale"):
            value *= _SCALE[m.group("scale")]
        elif m.group("enscale"):
            value *= _EN_SCALE[m.group("enscale")]
        end = max(m.end(g) for g in ("num", "cnscale", "scale", "enscale"))  # an unmatched group ends at -1
        out.append(Quantity(text[m.start():m.end()], value, m.start(), unit_after(text, end)))
    return out


def _chinese(text: str) -> list[Quantity]:
    out = [Quantity(m.group(0), _chinese_value(m.group("cn")), m.start(), "%") for m in _CN_PERCENT.finditer(text)]
    for m in _CN_NUMERAL.finditer(text):
        cn = m.group("cn")
        if text[max(0, m.start() - 3):m.start()].endswith("百分之") or text[m.start():].startswith("百分之"):
            continue  # counted above as a percentage
        if cn == "一" and not m.group("vague") and not m.group("几"):
            if not re.match(r"\s*(?:倍|张|块|台|卡|节点|%|％)", text[m.end():]):
                continue  # 一个 / 一次 / 一套: an article, not a claim
        if cn in ("千万", "万万") and not re.match(r"\s*(?:级|参数|token|张|卡|条|次)", text[m.end():]):
            continue  # 千万 = "by all means"
        out.append(Quantity(m.group(0), _chinese_value(cn), m.start(), unit_after(text, m.end())))
    return out


def _chinese_value(cn: str) -> float:
    """三十二 -> 32, 千 -> 1000, 两百 -> 200, 百亿 -> 1e10, 一万二千 -> 12000 (a missing leading 一 is implied)."""
    total, section, digit = 0.0, 0.0, None
    for ch in cn:
        if ch in _CN_DIGIT:
            digit = _CN_DIGIT[ch]
        elif ch in _CN_UNIT:
            section += (1 if digit is None else digit) * _CN_UNIT[ch]
            digit = None
        else:  # 万 / 亿 multiply everything before them
            section += digit or 0
            total = (total + (section or 1)) * _CN_BIG[ch]
            section, digit = 0.0, None
    return total + section + (digit or 0)


def _english(text: str) -> list[Quantity]:
    out = []
    for m in _EN_NUMBER.finditer(text):
        words = [w for w in re.split(r"[\s-]+", m.group(0).lower()) if w != "and"]
        if words == ["one"] or words == ["zero"]:
            continue  # "one of", "zero-copy": not a count
        out.append(Quantity(m.group(0), _english_value(words), m.start(), unit_after(text, m.end())))
    return out


def _english_value(words: list[str]) -> float:
    total, current = 0.0, 0.0
    for w in words:
        if w in _EN_SMALL:
            current += _EN_SMALL[w]
        else:
            scale = _EN_SCALE[w.rstrip("s") if w not in _EN_SCALE else w]
            current = (current or 1) * scale
            if scale >= 1000:
                total, current = total + current, 0.0
    return total + current
