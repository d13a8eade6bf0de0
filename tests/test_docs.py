"""The study site: `mkdocs build --strict` succeeds and the site holds what the bank and the labs say it should.

One real build per module (a few seconds), into a temp dir; the tests read the HTML and the search index it wrote.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from labs.registry import LABS
from question_bank.checklist import load_checklist
from question_bank.loader import load_bank

LANG_DIRS = {"zh": "", "en": "en/"}  # zh is the default language, at the site root
# The figures of fault_resume's report.json that its page must explain.
REPORT_KEYS = ["passed", "fault_fired", "worker_exit_seen", "restarts_match_faults", "resumed_from_newest_good",
               "lost_steps_as_implied", "checkpoint_loads_clean", "writer_processes_exited", "worker_exits",
               "expected_resume_steps", "implied_lost_steps", "recovery_phases", "cold_start_phases", "controls",
               "tensors_compared", "job_completed", "bit_exact", "losses_identical", "recomputed_steps_identical",
               "samples_identical", "samples_exactly_once", "lost_steps_within_bound", "no_reconnect_errors",
               "corrupt_checkpoint_skipped", "restarts", "launches", "lost_steps", "lost_steps_per_failure",
               "lost_steps_bound", "recovery_seconds", "cold_start_seconds", "recovery_over_cold_start",
               "blocking_s_mean", "write_s_mean", "mb_per_s", "blocking_over_step", "blocking_pct",
               "skipped_checkpoints", "samples_per_step", "reconnect_errors"]
COMMANDS_ANCHOR = {"zh": "两条命令", "en": "two-commands"}  # pymdownx.slugs keeps Chinese headings readable


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)]
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stderr[-6000:]}"
    return out


def page(site: Path, lang: str, path: str) -> str:
    file = site / LANG_DIRS[lang] / path / "index.html"
    assert file.exists(), f"{file.relative_to(site)} was not built"
    return file.read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", LANG_DIRS)
def test_every_topic_has_a_page_with_every_question_anchored(site: Path, lang: str) -> None:
    bank = load_bank()
    index = page(site, lang, "questions")
    for topic in bank.topics.values():
        html = page(site, lang, f"questions/{topic.topic}")
        missing = [q.id for q in topic.questions if f'id="{q.id}"' not in html]
        assert not missing, f"{lang} page of {topic.topic} lacks anchors {missing}"
        assert f'href="{topic.topic}/"' in index, f"{lang} question index does not link {topic.topic}"


@pytest.mark.parametrize("lang", LANG_DIRS)
def test_follow_up_ids_link_to_their_question(site: Path, lang: str) -> None:
    bank = load_bank()
    for q in bank.questions:
        html = page(site, lang, f"questions/{bank.topic_of[q.id]}")
        for f in q.follow_ups:
            if isinstance(f, str) and f in bank.by_id:
                assert f'#{f}"' in html, f"{lang}: follow-up {f} of {q.id} is not a link to its anchor"


@pytest.mark.parametrize("lang", LANG_DIRS)
def test_lab_checklist_framework_and_home_pages_exist(site: Path, lang: str) -> None:
    labs = page(site, lang, "labs")
    for lab in LABS:
        page(site, lang, f"labs/{lab}")
        assert f'href="{lab}/"' in labs, f"{lang} lab index does not link {lab}"
    fault_resume = page(site, lang, "labs/fault_resume")
    unexplained = [key for key in REPORT_KEYS if f"<code>{key}</code>" not in fault_resume]
    assert not unexplained, f"the {lang} fault_resume page does not explain {unexplained}"
    checklist = page(site, lang, "checklist")
    for item in load_checklist():
        assert f'id="{item.id}"' in checklist, f"{lang} checklist lacks item {item.id}"
    assert "STAR" in page(site, lang, "answer_framework")
    home = page(site, lang, "")
    text = re.sub(r"<[^>]+>", "", home)  # the code highlighter wraps every token in a span
    assert f'id="{COMMANDS_ANCHOR[lang]}"' in home and "make run" in text and "make test" in text
    assert list((site / "assets" / "labs").glob("*.png")), "the lab plots were not copied into the site"


@pytest.mark.parametrize("lang", LANG_DIRS)
def test_lab_pages_explain_every_check_of_their_real_run(site: Path, lang: str) -> None:
    """Each lab with a real-run report in docs/assets/labs/<lab>.json names every key of its `checks` on its page."""
    reports = sorted((ROOT / "docs" / "assets" / "labs").glob("*.json"))
    assert reports, "docs/assets/labs/ holds no real-run report"
    for report in reports:
        if report.stem not in LABS:
            continue
        checks = json.loads(report.read_text(encoding="utf-8")).get("checks", {})
        html = page(site, lang, f"labs/{report.stem}")
        unexplained = [key for key in checks if f"<code>{key}</code>" not in html]
        assert not unexplained, f"the {lang} {report.stem} page does not explain {unexplained}"


def test_language_switcher_pairs_generated_pages(site: Path) -> None:
    html = page(site, "zh", "questions/checkpoint")
    assert re.search(r'href="[./]*en/questions/checkpoint/" hreflang="en"', html), "no switch to the English page"


@pytest.mark.parametrize("word, topic", [("断点续训", "data_resume"), ("检查点", "checkpoint")])
def test_chinese_word_is_one_search_term(site: Path, word: str, topic: str) -> None:
    """jieba alone cuts 断点续训 into 断点 / 续训; it stays one term only because the build hands the search plugin
    the taxonomy's aliases as a user dictionary."""
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    separator = re.compile(index["config"]["separator"])
    entries = [d for d in index["docs"] if d["location"].startswith(f"questions/{topic}/")]
    assert entries, f"the search index has no entries for questions/{topic}/"
    assert any(word in separator.split(d["text"]) for d in entries), f"{word} is not a search term of {topic}"
    assert any(d["location"].startswith(f"en/questions/{topic}/") for d in index["docs"]), "English pages not indexed"
