"""The skill taxonomy (`taxonomy.yaml`): typed, plus alias matching in mixed Chinese/English text.

Shared by the bank (question tags), search (synonym expansion), the checklist and the JD analyser in `coach`.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

TAXONOMY_PATH = Path(__file__).with_name("taxonomy.yaml")

# jieba keeps a user-dictionary word whole when its frequency beats the split; 10000 is ample for the
# dictionary's ~60M total (流水线 98, 并行 475).
JIEBA_FREQ = 10000

_ASCII_WORD = re.compile(r"[A-Za-z0-9_]")


@dataclass(frozen=True)
class Category:
    id: str
    zh: str
    en: str


@dataclass(frozen=True)
class Skill:
    id: str
    category: str
    zh: str
    en: str
    aliases: tuple[str, ...]
    cased: tuple[str, ...] = ()  # aliases matched only as written ("Go", not "go")
    labs: tuple[str, ...] = ()   # labs that practise the skill (names in labs/registry.py)

    @property
    def all_aliases(self) -> tuple[str, ...]:
        return self.aliases + self.cased


@dataclass(frozen=True)
class Taxonomy:
    categories: dict[str, Category]
    skills: dict[str, Skill]


@cache
def load_taxonomy(path: Path = TAXONOMY_PATH) -> Taxonomy:
    """Read and check the taxonomy; cached, so treat the result as read-only."""
    raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    categories = {cid: Category(cid, c["zh"], c["en"]) for cid, c in raw["categories"].items()}
    skills: dict[str, Skill] = {}
    for s in raw["skills"]:
        if s["id"] in skills:
            raise ValueError(f"{path}: duplicate skill id {s['id']!r}")
        if s["category"] not in categories:
            raise ValueError(f"{path}: skill {s['id']!r} has unknown category {s['category']!r}")
        skills[s["id"]] = Skill(s["id"], s["category"], s["zh"], s["en"], tuple(str(a) for a in s["aliases"]),
                                tuple(str(a) for a in s.get("cased", ())), tuple(s.get("labs", ())))
    return Taxonomy(categories, skills)


def skill_ids() -> list[str]:
    """All skill ids, in taxonomy order."""
    return list(load_taxonomy().skills)


def alias_pattern(alias: str, cased: bool = False) -> re.Pattern[str]:
    """A case-insensitive pattern for one alias.

    An end of the alias that is an ASCII letter or digit must not touch another one, so "PS" does not match
    inside "GPUs" nor "TP" inside "HTTP"; Chinese ends match anywhere, as Chinese has no spaces. An English
    plural still counts ("GPUs" mentions "GPU"). Spaces and hyphens inside the alias are interchangeable and
    optional: "data parallel" also matches "data-parallel".
    """
    body = r"[\s\-]*".join(re.escape(part) for part in re.split(r"[\s\-]+", alias.strip()))
    before = r"(?<![A-Za-z0-9_])" if _ASCII_WORD.match(alias[0]) else ""
    after = r"(?![A-Za-z0-9_])" if _ASCII_WORD.match(alias[-1]) else ""
    if alias[-1].isascii() and alias[-1].isalpha():
        after = r"(?:e?s)?" + after
    elif alias[-1].isdigit() and alias[0].isalpha():
        after = r"s?" + after  # "H100s" mentions H100
    return re.compile(before + body + after, 0 if cased else re.IGNORECASE)


@cache
def _patterns() -> list[tuple[str, str, str, re.Pattern[str]]]:
    """(skill id, alias, needle, pattern): the needle, the alias's first word in lower case, must be in the
    lowered text for the pattern to be worth running (a substring test costs far less than a regex)."""
    skills = load_taxonomy().skills.values()
    pairs = [(s.id, a, False) for s in skills for a in s.aliases] + [(s.id, a, True) for s in skills for a in s.cased]
    return [(sid, a, re.split(r"[\s\-]+", a.strip())[0].lower(), alias_pattern(a, cased)) for sid, a, cased in pairs]


def alias_hits(text: str) -> list[tuple[str, str, tuple[int, int]]]:
    """Every alias occurrence in `text`: (skill id, alias, span)."""
    low = text.lower()
    return [(skill_id, alias, m.span()) for skill_id, alias, needle, pattern in _patterns() if needle in low
            for m in pattern.finditer(text)]


def find_skills(text: str) -> dict[str, list[str]]:
    """Skills mentioned in `text`: skill id -> the aliases found (taxonomy spelling, case-duplicates once).

    A match inside a longer match of another skill's alias does not count: "Triton Inference Server" is a
    serving product, not the Triton language; "CUDA out of memory" is an OOM, not CUDA programming."""
    hits = alias_hits(text)
    found: dict[str, list[str]] = {}
    for skill_id, alias, (a, b) in hits:
        if any(other != skill_id and x <= a and b <= y and (y - x) > (b - a) for other, _, (x, y) in hits):
            continue
        seen = found.setdefault(skill_id, [])
        if alias.lower() not in (s.lower() for s in seen):
            seen.append(alias)
    return found


def jieba_user_dict() -> str:
    """The aliases as a jieba user dictionary ("word freq tag" per line) so 流水线并行 stays one token.

    Aliases with spaces are left out: jieba splits on spaces before it looks words up.
    """
    words = dict.fromkeys(a for s in load_taxonomy().skills.values() for a in s.all_aliases if " " not in a)
    return "".join(f"{w} {JIEBA_FREQ} n\n" for w in words)


@cache
def jieba_user_dict_path() -> Path:
    """Write the user dictionary once to the temp folder and return its path (also usable by mkdocs search).

    The name carries a hash of the content, so a changed taxonomy gets a fresh file and readers in other
    processes never see a half-written one (written aside, then renamed into place).
    """
    text = jieba_user_dict()
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    folder = Path(tempfile.gettempdir()) / "kilogpu-prep"
    path = folder / f"jieba_userdict_{digest}.txt"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    return path
