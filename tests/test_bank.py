"""The real bank passes the validator; each kind of broken topic file yields a Problem at the right place."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from question_bank.__main__ import main
from question_bank.check import Problem, check_bank
from question_bank.loader import BankError, load_bank, read_yaml


def test_real_bank_passes_check() -> None:
    problems = check_bank()
    assert not problems, "\n".join(map(str, problems))


def test_real_bank_is_bilingual_with_key_points() -> None:
    bank = load_bank()
    assert "zero-memory-per-stage" in bank.by_id
    for q in bank.questions:
        for text in (q.question, *q.key_points):
            assert text.zh.strip() and text.en.strip(), q.id
        for answer in (q.answer.zh, q.answer.en):
            assert answer.essence.strip() and answer.parts, q.id
        assert len(q.key_points) >= 2, q.id


def test_example_numbers_are_verified() -> None:
    q = load_bank().by_id["zero-memory-per-stage"]
    assert {c.shown for c in q.verified_by} >= {"120 GB", "31.4 GB", "16.6 GB", "1.88 GB"}


def test_cli_stats(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats"]) == 0
    out = capsys.readouterr().out
    assert "zero_fsdp" in out and "TOTAL" in out and "complete in zh" in out


# --- broken inputs: a small valid topic file, then one fault at a time ---

def question(qid: str = "demo-one") -> dict:
    return {
        "id": qid, "type": "concept", "difficulty": 1, "level": "new_grad", "tags": ["zero"],
        "question": {"zh": "ZeRO-1 每张卡存多少模型状态？",
                     "en": "How much model state does ZeRO-1 keep per GPU?"},
        "answer": {
            "zh": {"essence": "7.5B、64 卡时约 31.4 GB。", "parts": ["只切优化器状态。"]},
            "en": {"essence": "About 31.4 GB for 7.5B on 64 GPUs.",
                   "parts": ["Only the optimizer states are sharded."]},
        },
        "key_points": [
            {"zh": "只切优化器状态", "en": "shards the optimizer states",
             "groups": [["优化器状态", "optimizer state"], ["切分", "sharded", "partitioned"]]},
            {"zh": "给出数字", "en": "the figure", "facts": [{"value": 31.4, "unit": "GB", "tolerance": 0.02}]},
        ],
        "mistakes": [{"zh": "以为 ZeRO-1 也切参数", "en": "Thinking ZeRO-1 shards the parameters too",
                      "match": [["参数", "parameters"], ["切分", "shards"]], "point": 0}],
        "follow_ups": [],
        "labs": [],
        "verified_by": [{"fn": "zero_bytes_per_rank",
                         "args": {"num_params": 7.5e9, "world_size": 64, "stage": 1},
                         "key": "total", "scale": 1e-9, "expect": 31.4, "shown": "31.4 GB"}],
    }


def topic(name: str = "demo", *questions: dict) -> dict:
    return {"topic": name, "title": {"zh": "演示", "en": "Demo"},
            "questions": list(questions) or [question()]}


def write(folder: Path, data: dict, name: str | None = None) -> tuple[Path, str]:
    path = folder / f"{name or data['topic']}.yaml"
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
    path.write_text(text, encoding="utf-8")
    return path, text


def line_with(text: str, needle: str) -> int:
    """1-based number of the first line that contains `needle` (or, with a trailing ':', is that key)."""
    for n, line in enumerate(text.splitlines(), 1):
        if (line.strip().removeprefix("- ") == needle) if needle.endswith(":") else needle in line:
            return n
    raise AssertionError(f"{needle!r} not in text")


def only_problem(folder: Path) -> Problem:
    problems = check_bank(folder)
    assert len(problems) == 1, "\n".join(map(str, problems))
    return problems[0]


def test_valid_demo_file_has_no_problem(tmp_path: Path) -> None:
    write(tmp_path, topic())
    assert check_bank(tmp_path) == []
    assert load_bank(tmp_path).by_id["demo-one"].verified_by[0].expect == 31.4


def broken(change: Callable[[dict], object]) -> dict:
    """The demo topic, with its question edited by `change`."""
    q = copy.deepcopy(question())
    change(q)
    return topic("demo", q)


CASES = {
    # name: (edit of the question, field, what the problem's line holds)
    "unknown tag": (lambda q: q["tags"].append("no_such_skill"), "questions[0].tags[1]", "no_such_skill"),
    "dangling follow-up": (lambda q: q["follow_ups"].append("no-such-question"), "questions[0].follow_ups[0]",
                           "no-such-question"),
    "dangling lab": (lambda q: q["labs"].append("no_such_lab"), "questions[0].labs[0]", "no_such_lab"),
    "missing en": (lambda q: q["question"].pop("en"), "questions[0].question.en", "question:"),
    "missing en answer": (lambda q: q["answer"].pop("en"), "questions[0].answer.en", "answer:"),
    "blank part": (lambda q: q["answer"]["zh"]["parts"].append("  "), "questions[0].answer.zh.parts[1]",
                   "'  '"),
    "difficulty out of range": (lambda q: q.update(difficulty=7), "questions[0].difficulty", "difficulty: 7"),
    "follow-up missing en": (lambda q: q["follow_ups"].append({"zh": "再问一个"}),
                             "questions[0].follow_ups[0].en", "zh: 再问一个"),
    "unknown theory fn": (lambda q: q["verified_by"][0].update(fn="no_such_fn"),
                          "questions[0].verified_by[0].fn", "fn: no_such_fn"),
    "wrong expect": (lambda q: q["verified_by"][0].update(expect=30.0), "questions[0].verified_by[0].expect",
                     "expect: 30.0"),
    "shown not in en": (lambda q: q["answer"]["en"].update(essence="About 31.4GB."),
                        "questions[0].verified_by[0].shown", "shown: 31.4 GB"),
    # rubric v2: terms too generic to be evidence, words of the question, v1 terms, links inside the rubric
    "bare number": (lambda q: q["key_points"][0]["groups"].append(["64"]), "questions[0].key_points[0].groups[2][0]",
                    "'64'"),
    "short latin term": (lambda q: q["key_points"][0]["groups"][1].append("TP"),
                         "questions[0].key_points[0].groups[1][3]", "- TP"),
    "question words only": (lambda q: q["key_points"][0]["groups"].append(["ZeRO-1", "model state"]),
                            "questions[0].key_points[0].groups[2]", "- - ZeRO-1"),
    "v1 terms": (lambda q: q["key_points"].append({"zh": "旧", "en": "old", "terms": ["optimizer"]}),
                 "questions[0].key_points[2]", "zh: 旧"),
    "unknown unit": (lambda q: q["key_points"][1]["facts"][0].update(unit="gigs"),
                     "questions[0].key_points[1].facts[0].unit", "unit: gigs"),
    "min_groups too high": (lambda q: q["key_points"][0].update(min_groups=3), "questions[0].key_points[0]",
                            "zh: 只切优化器状态"),
    "mistake names no point": (lambda q: q["mistakes"][0].update(point=5), "questions[0].mistakes[0].point",
                               "point: 5"),
    # figures: each number with a unit is given, verified or cited from a reference of the question
    "uncited figure": (lambda q: q["answer"]["en"]["parts"].append("An H100 has 80 GB."),
                       "questions[0].answer", "answer:"),
    "cited figure, no such reference": (lambda q: _cite(q, ref=3), "questions[0].cited[0].ref", "ref: 3"),
    "cited figure not in zh": (lambda q: (_cite(q), q["answer"]["zh"]["parts"].pop()),
                               "questions[0].cited[0].shown", "shown: 80 GB"),
}


def _cite(q: dict, ref: int = 0) -> None:
    q["answer"]["en"]["parts"].append("An H100 has 80 GB.")
    q["answer"]["zh"]["parts"].append("H100 有 80 GB。")
    q["references"] = [{"title": "NVIDIA H100 datasheet", "url": "https://www.nvidia.com/en-us/data-center/h100/"}]
    q["cited"] = [{"shown": "80 GB", "ref": ref}]


def test_a_cited_or_given_figure_passes(tmp_path: Path) -> None:
    cited, given = copy.deepcopy(question()), copy.deepcopy(question("demo-two"))
    _cite(cited)
    given["question"]["en"] += " Each GPU has 80 GB."
    given["answer"]["en"]["parts"].append("Of its 80 GB, 31.4 GB go to model states.")
    write(tmp_path, topic("demo", cited, given))
    assert check_bank(tmp_path) == []


@pytest.mark.parametrize("case", CASES)
def test_broken_question(tmp_path: Path, case: str) -> None:
    change, field, needle = CASES[case]
    path, text = write(tmp_path, broken(change))
    p = only_problem(tmp_path)
    assert (Path(p.file), p.field, p.line) == (path, field, line_with(text, needle)), str(p)


def test_a_term_in_most_other_answers_is_too_generic(tmp_path: Path) -> None:
    qs = [question(f"demo-{i}") for i in range(6)]
    for i, q in enumerate(qs[1:], 1):  # other answers, each its own words, all of them saying NCCL
        q["answer"] = {lang: {"essence": f"Run {i} trains with NCCL.", "parts": [f"Part {i}."]}
                       for lang in ("zh", "en")}
        q["verified_by"] = []
    qs[0]["key_points"][0]["groups"][1].append("NCCL")
    path, text = write(tmp_path, topic("demo", *qs))
    p = only_problem(tmp_path)
    assert p.field == "questions[0].key_points[0].groups[1][3]" and "'NCCL' is too generic" in p.message
    assert "100% of the other questions' answers" in p.message


def test_bad_yaml_syntax_points_at_its_line(tmp_path: Path) -> None:
    _, text = write(tmp_path, topic())
    lines = text.splitlines()
    n = line_with(text, "difficulty: 1")
    lines[n - 1] = lines[n - 1].replace("difficulty: 1", "difficulty: : 1")
    (tmp_path / "demo.yaml").write_text("\n".join(lines), encoding="utf-8")
    p = only_problem(tmp_path)
    assert (Path(p.file).name, p.line) == ("demo.yaml", n) and "bad YAML" in p.message
    with pytest.raises(BankError):
        load_bank(tmp_path)


def test_duplicate_id_across_files(tmp_path: Path) -> None:
    write(tmp_path, topic("first_topic"))
    path, text = write(tmp_path, topic("second_topic"))
    p = only_problem(tmp_path)
    assert (Path(p.file), p.field, p.line) == (path, "questions[0].id", line_with(text, "id: demo-one"))
    assert "first_topic.yaml" in p.message


def test_duplicate_id_in_one_file_points_at_the_second(tmp_path: Path) -> None:
    path, text = write(tmp_path, topic("demo", question(), question()))
    p = only_problem(tmp_path)
    second = [n for n, line in enumerate(text.splitlines(), 1) if "id: demo-one" in line][1]
    assert (p.field, p.line) == ("questions[1].id", second)


def test_follow_up_to_an_existing_id_is_fine(tmp_path: Path) -> None:
    other = question("demo-two")
    other["follow_ups"] = ["demo-one"]
    write(tmp_path, topic("demo", question(), other))
    assert check_bank(tmp_path) == []


def test_topic_must_match_file_name(tmp_path: Path) -> None:
    path, text = write(tmp_path, topic("demo"), name="other_name")
    p = only_problem(tmp_path)
    assert (p.field, p.line) == ("topic", line_with(text, "topic: demo"))


def test_repeated_yaml_key(tmp_path: Path) -> None:
    _, text = write(tmp_path, topic())
    n = line_with(text, "difficulty: 1")
    lines = text.splitlines()
    lines.insert(n, lines[n - 1])
    (tmp_path / "demo.yaml").write_text("\n".join(lines), encoding="utf-8")
    p = only_problem(tmp_path)
    assert (p.field, p.line) == ("questions[0].difficulty", n + 1)


def test_cli_check_ok(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, topic())
    assert main(["check", "--path", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("OK: 1 files, 1 questions, 1 verified numbers")


def test_cli_check_prints_file_line_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, text = write(tmp_path, broken(lambda q: q["labs"].append("no_such_lab")))
    assert main(["check", "--path", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:{line_with(text, 'no_such_lab')}: questions[0].labs[0]: unknown lab" in out


def test_read_yaml_keeps_lines(tmp_path: Path) -> None:
    path, text = write(tmp_path, topic())
    doc = read_yaml(path)
    assert doc.line_of(("questions", 0, "answer", "en", "essence")) == line_with(text, "essence: About")
    en = ("questions", 0, "answer", "en")
    assert doc.line_of((*en, "nope")) == doc.line_of(en)


def test_stats_counts_every_topic_under_one_area_of_the_plan() -> None:
    from question_bank.stats import AREAS, format_areas

    bank = load_bank()
    topics = [t for _, ts in AREAS.values() for t in ts]
    assert len(topics) == len(set(topics)), "a topic in two areas would be counted twice"
    assert set(bank.topics) <= set(topics), f"topics in no area: {set(bank.topics) - set(topics)}"
    lines = format_areas(bank)
    assert lines[-1].startswith("TOTAL") and str(len(bank.questions)) in lines[-1]


def test_every_file_reads_the_same_without_libyaml() -> None:
    """The loader prefers libyaml's CSafeLoader and falls back to pure-Python SafeLoader, which is stricter (an
    unquoted "?" in a flow mapping): a file must read, and read the same, with both."""
    import yaml

    for f in sorted((Path(__file__).parents[1] / "question_bank" / "questions").glob("*.yaml")):
        text = f.read_text(encoding="utf-8")
        assert yaml.load(text, Loader=yaml.SafeLoader) == yaml.load(text, Loader=yaml.CSafeLoader), f.name
