"""Figures that follow from the user's own: "40 s to 12 s" backs "70% faster", "3.3x" and "saved 28 s"; the
guard (`coach.guard`) accepts them, and rejects the same claims when the arithmetic is wrong.

Derived from pairs of source quantities of the same kind (two times, two percentages, two counts; a bare
number pairs with anything): the ratio, the change as a percentage of either, the difference, and for counts
the product (8 nodes x 8 GPUs = 64 GPUs). A derived figure must match within the rounding its own digits
show ("70%" within 0.5 points, "3.3x" within 0.05), or within 5% after a hedge (about, nearly, 约, 近).

Quantities in words ("doubled", 翻倍, "an order of magnitude", 数倍) are factors: each must be backed by a
factor the sources state or derive (a ratio, 1 + p/100 for a p% gain, 1/(1 - p/100) for a p% cut).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from itertools import combinations

from coach.numbers import BYTES, SECONDS, Quantity, base_value

_HEDGE = re.compile(
    r"(?:about|around|approximately|approx\.?|roughly|nearly|almost|over|more\s+than|up\s+to|~|≈|约|大约|近|将近|"
    r"接近|超过|逾|超|多达)\s*$",
    re.IGNORECASE,
)
HEDGE_TOLERANCE = 0.05


@dataclass(frozen=True)
class Factors:
    """Multiplicative factors (each >= 1) that the sources state or derive."""
    values: tuple[float, ...]


@dataclass(frozen=True)
class Factor:
    """The factor a word claims: a range, since "doubled" is 2 within rounding and 数倍 is anything from 2 up."""
    low: float
    high: float

    def backed_by(self, factors: Factors) -> bool:
        return any(self.low <= f <= self.high for f in factors.values)

    @property
    def typical(self) -> float:
        return self.low if math.isinf(self.high) else (self.low + self.high) / 2


# Longer phrases first, so 几个数量级 is not also read as 一个数量级.
_WORDS: tuple[tuple[re.Pattern[str], Factor], ...] = tuple((re.compile(p, re.IGNORECASE), f) for p, f in (
    (r"\borders\s+of\s+magnitude\b|几个数量级|多个数量级|数个数量级", Factor(50, math.inf)),
    (r"\ban?\s+order\s+of\s+magnitude\b|一个数量级|数量级", Factor(7, 15)),
    (r"\b(?:ten|10)-?fold\b|\bhundredfold\b", Factor(9, 11)),
    (r"\bquadrupl\w*|\bfour-?fold\b|翻了?两番", Factor(3.7, 4.3)),
    (r"\btripl(?:e|ed|es|ing)\b|\bthree-?fold\b", Factor(2.8, 3.2)),
    (r"\bdoubl(?:e|ed|es|ing)\b|\btwice\b|\btwo-?fold\b|翻了?一?(?:番|倍)|加倍|(?:增加|提升|提高|增长)了?一倍",
     Factor(1.85, 2.15)),
    (r"\bhalv(?:e|ed|es|ing)\b|\bin\s+half\b|\bby\s+half\b|\bhalf\s+the\b|减半|砍半|"
     r"(?:减少|降低|缩短|少|降)了?一半", Factor(1.85, 2.15)),
    (r"\bseveral[\s-]?(?:fold|times)\b|\bmulti-?fold\b|\bmany[\s-]?fold\b|\bmultiple\s+times\b|数倍|成倍|几倍|多倍|"
     r"倍增", Factor(2, math.inf)),
))


def implied_factors(text: str) -> list[tuple[str, Factor]]:
    """Quantities stated in words: (the words, the factor they claim)."""
    out: list[tuple[str, Factor]] = []
    taken: list[tuple[int, int]] = []
    for pattern, factor in _WORDS:
        for m in pattern.finditer(text):
            if not any(a < m.end() and m.start() < b for a, b in taken):
                taken.append(m.span())
                out.append((m.group(0), factor))
    return out


_CN_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_FRACTIONS = re.compile(
    r"\b(?:(?P<en_n>a|one|two|three)[\s-]+(?P<en_d>half|third|quarter|fifth|tenth)s?\b)"
    rf"|(?P<cn_d>[{''.join(_CN_DIGITS)}])分之(?P<cn_n>[{''.join(_CN_DIGITS)}])",
    re.IGNORECASE,
)
_EN_PARTS = {"a": 1, "one": 1, "two": 2, "three": 3, "half": 2, "third": 3, "quarter": 4, "fifth": 5, "tenth": 10}


def implied_percents(text: str) -> list[tuple[str, float]]:
    """Shares in words ("a third", 三分之一): (the words, the percentage they claim). "half" is a factor instead
    (see `_WORDS`), so "a half" is left to it."""
    out = []
    for m in _FRACTIONS.finditer(text):
        if m.group("en_n"):
            if m.group("en_d").lower() == "half":
                continue
            n, d = _EN_PARTS[m.group("en_n").lower()], _EN_PARTS[m.group("en_d").lower()]
        else:
            n, d = _CN_DIGITS[m.group("cn_n")], _CN_DIGITS[m.group("cn_d")]
        out.append((m.group(0), 100 * n / d))
    return out


def factors_of(text: str, qs: list[Quantity]) -> Factors:
    """Every factor the sources support: stated ratios, percentages as factors, pair ratios, words."""
    out: list[float] = []
    for q in qs:
        if q.unit == "x" and q.value > 0:
            out.append(max(q.value, 1 / q.value))
        elif q.unit == "%":
            out.append(1 + q.value / 100)
            if q.value < 100:
                out.append(1 / (1 - q.value / 100))
    out += [max(a, b) / min(a, b) for a, b in _pairs(qs) if min(a, b) > 0]
    out += [f.typical for _, f in implied_factors(text)]
    return Factors(tuple(out))


def derived_match(q: Quantity, text: str, sources: list[Quantity]) -> bool:
    """Whether `q` (a quantity of the candidate `text`) follows from the source quantities."""
    hedged = bool(_HEDGE.search(text[max(0, q.start - 14):q.start]))
    return any(_close(q, t, hedged) for t in targets(q.unit, sources))


def targets(unit: str, sources: list[Quantity]) -> list[float]:
    """The values a candidate quantity with `unit` may take, derived from `sources` (in the candidate's unit
    class base: seconds for times, bytes for sizes)."""
    pairs = _pairs(sources)
    if unit == "%":
        out = [abs(a - b) / d * 100 for a, b in pairs for d in (a, b) if d > 0]
        out += [min(a, b) / max(a, b) * 100 for a, b in pairs if max(a, b) > 0]
        out += [(r - 1) * 100 for r in _ratios(sources)] + [(1 - 1 / r) * 100 for r in _ratios(sources) if r > 0]
        return out
    if unit == "x":
        out = [max(a, b) / min(a, b) for a, b in pairs if min(a, b) > 0]
        out += [1 + p / 100 for p in _percents(sources)] + [1 / (1 - p / 100) for p in _percents(sources) if p < 100]
        return out
    out = [abs(a - b) for a, b in pairs]
    counts = [q for q in sources if q.unit not in ("%", "x") and q.unit not in SECONDS and q.unit not in BYTES]
    return out + [a.value * b.value for a, b in combinations(counts, 2)]


def _close(q: Quantity, target: float, hedged: bool) -> bool:
    value = base_value(q)
    scale = value / q.value if q.value else 1.0
    digits = re.search(r"\.(\d+)", q.text)
    tolerance = 0.5 * 10 ** -(len(digits.group(1)) if digits else 0) * scale
    if hedged:
        tolerance = max(tolerance, HEDGE_TOLERANCE * abs(target))
    return abs(value - target) <= tolerance + 1e-9


def _pairs(qs: list[Quantity]) -> list[tuple[float, float]]:
    """Pairs of quantities of one kind, as base values: (40 s, 12 s), (2 h, 30 min), (40%, 55%), (8, 64 GPUs)."""
    return [(base_value(a), base_value(b)) for a, b in combinations(qs, 2) if unit_kind(a) == unit_kind(b) or not (
        unit_kind(a) and unit_kind(b))]


def unit_kind(q: Quantity) -> str:
    """What a unit measures: time, bytes, or the unit itself (%, x, gpu, node)."""
    return "time" if q.unit in SECONDS else "bytes" if q.unit in BYTES else q.unit


def _ratios(qs: list[Quantity]) -> list[float]:
    return [q.value for q in qs if q.unit == "x"]


def _percents(qs: list[Quantity]) -> list[float]:
    return [q.value for q in qs if q.unit == "%"]
