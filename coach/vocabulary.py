"""Ordinary words, learnt from our own question bank: what the guard may take as plain language.

A tool or a product has no shape that gives it away when written in lower case ("jax", "sglang") or in Chinese
(星河大模型, 极光科技). What it lacks is currency: our bank's prose, thousands of sentences on distributed
training, uses the ordinary words of the field ("retries", "sharded", 对话, 训练) and names tools mostly in code
spans. So a word is ordinary when the bank's prose uses it outside code, and a name when it does not.

- English: lower-case words of the bank's prose (code spans, links and id fields cut out), minus every word
  that ever appears inside a code span (`torchrun`: a command) and every word the bank writes capitalised in
  mid-sentence at least as often as in lower case (Triton: a name). Tool names that the prose writes in lower
  case (nsys) are taxonomy aliases, which the guard checks as skills before it asks whether a word is plain.
- Chinese: every two-character pair of the bank's Chinese text (no segmenter: a pair is enough to tell 训练
  from 星河, and jieba would cost a second on the first call).

Read once from the YAML files as text (about 0.1 s), not through the bank's validating loader.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from pathlib import Path

QUESTIONS_DIR = Path(__file__).resolve().parent.parent / "question_bank" / "questions"

_CODE = re.compile(r"`[^`\n]*`")
_NOT_PROSE = re.compile(r"^\s*-?\s*(?:url|repo|path|id|tags|labs|aliases|pattern|patterns):.*$|\S*://\S*", re.MULTILINE)
_WORD = re.compile(r"(?<![A-Za-z0-9_./-])[a-z]{2,}(?![A-Za-z0-9_/]|\.[a-z]|-[a-z])")
_CODE_WORD = re.compile(r"[a-z][a-z0-9_]+", re.IGNORECASE)
_MID_CAPITAL = re.compile(r"(?<=[a-z,] )[A-Z][A-Za-z]+")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]{2,}")


def _bank_text(root: Path) -> str:
    return "\n".join(f.read_text(encoding="utf-8") for f in sorted(root.glob("*.yaml")))


@cache
def english_words(root: Path = QUESTIONS_DIR) -> frozenset[str]:
    """Lower-case words the bank's prose uses outside code spans, minus any word seen inside one."""
    text = _NOT_PROSE.sub(" ", _bank_text(root))
    in_code = {w.lower() for span in _CODE.findall(text) for w in _CODE_WORD.findall(span)}
    prose = _CODE.sub(" ", text)
    lower = Counter(_WORD.findall(prose))
    capital = Counter(m.lower() for m in _MID_CAPITAL.findall(prose))  # "run it in Triton": a name
    return frozenset(w for w, n in lower.items() if n > capital[w] and w not in in_code)


@cache
def chinese_pairs(root: Path = QUESTIONS_DIR) -> frozenset[str]:
    """Every two-character pair of the bank's Chinese text."""
    pairs: set[str] = set()
    for run in _CJK_RUN.findall(_bank_text(root)):
        pairs.update(run[i:i + 2] for i in range(len(run) - 1))
    return frozenset(pairs)


_SUFFIXES = ("ingly", "edly", "ings", "ing", "ied", "ies", "ed", "es", "s", "ly", "er", "ers")


def stem(word: str) -> str:
    """A crude stem, enough to meet a word's other forms: serving, served, serves -> serv; retries -> retr."""
    w = word.lower()
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            break
    w = w[:-1] if w.endswith(("e", "y")) and len(w) > 3 else w
    return w[:-1] if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiou" else w


@cache
def _english_stems() -> frozenset[str]:
    return frozenset(stem(w) for w in english_words())


def ordinary_english(word: str) -> bool:
    """Whether a lower-case word is ordinary English: the bank uses it in some form (retries, cutting)."""
    return word.lower() in english_words() or stem(word) in _english_stems()


def ordinary_chinese(pair: str) -> bool:
    """Whether two Chinese characters are a pair the bank's prose uses."""
    return pair in chinese_pairs()
