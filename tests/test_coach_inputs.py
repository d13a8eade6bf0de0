"""Bad input, for `python -m coach.match` and the readers the app shares: one clear line, exit code 2,
nothing written, no traceback. GBK and UTF-16 JDs are read, not refused."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from coach.inputs import MAX_JD_BYTES, MESSAGES, InputError, check_jd, jd_from_bytes, read_jd
from coach.match import BAD_INPUT, main
from conftest import ROOT, env

JD = "任职要求：熟悉 PyTorch 与 NCCL，有 Megatron 经验者优先。"
RESUME = "# 张三\n## 工作经历\n- NCCL 通信调优，训练提速 1.3 倍\n"


def run(tmp_path: Path, jd: bytes | None, resume: bytes | None, *extra: str, lang: str = "en"):
    """main() in process: (exit code, stdout, stderr, the --out path)."""
    jd_path, cv_path, report = tmp_path / "jd.txt", tmp_path / "cv.md", tmp_path / "out" / "report.md"
    if jd is not None:
        jd_path.write_bytes(jd)
    if resume is not None:
        cv_path.write_bytes(resume)
    out, err = io.StringIO(), io.StringIO()
    code = main(["--jd", str(jd_path), "--resume", str(cv_path), "--lang", lang, "--out", str(report), *extra],
                out=out, err=err)
    return code, out.getvalue(), err.getvalue(), report


@pytest.mark.parametrize(("jd", "resume", "expected"), [
    (None, RESUME.encode(), "no such file"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), RESUME.encode(), "binary file"),
    (b"x\x00\x01\x02", RESUME.encode(), "binary file"),               # too short to be UTF-16
    (b"   \n\t\n", RESUME.encode(), "The JD is empty"),
    (("熟悉 NCCL。" * 30000).encode(), RESUME.encode(), "over the 200 KB limit"),
    (JD.encode(), b"  \n \n", "no text found"),
    (JD.encode(), None, "no such file"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path: Path, jd, resume, expected: str) -> None:
    code, out, err, report = run(tmp_path, jd, resume)
    assert code == BAD_INPUT and out == "" and not report.exists() and not report.parent.exists()
    assert len(err.strip().splitlines()) == 1 and expected in err, err


def test_the_line_is_in_the_chosen_language(tmp_path: Path) -> None:
    code, _, err, _ = run(tmp_path, None, RESUME.encode(), lang="zh")
    assert code == BAD_INPUT and err.startswith("找不到文件")


@pytest.mark.parametrize("encoding", ["gbk", "utf-16", "utf-16-le", "utf-16-be", "utf-8-sig"])
def test_gbk_and_utf16_jds_are_read(tmp_path: Path, encoding: str) -> None:
    code, out, err, report = run(tmp_path, JD.encode(encoding), RESUME.encode())
    assert code == 0, err
    assert "PyTorch" in out and "Megatron" in out and report.read_text(encoding="utf-8").strip() == out.strip()


def test_a_folder_or_a_pdf_without_text_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="Cannot read this file"):
        read_jd(tmp_path)
    with pytest.raises(InputError) as e:
        jd_from_bytes(b"%PDF-1.4 broken", "jd.pdf")
    assert "jd.pdf" in e.value.text("en") and "jd.pdf" in e.value.text("zh")


def test_pasted_jd_limits() -> None:
    assert check_jd(JD) == JD
    with pytest.raises(InputError) as e:
        check_jd("x" * (MAX_JD_BYTES + 1))
    assert e.value.code == "jd_too_big" and "200 KB" in e.value.text("zh")


def test_every_message_exists_in_both_languages_with_the_same_fields() -> None:
    import string

    for code, (zh, en) in MESSAGES.items():
        fields = [{f for _, f, _, _ in string.Formatter().parse(s) if f} for s in (zh, en)]
        assert fields[0] == fields[1] and zh != en, code


def test_the_cli_as_a_subprocess_shows_no_traceback(tmp_path: Path) -> None:
    (tmp_path / "jd.bin").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "cv.md").write_text(RESUME, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "coach.match", "--jd", str(tmp_path / "jd.bin"), "--resume",
                           str(tmp_path / "cv.md"), "--out", str(tmp_path / "r.md")],
                          cwd=ROOT, env=env(), capture_output=True, text=True, timeout=60)
    assert proc.returncode == BAD_INPUT and "Traceback" not in proc.stderr and proc.stdout == ""
    assert proc.stderr.strip() == "jd.bin: this is a binary file, not text"
    assert not (tmp_path / "r.md").exists()


@pytest.mark.parametrize(("data", "name", "code", "zh"), [
    (b"hello, I am not a pdf", "fake.pdf", "bad_pdf", "fake.pdf 不是有效的 PDF"),
    (b"%PDF-1.4\n\x00\x01garbage that is no pdf", "broken.pdf", "bad_pdf", "broken.pdf 不是有效的 PDF"),
    (b"PK\x03\x04 not really a zip", "broken.docx", "bad_docx", "broken.docx 不是有效的 Word 文档"),
])
def test_a_broken_document_is_named_in_the_users_language(data: bytes, name: str, code: str, zh: str) -> None:
    from coach.inputs import resume_from_bytes

    with pytest.raises(InputError) as e:
        resume_from_bytes(data, name)
    assert e.value.code == code and e.value.text("zh").startswith(zh)
    assert not any(c.isascii() and c.isalpha() for c in e.value.text("zh").replace(name, "").replace("PDF", "")
                   .replace("Word", "").replace("DOCX", ""))  # no English left in the zh line
