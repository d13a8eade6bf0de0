"""Katas judged on real torchrun ranks: every reference passes, every plausible wrong solution fails on the case
that exists to catch it, and the sandbox turns a hang, a crash, an import error and a memory hog into verdicts.

Wrong solutions live in tests/data/katas/<kata>/*.py; each file's first line names the case it must fail
(`# expect-fail: CASE`).
"""

from __future__ import annotations

import functools
import re
import subprocess
import sys
from pathlib import Path

import pytest

import conftest
from labs.kata import judge
from labs.kata.catalog import all_katas

WRONG = Path(__file__).parent / "data" / "katas"


def wrong_solutions() -> list[tuple[str, Path, str]]:
    out = []
    for f in sorted(WRONG.glob("*/*.py")):
        m = re.match(r"# expect-fail: (\w+)", f.read_text(encoding="utf-8"))
        assert m, f"{f}: the first line must be '# expect-fail: CASE'"
        out.append((f.parent.name, f, m.group(1)))
    return out


def by_name(verdict: judge.Verdict) -> dict[str, judge.CaseResult]:
    return {c.name: c for c in verdict.cases}


@functools.cache
def judged(name: str) -> dict[Path, judge.Verdict]:
    """The kata's reference and every wrong solution, judged in one torchrun launch (a launch costs seconds of
    imports; `check_many` gives each file the verdict it would get alone)."""
    files = [all_katas()[name].folder / "reference.py", *(f for k, f, _ in wrong_solutions() if k == name)]
    return dict(zip(files, judge.check_many(name, files), strict=True))


@pytest.mark.parametrize("name", list(all_katas()))
def test_the_reference_passes_every_case(name: str) -> None:
    kata = all_katas()[name]
    v = judged(name)[kata.folder / "reference.py"]
    assert v.passed and v.problem is None, [(c.name, c.status, c.detail) for c in v.cases]
    assert len(v.cases) >= 4 and all(c.status == "passed" for c in v.cases)


@pytest.mark.parametrize("name,path,case", wrong_solutions(), ids=lambda x: x.stem if isinstance(x, Path) else x)
def test_a_wrong_solution_fails_on_the_case_that_catches_it(name: str, path: Path, case: str) -> None:
    v = judged(name)[path]
    cases = by_name(v)
    assert case in cases, f"{path.name} names a case {name} does not have: {case}"
    assert not v.passed and cases[case].status in ("failed", "crashed", "timeout"), \
        [(c.name, c.status, c.detail) for c in v.cases]
    assert cases[case].detail.startswith("rank ")  # which rank, then what differed


def test_one_launch_judges_each_file_as_alone() -> None:
    """The batch the tests use gives a file the verdict a check of that file alone gives."""
    kata = all_katas()["ring_allreduce"]
    wrong = WRONG / "ring_allreduce" / "naive_broadcast.py"
    alone = judge.check(kata.name, wrong)
    together = judged(kata.name)[wrong]
    assert [(c.name, c.status, c.detail) for c in alone.cases] == [(c.name, c.status, c.detail) for c in together.cases]


def test_every_kata_has_two_wrong_solutions_and_a_stub_that_runs_into_its_todo() -> None:
    counts = {n: sum(k == n for k, _, _ in wrong_solutions()) for n in all_katas()}
    assert all(c >= 2 for c in counts.values()), counts
    for kata in all_katas().values():
        assert "NotImplementedError" in kata.stub() and "Given" in kata.stub() and "已知" in kata.stub()


def test_the_stub_crashes_on_its_first_case_and_the_rest_are_not_run() -> None:
    kata = all_katas()["ring_allreduce"]
    v = judge.check(kata.name, kata.folder / "stub.py")
    first, *rest = v.cases
    assert first.status == "crashed" and "NotImplementedError" in first.detail and "your code, line" in first.detail
    assert rest and all(c.status == "not_run" for c in rest)


def read(cmdline: Path) -> bytes:
    try:
        return cmdline.read_bytes()
    except OSError:
        return b""


def write(tmp_path: Path, body: str) -> Path:
    f = tmp_path / "attempt.py"
    f.write_text("import os\nimport torch\nimport torch.distributed as dist\n\n\n"
                 f"def ring_all_reduce_mean(tensor):\n{body}\n", encoding="utf-8")
    return f


def test_a_hang_is_stopped_by_the_wall_clock_and_named(tmp_path: Path) -> None:
    v = judge.check("ring_allreduce", write(tmp_path, "    while True:\n        pass"), limits=judge.Limits(wall_s=12))
    cases = by_name(v)
    assert cases["even_split"].status == "timeout" and "hang" in cases["even_split"].detail
    assert v.problem and "12 s" in v.problem.text("en") and "12 秒" in v.problem.text("zh")
    assert v.seconds < 30
    left = [p for p in Path("/proc").glob("[0-9]*/cmdline") if b"labs.kata.harness" in read(p)]
    assert not left, "no worker left behind"


def test_a_process_that_dies_is_a_crashed_case(tmp_path: Path) -> None:
    v = judge.check("ring_allreduce", write(tmp_path, "    if dist.get_rank() == 1:\n        os._exit(3)\n"
                                                      "    tensor.zero_()"))
    cases = by_name(v)
    assert cases["even_split"].status == "crashed"
    assert cases["even_split"].detail == "rank 1 died in this case (exit code 3)"


def test_import_errors_come_back_with_the_line(tmp_path: Path) -> None:
    f = tmp_path / "attempt.py"
    f.write_text("import torch\n\ndef ring_all_reduce_mean(tensor)\n    pass\n", encoding="utf-8")
    v = judge.check("ring_allreduce", f)
    assert not v.passed and "SyntaxError" in v.problem.text("en") and "line 3" in v.problem.text("en")
    assert "无法导入" in v.problem.text("zh")


def test_the_sandbox_hides_secrets_and_caps_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak")
    body = ("    if any('KEY' in k for k in os.environ):\n"
            "        raise RuntimeError('leaked ' + ','.join(os.environ))\n"
            "    big = torch.empty(2**33, dtype=torch.uint8)  # 8 GiB: over the 4 GiB address-space limit\n"
            "    big.fill_(1)")
    v = judge.check("ring_allreduce", write(tmp_path, body))
    detail = by_name(v)["even_split"].detail
    assert "leaked" not in detail and "sk-should-not-leak" not in detail
    assert by_name(v)["even_split"].status == "crashed" and "alloc" in detail.lower(), detail


def test_files_a_judge_cannot_run_are_refused_before_anything_starts(tmp_path: Path) -> None:
    assert judge.check("ring_allreduce", tmp_path / "missing.py").problem.text("en").endswith("no such file")
    (tmp_path / "x.txt").write_text("print(1)")
    assert ".py" in judge.check("ring_allreduce", tmp_path / "x.txt").problem.text("en")
    (tmp_path / "big.py").write_text("#" * (judge.MAX_SOLUTION_BYTES + 1))
    assert "bytes" in judge.check("ring_allreduce", tmp_path / "big.py").problem.text("en")
    (tmp_path / "bin.py").write_bytes(b"\xff\xfe\x00")
    assert "UTF-8" in judge.check("ring_allreduce", tmp_path / "bin.py").problem.text("en")


def kata_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "labs.kata", *args], cwd=conftest.ROOT, env=conftest.env(),
                          capture_output=True, text=True, timeout=120)


def test_cli_start_check_reveal_and_the_attempt_in_the_database(tmp_path: Path) -> None:
    from coach.db import connect
    from coach.kata_attempts import attempts

    assert kata_cli("reveal", "ring_allreduce").returncode == 2        # no attempt yet: no reference
    start = kata_cli("start", "ring_allreduce")
    path = tmp_path / "userdata" / "katas" / "ring_allreduce.py"
    assert start.returncode == 0 and path.read_text() == all_katas()["ring_allreduce"].stub()
    path.write_text(path.read_text() + "\n# my edits\n")
    assert "kept" in kata_cli("start", "ring_allreduce").stdout and "# my edits" in path.read_text()
    wrong = WRONG / "ring_allreduce" / "naive_broadcast.py"
    checked = kata_cli("check", "ring_allreduce", "--solution", str(wrong))
    assert checked.returncode == 1 and "ring_volume" in checked.stdout and "Traceback" not in checked.stdout
    with connect() as conn:
        (a,) = attempts(conn, "ring_allreduce")
    assert (a.passed, a.passed_cases, a.total_cases) == (False, 4, 5) and len(a.code_sha256) == 64
    assert a.cases[-1]["status"] == "failed"
    shown = kata_cli("reveal", "ring_allreduce")
    assert shown.returncode == 0 and "def ring_all_reduce_mean" in shown.stdout
    unknown = kata_cli("--lang", "zh", "check", "nope")
    assert unknown.returncode == 2 and "没有名为" in unknown.stdout and "Traceback" not in unknown.stderr
