"""Read the bank's YAML files: `load_bank()` for users of the bank, `read_yaml()` (with line numbers) for the
validator, which needs to point at the line of a field."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from question_bank.schema import Question, TopicFile

QUESTIONS_DIR = Path(__file__).with_name("questions")

# libyaml is ~10x faster than pure Python and gives the same marks; PyYAML wheels ship it.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

Loc = tuple[str | int, ...]  # a path into the data, as pydantic writes it: ("questions", 3, "answer")


@dataclass
class YamlDoc:
    """One parsed YAML file: the data, the 1-based line of every key and list item, and repeated keys."""
    path: Path
    data: Any
    lines: dict[Loc, int]
    duplicate_keys: list[tuple[Loc, int]] = field(default_factory=list)

    def line_of(self, loc: Loc) -> int:
        """The line of `loc`, or of its nearest enclosing field when `loc` is absent (a missing key)."""
        for end in range(len(loc), 0, -1):
            if loc[:end] in self.lines:
                return self.lines[loc[:end]]
        return 1


class BankError(ValueError):
    """The bank does not load; `python -m question_bank check` lists every problem with its line."""


def topic_paths(root: Path | None = None) -> list[Path]:
    return sorted(Path(root or QUESTIONS_DIR).glob("*.yaml"))


def read_yaml(path: Path) -> YamlDoc:
    """Parse one file, keeping the line of each node. Raises yaml.YAMLError (with a mark) on bad syntax."""
    loader = _Loader(Path(path).read_text(encoding="utf-8"))
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
    doc = YamlDoc(Path(path), data, {(): 1})
    if node is not None:
        _record_lines(node, (), doc)
    return doc


def _record_lines(node: yaml.Node, loc: Loc, doc: YamlDoc) -> None:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            child = (*loc, key_node.value)
            line = key_node.start_mark.line + 1
            if child in doc.lines:
                doc.duplicate_keys.append((child, line))  # PyYAML silently keeps the last one
            doc.lines[child] = line
            _record_lines(value_node, child, doc)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            doc.lines[(*loc, i)] = item.start_mark.line + 1
            _record_lines(item, (*loc, i), doc)


@dataclass
class Bank:
    """The validated bank. `questions` keeps file order; `topic_of` maps a question id to its topic."""
    topics: dict[str, TopicFile]
    questions: list[Question] = field(init=False)
    topic_of: dict[str, str] = field(init=False)
    by_id: dict[str, Question] = field(init=False)

    def __post_init__(self) -> None:
        self.questions, self.topic_of, self.by_id = [], {}, {}
        for name, topic in self.topics.items():
            for q in topic.questions:
                if q.id in self.by_id:
                    raise BankError(f"question id {q.id!r} is in both {self.topic_of[q.id]} and {name}")
                self.questions.append(q)
                self.topic_of[q.id] = name
                self.by_id[q.id] = q


def load_bank(path: Path | str | None = None) -> Bank:
    """Load and schema-validate every topic file under `path` (default: the package's questions/)."""
    topics: dict[str, TopicFile] = {}
    for file in topic_paths(Path(path) if path else None):
        try:
            topic = TopicFile.model_validate(read_yaml(file).data)
        except (yaml.YAMLError, ValidationError) as e:
            raise BankError(f"{file}: {e}\n(run `python -m question_bank check` for every problem)") from e
        if topic.topic in topics:
            raise BankError(f"{file}: topic {topic.topic!r} is already defined by another file")
        topics[topic.topic] = topic
    return Bank(topics)
