"""Bilingual BM25 search over the bank.

Each question is one document: its question text (weighted most), answers, key points and their terms, and
its tags (as the skills' zh + en names, plus one `tag:<id>` token per tag). Chinese runs are cut by jieba
(with the taxonomy as user dictionary), everything else by a word pattern that keeps all-reduce, ZeRO-3 and
fp16 whole. A query that mentions a skill's alias also searches that skill's other aliases (down-weighted)
and its `tag:` token, so 断点续训 finds a question written as "resume from checkpoint". A Chinese rendering of
a term the bank keeps in English (损失 for loss, 预填充 for prefill: glossary.yaml) also searches that term.
"""

from __future__ import annotations

import logging
import math
import re
import warnings
from array import array
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType

import numpy as np
import yaml

from question_bank.loader import Bank
from question_bank.schema import Question
from question_bank.taxonomy import find_skills, jieba_user_dict_path, load_taxonomy

K1, B = 1.2, 0.75
SYNONYM_WEIGHT = 0.3  # another alias of a skill the query names counts less than the query's own words
TRANSLATION_WEIGHT = 0.8  # the bank's English term for a Chinese rendering the query uses (glossary.yaml)
GLOSSARY = Path(__file__).with_name("glossary.yaml")
TAG_WEIGHT = 1.5      # being tagged with a skill the query names counts more than one word of text
FIELD_WEIGHTS = {"question": 3.0, "tag": 2.0, "key_point": 1.5, "answer": 1.0}

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WORD = rf"[^\W_{_CJK}]+"  # letters and digits of any script but Chinese
_TOKEN = re.compile(rf"(?P<cjk>[{_CJK}]+)|(?P<word>{_WORD}(?:[._\-/+]{_WORD})*)")
_CONNECTOR = re.compile(r"[._\-/+]")

STOPWORDS = frozenset(
    "a an and are as at be by can do does for from how in into is it its of on or that the this to what "
    "when where which why with you your 的 了 是 在 和 与 及 或 吗 呢 吧 把 被 对 为 从 到 就 也 都 而 "
    "一个 什么 如何 怎么 怎样 为什么 哪些 哪个 这个 那个 我们 你 我 他 它".split()
)


@dataclass(frozen=True)
class Hit:
    question: Question
    score: float


@cache
def _jieba() -> ModuleType:
    with warnings.catch_warnings():
        # jieba 0.42 predates current Python and setuptools: invalid escapes, pkg_resources deprecation.
        for category in (DeprecationWarning, SyntaxWarning, UserWarning):
            warnings.simplefilter("ignore", category)
        import jieba
    jieba.setLogLevel(logging.WARNING)  # it logs "Building prefix dict..." to stderr at DEBUG
    with open(jieba_user_dict_path(), "rb") as f:  # given a path, jieba leaves the file open
        jieba.load_userdict(f)
    return jieba


def _stem(word: str) -> str:
    # Plural "s" only: enough to match checkpoints with checkpoint, and the same on both sides.
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _word_tokens(word: str) -> list[str]:
    """A compound (all-reduce, torch.distributed) stays whole and adds its non-numeric parts."""
    if not _CONNECTOR.search(word):
        return [_stem(word)]
    parts = [_stem(p) for p in _CONNECTOR.split(word) if len(p) > 1 and not p.isdigit()]
    return [word, *parts]


def tokenize(text: str, subwords: bool = True) -> list[str]:
    """Lower-cased search tokens of mixed Chinese/English text, stopwords removed. With `subwords`, a long
    Chinese word also yields the dictionary words inside it (流水线并行 -> 流水线, 并行, ...), for recall."""
    tokens: list[str] = []
    for m in _TOKEN.finditer(text.lower()):
        if m.group("cjk"):
            cut = _jieba().cut_for_search if subwords else _jieba().cut
            tokens += cut(m.group("cjk"))
        else:
            tokens += _word_tokens(m.group("word"))
    return [t for t in tokens if t not in STOPWORDS and not (len(t) == 1 and t.isascii() and t.isalpha())]


@cache
def renderings() -> dict[str, str]:
    """Chinese rendering -> the English term the bank writes instead (question_bank/glossary.yaml), longest
    rendering first: the order `translations` tries them in."""
    terms = yaml.safe_load(GLOSSARY.read_text(encoding="utf-8"))["terms"]
    pairs = [(r.lower(), term) for term, rs in terms.items() for r in rs]
    return dict(sorted(pairs, key=lambda pair: len(pair[0]), reverse=True))


def translations(query: str) -> list[str]:
    """The bank's English terms for the Chinese renderings in `query`, the longest match first (损失尖峰 is
    loss spike, and not also 损失 + 尖峰)."""
    text, found = query.lower(), []
    for rendering, term in renderings().items():
        if rendering in text:
            found.append(term)
            text = text.replace(rendering, " ")
    return found


@cache
def _tag_tokens(skill_id: str) -> tuple[str, ...]:
    skill = load_taxonomy().skills.get(skill_id)
    return tuple(tokenize(f"{skill.zh} {skill.en}")) if skill else ()


def _document(q: Question) -> dict[str, float]:
    """Weighted term frequencies of one question."""
    tf: dict[str, float] = defaultdict(float)

    def add(tokens: list[str] | tuple[str, ...], field: str) -> None:
        for t in tokens:
            tf[t] += FIELD_WEIGHTS[field]

    add(tokenize(f"{q.question.zh} {q.question.en}"), "question")
    for a in (q.answer.zh, q.answer.en):
        add(tokenize(" ".join([a.essence, *a.parts])), "answer")
    for kp in q.key_points:
        add(tokenize(" ".join([kp.zh, kp.en, *kp.terms])), "key_point")
    for tag in q.tags:
        add([f"tag:{tag}", *_tag_tokens(tag)], "tag")
    return tf


def _postings(docs: list[dict[str, float]]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """token -> (document numbers, each one's BM25 contribution), precomputed so a query only sums arrays."""
    n = len(docs)
    ids: dict[str, array] = defaultdict(lambda: array("i"))
    tfs: dict[str, array] = defaultdict(lambda: array("d"))
    for d, doc in enumerate(docs):
        for token, tf in doc.items():
            ids[token].append(d)
            tfs[token].append(tf)
    lengths = np.array([sum(doc.values()) for doc in docs])
    norm = K1 * (1 - B + B * lengths / max(lengths.mean(), 1e-9)) if n else lengths
    postings = {}
    for token, doc_ids in ids.items():
        d = np.frombuffer(doc_ids, dtype=np.int32)
        tf = np.frombuffer(tfs[token], dtype=np.float64)
        idf = math.log(1 + (n - len(d) + 0.5) / (len(d) + 0.5))
        postings[token] = (d, idf * tf * (K1 + 1) / (tf + norm[d]))
    return postings


class Index:
    """BM25 index of a bank. Build once (it tokenises every question), then search many times."""

    def __init__(self, bank: Bank) -> None:
        self.bank = bank
        self.questions = list(bank.questions)
        self._postings = _postings([_document(q) for q in self.questions])
        self._topic = np.array([bank.topic_of[q.id] for q in self.questions])
        self._type = np.array([q.type.value for q in self.questions])
        self._difficulty = np.array([q.difficulty for q in self.questions])
        self._level = np.array([q.level.value for q in self.questions])
        self._tagged: dict[str, list[int]] = defaultdict(list)
        for d, q in enumerate(self.questions):
            for t in q.tags:
                self._tagged[t].append(d)

    def query_terms(self, query: str) -> tuple[dict[str, float], list[tuple[str, list[str]]]]:
        """The query's own tokens (weight 1), and per skill it names: the skill's `tag:` token and the tokens of
        its other aliases (the synonym expansion)."""
        own = dict.fromkeys(tokenize(query), 1.0)
        for term in translations(query):
            for t in tokenize(term):
                own.setdefault(t, TRANSLATION_WEIGHT)
        skills = load_taxonomy().skills
        groups = []
        for skill_id in find_skills(query):
            aliases = {t for alias in skills[skill_id].aliases  # 恢复训练, not also its fragment 复训
                       for t in tokenize(alias, subwords=False)} - own.keys()
            groups.append((f"tag:{skill_id}", sorted(aliases)))
        return own, groups

    def _add(self, scores: np.ndarray, token: str, weight: float) -> None:
        if token in self._postings:
            docs, contrib = self._postings[token]
            scores[docs] += weight * contrib

    def _contrib(self, token: str) -> np.ndarray:
        out = np.zeros(len(self.questions))
        self._add(out, token, 1.0)
        return out

    def search(self, query: str, k: int = 10, *, topic: str | None = None, type: str | None = None,
               difficulty: int | None = None, level: str | None = None, tag: str | None = None) -> list[Hit]:
        """The best `k` questions for `query` among those matching every given filter. An empty query
        lists the filtered questions in bank order. A skill the query names counts once per question, by
        its tag and its best-matching other alias: a question that lists many aliases of one skill (every
        NCCL_* variable) is not ranked up for each."""
        if k < 1:
            return []
        mask = self._filter(topic, type, difficulty, level, tag)
        own, groups = self.query_terms(query)
        if not own and not groups:
            return [Hit(self.questions[d], 0.0) for d in np.flatnonzero(mask)[:k]]
        scores = np.zeros(len(self.questions))
        for token, w in own.items():
            self._add(scores, token, w)
        for tag_token, aliases in groups:
            self._add(scores, tag_token, TAG_WEIGHT)
            if aliases:  # the best alias only: a dense row per alias, then their maximum
                scores += SYNONYM_WEIGHT * np.max([self._contrib(t) for t in aliases], axis=0)
        candidates = np.flatnonzero(mask & (scores > 0))
        if len(candidates) > k:
            candidates = candidates[np.argpartition(-scores[candidates], k - 1)[:k]]
        order = np.lexsort((candidates, -scores[candidates]))  # best first; ties in bank order
        return [Hit(self.questions[d], float(scores[d])) for d in candidates[order]]

    def _filter(self, topic: str | None, type: str | None, difficulty: int | None, level: str | None,
                tag: str | None) -> np.ndarray:
        mask = np.ones(len(self.questions), dtype=bool)
        for values, wanted in ((self._topic, topic), (self._type, type), (self._level, level)):
            if wanted is not None:
                mask &= values == str(getattr(wanted, "value", wanted))
        if difficulty is not None:
            mask &= self._difficulty == int(difficulty)
        if tag is not None:
            tagged = np.zeros_like(mask)
            tagged[self._tagged.get(tag, [])] = True
            mask &= tagged
        return mask
