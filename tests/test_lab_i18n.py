"""The Labs page in Chinese: every option it shows has a label and a help text in both languages (the English
help is the field's docstring, so changing a docstring forces its translation to be revisited), and every
refusal of a lab's `check_config` is a Problem that carries a Chinese text beside the unchanged English one.
Nothing is launched: the checks are plain functions of a Config."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import re
import textwrap
from types import ModuleType
from typing import Any

import pytest

from app import lab_catalog
from labs.core import history
from labs.core.config import Problem, field_docs
from labs.core.train import RESTORABLE

HIDDEN = {"out", "job"}  # as app/app_pages/labs.py: the page never shows these
CJK = re.compile(r"[\u3400-\u9fff]")
LABS = sorted(history.available())


def module(lab: str) -> ModuleType:
    return importlib.import_module(f"labs.{lab}")


def shown(lab: str) -> list[str]:
    """The options the page draws for the lab: the Config's fields with a default, less the hidden ones."""
    return [f.name for f in dataclasses.fields(module(lab).Config)
            if f.name not in HIDDEN and f.default is not dataclasses.MISSING]


def docs(lab: str) -> dict[str, str]:
    return {k: " ".join(v.split()) for k, v in field_docs(module(lab).Config).items()}


@pytest.mark.parametrize("lab", LABS)
def test_every_shown_option_has_a_label_and_help_in_both_languages(lab: str) -> None:
    doc = docs(lab)
    for name in shown(lab):
        assert name in lab_catalog.FIELDS, (lab, name)
        zh_label, en_label = lab_catalog.FIELDS[name]
        assert zh_label.strip() and en_label.strip(), (lab, name)
        zh = lab_catalog.help_text(lab, name, "zh")
        assert zh and CJK.search(zh), (lab, name, zh)
        assert lab_catalog.help_text(lab, name, "en") == doc[name], (
            f"{lab}.{name}: the docstring changed; update HELP (both languages) in app/lab_catalog.py")


def test_help_has_no_stale_or_misplaced_entries() -> None:
    """Each HELP key is what some lab's option resolves to ("lab.field" first, then "field")."""
    used = {f"{lab}.{name}" if f"{lab}.{name}" in lab_catalog.HELP else name for lab in LABS for name in shown(lab)}
    assert set(lab_catalog.HELP) == used, set(lab_catalog.HELP) ^ used
    for key, (zh, en) in lab_catalog.HELP.items():
        assert CJK.search(zh) and en.strip(), key
    # a shared entry is what every lab without its own entry shows: one docstring per key, checked above


def test_help_text_prefers_the_lab_entry() -> None:
    assert lab_catalog.help_text("hang", "pg_timeout_s", "en") == lab_catalog.HELP["hang.pg_timeout_s"][1]
    assert lab_catalog.help_text("ddp", "pg_timeout_s", "zh") == lab_catalog.HELP["pg_timeout_s"][0]
    assert lab_catalog.help_text("ddp", "no_such_option", "zh") is None


# lab -> [(overrides on its default Config, the English refusal)]; one entry per return statement of the check.
# A str is the whole message; a tuple ("prefix", ...) only its start (the rest comes from Python's own error).
CASES: dict[str, list[tuple[dict[str, Any], Any]]] = {
    "allreduce": [
        ({"min_bytes": 3}, "need --min-bytes a positive multiple of 4, --max-bytes >= --min-bytes and --factor >= 2"),
        ({"min_bytes": 1024, "max_bytes": 4096},
         "the alpha-beta fit needs at least 3 sizes: widen --min-bytes .. --max-bytes"),
    ],
    "cluster_sim": [
        ({"gpus": "a"}, ("prefix", "--gpus takes integers and --intervals numbers, comma separated (")),
        ({"gpus": "0"}, "--gpus must be positive GPU counts, not '0'"),
        ({"gpu_mtbf_h": 0.0}, "--gpu-mtbf-h must be > 0, not 0.0"),
        ({"ckpt_cost_s": 0.0}, "costs must be --ckpt-cost-s > 0 and --restart-cost-s >= 0, not 0.0 and 600.0"),
        ({"intervals": "-1"}, "--intervals must all be > 0 seconds, not '-1'"),
        ({"points": 4}, "--points must be >= 5 and --failures >= 1000"),
    ],
    "ddp": [
        ({"global_batch": 12}, "--global-batch 12 must divide by world size × --micro-batches = 8"),
        ({"steps": 1}, "need --steps >= 2 (buckets are rebuilt after step 1) and --timing-steps >= 4"),
    ],
    "elastic": [
        ({"global_batch": 10}, "--global-batch 10 must divide by --micro-batch x world = 6"),
        ({"lose_node": 0}, "--lose-node must be in 1..2 (node 0 hosts the rendezvous store)"),
        ({"lose_at_step": 4}, "--lose-at-step must be in 5..19"),
        ({"min_nodes": 3}, "--min-nodes must be smaller than --nodes, or losing a node ends the job"),
    ],
    "fault_resume": [
        ({"global_batch": 15}, "--global-batch 15 must divide by the world size 2"),
        ({"fault_step": 24}, "--fault-step must be in 1..23 (--steps 24)"),
        ({"fault_rank": 2}, "--fault-rank must be in 0..1"),
        ({"ckpt_every": 0},
         "--ckpt-every 0 (no checkpoints) only makes sense with --fault none: nothing to resume from"),
        ({"fault": "corrupt", "fault_step": 8},
         "--fault corrupt needs --fault-step >= 2 * --ckpt-every (a previous good checkpoint must exist)"),
        ({"skip_state": "bogus"}, f"--skip-state takes {', '.join(RESTORABLE)}, not ['bogus']"),
        ({"mutation": "alias", "ckpt_mode": "sync"},
         "--mutation alias needs --ckpt-mode async (a sync save has no snapshot to alias)"),
        ({"kill_cycles": 2, "fault": "exception"}, "--kill-cycles needs --fault kill"),
        ({"fault": "torn", "fault_step": 12},
         "--fault torn needs --fault-step on a checkpoint step after the first (a multiple of --ckpt-every)"),
        ({"fault": "hang", "watchdog_s": 0.0, "pg_timeout_s": 300.0},
         "--fault hang needs --watchdog-s or a --pg-timeout-s of at most 120 s, or the lab waits for long"),
    ],
    "hang": [  # fault_resume's check, on this lab's Config
        ({"global_batch": 15}, "--global-batch 15 must divide by the world size 2"),
    ],
    "torn_checkpoint": [
        ({"fault_step": 12},
         "--fault torn needs --fault-step on a checkpoint step after the first (a multiple of --ckpt-every)"),
    ],
    "mixed_precision": [
        ({"global_batch": 7}, "--global-batch 7 must divide by the world size 2"),
        ({"inject_rank": 2}, "--inject-rank must be in 0..1 and --inject-step in 0..30"),
        ({"tail": 0}, "--tail must be in 1..--steps"),
    ],
    "pipeline": [
        ({"schedules": "bogus"}, "--schedules takes a comma list of ['gpipe', '1f1b', 'interleaved'], got 'bogus'"),
        ({"layers": 6}, "--layers 6 must divide by 4 stages for interleaved"),
        ({"bubble_share": 1.0}, "--bubble-share must be in (0, 1) to tell neighbouring cases apart, got 1.0"),
        ({"microbatches": "0"}, "--microbatches needs positive counts"),
        ({"microbatches": "3"}, "the interleaved schedule needs every m to divide by p=2"),
    ],
    "zero": [
        ({"modes": "5"}, "--modes takes a comma list of ['0', '1', '2', '3', 'fsdp2'], got '5'"),
        ({"global_batch": 7}, "--global-batch 7 must divide by the world size 2"),
        ({"steps": 1}, "need --steps >= 2 and 1 <= --ckpt-step < --steps (got 1, 3)"),
    ],
}


def test_every_lab_with_a_check_has_cases() -> None:
    assert set(CASES) == {lab for lab in LABS if hasattr(module(lab), "check_config")}


def returns(check: Any) -> list[ast.expr | None]:
    tree = ast.parse(textwrap.dedent(inspect.getsource(check)))
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Return)]


@pytest.mark.parametrize("lab", sorted(CASES))
def test_every_refusal_is_a_problem_and_each_is_covered(lab: str) -> None:
    """Each return of the check is "" or a Problem(...) call; a lab that defines its own check has a case for
    every refusal (a new one needs a case here, and so a Chinese text)."""
    check = module(lab).check_config
    values = returns(check)
    refusals = [v for v in values if not (isinstance(v, ast.Constant) and v.value == "")]
    for v in refusals:
        assert isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "Problem", ast.unparse(v)
    if check.__module__ == module(lab).__name__:
        assert len(CASES[lab]) == len(refusals), (lab, len(CASES[lab]), len(refusals))


@pytest.mark.parametrize(("lab", "overrides", "english"),
                         [(lab, o, e) for lab, cases in CASES.items() for o, e in cases],
                         ids=[f"{lab}-{i}" for lab, cases in CASES.items() for i in range(len(cases))])
def test_refusal_has_chinese_and_unchanged_english(lab: str, overrides: dict[str, Any], english: Any) -> None:
    m = module(lab)
    assert m.check_config(m.Config()) == "", lab  # the defaults pass, so the override is what is refused
    problem = m.check_config(dataclasses.replace(m.Config(), **overrides))
    assert isinstance(problem, Problem), (lab, overrides, problem)
    if isinstance(english, tuple):
        assert str(problem).startswith(english[1]), problem
    else:
        assert str(problem) == english
    assert CJK.search(problem.zh), problem.zh
    assert problem.text("zh") == problem.zh and problem.text("en") == str(problem)
