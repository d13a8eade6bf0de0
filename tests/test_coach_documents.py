"""Résumé parsing from real files made here: DOCX by python-docx, PDF written by hand (and encrypted by pypdf)."""

from __future__ import annotations

import io
import zipfile

import docx
import pytest
from pypdf import PdfReader, PdfWriter

from coach.documents import MAX_BYTES, DocumentError, parse_resume, parse_text

ZH_MD = """# 张三

## 工作经历

### 某大模型公司 | 训练框架工程师 | 2021-2024
负责训练平台
- 使用 DeepSpeed 训练大模型
- 实现断点续训，恢复时间从 30 分钟降到 5 分钟

## 项目经历
1. 千卡集群 NCCL 通信调优
2. **FSDP** 显存优化

## 技能
PyTorch, Megatron-LM
"""


def make_pdf(lines: list[str]) -> bytes:
    """A minimal valid one-page PDF whose text extracts as `lines` (any BMP characters, Chinese included).

    One Type0 font with Identity-H encoding: each character is written as its own code point, and the
    ToUnicode CMap maps every code to itself, which is all a text extractor needs (no glyphs are drawn).
    """
    ops = ["BT", "/F1 11 Tf", "14 TL", "50 780 Td"]
    ops += ["<" + "".join(f"{ord(c):04X}" for c in line) + "> Tj T*" for line in lines]
    ops.append("ET")
    stream = "\n".join(ops).encode()
    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /UCS def /CMapType 2 def "
            b"1 begincodespacerange <0000> <FFFF> endcodespacerange 1 beginbfrange <0000> <FFFF> <0000> endbfrange "
            b"endcmap CMapName currentdict /CMap defineresource pop end end")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> "
        b"/Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type0 /BaseFont /Dummy /Encoding /Identity-H /DescendantFonts [6 0 R] "
        b"/ToUnicode 7 0 R >>",
        b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Dummy "
        b"/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor 8 0 R /DW 1000 >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(cmap), cmap),
        b"<< /Type /FontDescriptor /FontName /Dummy /Flags 4 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 "
        b"/Descent -200 /CapHeight 700 /StemV 80 >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


PDF_LINES = ["Li Si", "工作经历", "ACME AI | Training Infra | 2022-2024", "• 使用 DeepSpeed ZeRO-3 训练 7B 模型",
             "- Built checkpoint resume for 64 GPUs", "1. 优化 NCCL all-reduce", "Education", "PKU, MSc"]


def make_docx() -> bytes:
    d = docx.Document()
    d.add_heading("王五", level=0)
    d.add_heading("工作经历", level=1)
    d.add_heading("某云厂商 | 大模型训练 | 2020-2023", level=2)
    d.add_paragraph("使用 Megatron-LM 做流水线并行", style="List Bullet")
    d.add_paragraph("Cut checkpoint save time with async checkpoint", style="List Number")
    d.add_paragraph("• 手写项目符号的一行")
    d.add_heading("Skills", level=1)
    table = d.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "Kubernetes"
    table.cell(0, 1).text = "Slurm"
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


def encrypted_pdf(user_password: str, owner_password: str | None = None) -> bytes:
    reader = PdfReader(io.BytesIO(make_pdf(PDF_LINES)))
    writer = PdfWriter(clone_from=reader)
    writer.encrypt(user_password, owner_password=owner_password, algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_markdown_sections_experiences_and_bullets() -> None:
    r = parse_resume(ZH_MD.encode(), "简历.md")
    assert r.kind == "markdown" and r.name == "张三"
    assert [s.title for s in r.sections] == ["工作经历", "项目经历", "技能"]
    job = r.sections[0].experiences[0]
    assert job.title == "某大模型公司 | 训练框架工程师 | 2021-2024"
    assert job.details == ["负责训练平台"]
    assert job.bullets == ["使用 DeepSpeed 训练大模型", "实现断点续训，恢复时间从 30 分钟降到 5 分钟"]
    assert r.sections[1].experiences[0].bullets == ["千卡集群 NCCL 通信调优", "FSDP 显存优化"]  # numbers, ** removed
    assert "PyTorch, Megatron-LM" in r.text


def test_plain_text_uses_section_titles_and_bullet_glyphs() -> None:
    text = ("Jane Doe\njane@example.com\n\nExperience:\nACME | 2021-2024\n• Trained models with FSDP\n"
            "* Ran nccl-tests\n\nSKILLS\nPyTorch\n")
    r = parse_resume(text.encode(), "resume.txt")
    assert [s.title for s in r.sections] == ["", "Experience", "SKILLS"]
    assert r.sections[1].experiences[0].title == "ACME | 2021-2024"
    assert r.bullets == ["Trained models with FSDP", "Ran nccl-tests"]


def test_text_in_gb18030_is_decoded() -> None:
    r = parse_resume("工作经历\n- 负责断点续训\n".encode("gb18030"), "cv.txt")
    assert r.bullets == ["负责断点续训"]


def test_docx_headings_list_styles_and_tables() -> None:
    r = parse_resume(make_docx(), "cv.docx")
    assert r.kind == "docx" and r.name == "王五"
    assert [s.title for s in r.sections] == ["工作经历", "Skills"]
    job = r.sections[0].experiences[0]
    assert job.title == "某云厂商 | 大模型训练 | 2020-2023"
    assert job.bullets == [
        "使用 Megatron-LM 做流水线并行", "Cut checkpoint save time with async checkpoint", "手写项目符号的一行",
    ]
    assert "Kubernetes" in r.text and "Slurm" in r.text


def test_pdf_lines_chinese_and_english() -> None:
    r = parse_resume(make_pdf(PDF_LINES), "cv.pdf")
    assert r.kind == "pdf"
    assert [s.title for s in r.sections] == ["", "工作经历", "Education"]
    job = r.sections[1].experiences[0]
    assert job.title == "ACME AI | Training Infra | 2022-2024"
    assert job.bullets == [
        "使用 DeepSpeed ZeRO-3 训练 7B 模型", "Built checkpoint resume for 64 GPUs", "优化 NCCL all-reduce",
    ]


def test_pdf_with_user_password_is_refused() -> None:
    with pytest.raises(DocumentError, match=r"locked\.pdf: .*password"):
        parse_resume(encrypted_pdf("secret"), "locked.pdf")


def test_pdf_with_owner_password_only_is_read() -> None:
    r = parse_resume(encrypted_pdf("", owner_password="owner"), "restricted.pdf")
    assert "Built checkpoint resume for 64 GPUs" in r.bullets


@pytest.mark.parametrize(
    ("data", "name", "problem"),
    [
        (b"", "empty.pdf", "empty"),
        (b"   \n\n  ", "blank.md", "no text"),
        (b"%PDF-1.4\n\x00\x01garbage that is no pdf", "broken.pdf", "corrupt PDF"),
        (b"hello, I am not a pdf", "fake.pdf", "not a valid PDF"),
        (b"PK\x03\x04 not really a zip", "broken.docx", "corrupt DOCX"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00", "photo.txt", "binary"),
        (b"{\\rtf1 hello}", "cv.doc", "unsupported file type '.doc'"),
        (b"MZ\x90\x00", "setup.exe", "unsupported"),
        (b"no suffix", "resume", "unsupported file type '(none)'"),
    ],
)
def test_bad_files_raise_a_clear_error(data: bytes, name: str, problem: str) -> None:
    with pytest.raises(DocumentError) as e:
        parse_resume(data, name)
    assert str(e.value).startswith(f"{name}: ") and problem in str(e.value)


def test_pdf_without_text_is_reported() -> None:
    writer = PdfWriter()
    writer.add_blank_page(595, 842)
    out = io.BytesIO()
    writer.write(out)
    with pytest.raises(DocumentError, match="scan.pdf: no text found"):
        parse_resume(out.getvalue(), "scan.pdf")


def test_oversized_file_is_refused_before_parsing() -> None:
    data = b"- x\n" * (MAX_BYTES // 4 + 1)
    with pytest.raises(DocumentError, match=r"big\.md: the file is 5\.2 MB, over the 5 MB limit"):
        parse_resume(data, "big.md")


def test_docx_zip_bomb_is_refused() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("word/document.xml", "<w:document/>")
        z.writestr("padding.bin", b"\0" * (51 * 1024 * 1024))
    assert len(out.getvalue()) < MAX_BYTES
    with pytest.raises(DocumentError, match="bomb.docx: the DOCX unpacks to more than 50 MB"):
        parse_resume(out.getvalue(), "bomb.docx")


def test_markdown_round_trip_keeps_structure() -> None:
    files = [(ZH_MD.encode(), "a.md"), (make_docx(), "b.docx"), (make_pdf(PDF_LINES), "c.pdf")]
    for r in (parse_resume(data, name) for data, name in files):
        again = parse_text(r.to_markdown())
        assert again.bullets == r.bullets
        assert [s.title for s in again.sections] == [s.title for s in r.sections]
        assert again.name == r.name
