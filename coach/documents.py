"""Résumé files in, structured résumé out: PDF, DOCX, Markdown or plain text, Chinese or English.

`parse_resume(data, filename)` takes the bytes and name an upload gives and returns a `Resume`: sections
(工作经历 / Experience ...), each holding experiences (a title line such as "ACME | ML Infra | 2021-2023" and
its bullet lines). Every problem is a `DocumentError` naming the file and what is wrong with it.

Safety: files are only read, never run. DOCX is opened as a zip of XML (macros in .docm are not accepted, and
the zip's unpacked size is capped so a zip bomb cannot fill memory); pypdf only extracts text (it does not
execute PDF JavaScript); text files are decoded, nothing more.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import PurePath

import docx
from docx.table import Table
from docx.text.paragraph import Paragraph
from pypdf import PdfReader

MAX_BYTES = 5 * 1024 * 1024          # 5 MB: a résumé is a few hundred KB; more is a scan or the wrong file
MAX_UNZIPPED_BYTES = 50 * 1024 * 1024  # a DOCX is a zip: cap what it unpacks to
MAX_PDF_PAGES = 30
SUFFIXES = {".pdf": "pdf", ".docx": "docx", ".md": "markdown", ".markdown": "markdown", ".txt": "text"}

# A bullet line: a bullet glyph, a dash or star, or a list number ("1.", "2)", "3、", "(4)").
_BULLET = re.compile(r"^\s*(?:[•●○◦▪▫■□◆◇▶►➢✓✔·\-*+–—]|\(?\d{1,2}[.)、]|\(\d{1,2}\)|[（(]\d{1,2}[)）])\s*(?=\S)")
_MD_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_MD_MARKUP = re.compile(r"\*\*|__|`")
# Titles that open a section even without Markdown or a heading style (plain text and PDF lines).
SECTION_TITLES = frozenset(
    t.lower()
    for t in (
        "个人信息 基本信息 联系方式 个人简介 个人总结 自我评价 求职意向 教育经历 教育背景 工作经历 "
        "工作经验 实习经历 项目经历 项目经验 科研经历 专业技能 技能 技能清单 技术栈 获奖情况 荣誉奖项 "
        "论文 发表论文 开源贡献 证书 语言能力"
    ).split()
) | frozenset(
    (
        "summary", "profile", "about", "about me", "objective", "contact", "education", "experience",
        "work experience", "professional experience", "employment", "internships", "internship", "projects",
        "project experience", "selected projects", "skills", "technical skills", "publications", "awards",
        "honors", "certifications", "open source", "languages",
    )
)


class DocumentError(ValueError):
    """A résumé file that cannot be read; the message names the file and the problem (in English). `code` and
    `params` say the same for a translation (`coach.inputs.MESSAGES`)."""

    def __init__(self, message: str, code: str = "unreadable", **params: object) -> None:
        super().__init__(message)
        self.code = code
        self.params = {"reason": message, **params}


@dataclass
class Experience:
    """One entry of a section: its title line(s) and bullet lines. `title` is '' for bullets under no title."""
    title: str
    details: list[str] = field(default_factory=list)  # non-bullet lines after the title (dates, team, stack)
    bullets: list[str] = field(default_factory=list)

    @property
    def is_entry(self) -> bool:
        """A titled entry with content (a job, a project), not a lone line of text such as a skills list."""
        return bool(self.title and (self.bullets or self.details))


@dataclass
class Section:
    title: str  # '' for the part before the first heading (name, contact)
    experiences: list[Experience] = field(default_factory=list)


@dataclass
class Resume:
    filename: str
    kind: str                 # pdf | docx | markdown | text
    text: str                 # all extracted text, one line per line, for skill matching
    sections: list[Section]
    name: str = ""            # the document title (a lone top heading), when it has one

    @property
    def bullets(self) -> list[str]:
        return [b for s in self.sections for e in s.experiences for b in e.bullets]

    def to_markdown(self) -> str:
        """The résumé as plain Markdown: `#` name, `##` sections, `###` experience titles, `-` bullets."""
        out: list[str] = [f"# {self.name}", ""] if self.name else []
        for s in self.sections:
            if s.title:
                out += [f"## {s.title}", ""]
            for e in s.experiences:
                if e.title:
                    out.append(f"### {e.title}" if s.title and e.is_entry else e.title)
                out += e.details
                out += [f"- {b}" for b in e.bullets]
                out.append("")
        return "\n".join(out).strip() + "\n"


@dataclass(frozen=True)
class Line:
    """One line of the document as the format marks it: heading (with level), bullet or plain text."""
    text: str
    kind: str = "text"  # heading | bullet | text
    level: int = 0      # heading level, 1 = top


def parse_resume(data: bytes, filename: str) -> Resume:
    """Read an uploaded résumé (bytes + original file name). Raises `DocumentError` on any problem."""
    kind = _kind(filename)
    if not data:
        raise DocumentError(f"{filename}: the file is empty", "empty", name=filename)
    if len(data) > MAX_BYTES:
        raise DocumentError(
            f"{filename}: the file is {len(data) / 1e6:.1f} MB, over the {MAX_BYTES // (1024 * 1024)} MB limit",
            "too_big", name=filename, size=f"{len(data) / 1e6:.1f} MB", limit=f"{MAX_BYTES // (1024 * 1024)} MB",
        )
    lines = {"pdf": _pdf_lines, "docx": _docx_lines, "markdown": _markdown_lines, "text": _text_lines}[kind](
        data, filename
    )
    lines = [ln for ln in lines if ln.text.strip()]
    if not lines:
        raise DocumentError(f"{filename}: no text found (a scanned image? export it as a text PDF or DOCX)", "no_text",
                            name=filename)
    name, sections = _build_sections(lines)
    return Resume(filename, kind, "\n".join(ln.text for ln in lines), sections, name)


def parse_text(text: str, filename: str = "resume.md") -> Resume:
    """Parse résumé text already in memory (a stored version, pasted text) as Markdown."""
    return parse_resume(text.encode("utf-8"), filename)


def _kind(filename: str) -> str:
    suffix = PurePath(filename).suffix.lower()
    if suffix not in SUFFIXES:
        supported = ", ".join(sorted(SUFFIXES))
        raise DocumentError(f"{filename}: unsupported file type {suffix or '(none)'!r}; use one of {supported}",
                            "unsupported", name=filename, suffix=suffix or "(none)", supported=supported)
    return SUFFIXES[suffix]


def decode_text(data: bytes, filename: str) -> str:
    """Text from a file's bytes: UTF-8, UTF-16 (with or without a byte-order mark, as Windows Notepad saves
    "Unicode"), or GBK/GB18030 (Chinese Windows "ANSI"). Raises `DocumentError` for binary data."""
    encoding = _utf16(data)
    if encoding is None and (b"\x00" in data or _control_share(data) > 0.01):
        raise DocumentError(f"{filename}: this is a binary file, not text", "binary", name=filename)
    for enc in ([encoding] if encoding else ["utf-8-sig", "gb18030"]):
        try:
            text = data.decode(enc)
        except UnicodeDecodeError:
            continue
        if _control_share(text.encode("utf-8")) <= 0.01:
            return text.lstrip("\ufeff")
    raise DocumentError(f"{filename}: cannot decode the text (save it as UTF-8)", "decode", name=filename)


def _utf16(data: bytes) -> str | None:
    """"utf-16" with a byte-order mark; without one, the side the zero bytes of ASCII characters fall on."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    pairs = len(data) // 2
    if pairs < 8 or len(data) % 2:  # a few bytes with a zero among them are binary, not a line of UTF-16
        return None
    odd, even = data[1::2].count(0), data[0::2].count(0)
    if odd > 0.3 * pairs and even < 0.05 * pairs:
        return "utf-16-le"
    if even > 0.3 * pairs and odd < 0.05 * pairs:
        return "utf-16-be"
    return None


def _control_share(data: bytes) -> float:
    """The share of control bytes other than tab, newline, carriage return and form feed: text has none."""
    if not data:
        return 0.0
    return sum(b < 32 and b not in (9, 10, 12, 13) for b in data[:65536]) / min(len(data), 65536)


_decode = decode_text


def _classify(text: str) -> Line:
    """Plain-text conventions shared by .txt, .md and PDF lines."""
    if m := _MD_HEADING.match(text):
        return Line(_clean(m.group(2)), "heading", len(m.group(1)))
    if _BULLET.match(text) and not re.match(r"^\s*[-*_]{3,}\s*$", text):  # "---" is a rule, not a bullet
        return Line(_clean(_BULLET.sub("", text, count=1)), "bullet")
    bare = _clean(text).rstrip(":：").strip()
    if bare.lower() in SECTION_TITLES:
        return Line(bare, "heading", 2)
    return Line(_clean(text))


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", _MD_MARKUP.sub("", text)).strip()


def _markdown_lines(data: bytes, filename: str) -> list[Line]:
    lines = [_classify(t) for t in _decode(data, filename).splitlines()]
    return [ln for ln in lines if not re.fullmatch(r"[-*_=]{3,}", ln.text)]


_text_lines = _markdown_lines  # a .txt résumé uses the same conventions (dashes, numbers, titles)


def _pdf_lines(data: bytes, filename: str) -> list[Line]:
    if not data.lstrip()[:5].startswith(b"%PDF"):
        raise DocumentError(f"{filename}: not a valid PDF (no %PDF header; corrupt or another format)", "bad_pdf",
                            name=filename)
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            _decrypt(reader, filename)
        if len(reader.pages) > MAX_PDF_PAGES:
            raise DocumentError(f"{filename}: {len(reader.pages)} pages, over the {MAX_PDF_PAGES}-page limit",
                                "pdf_pages", name=filename, pages=len(reader.pages), limit=MAX_PDF_PAGES)
        text = "\n".join(page.extract_text() or "" for page in reader.pages)
    except DocumentError:
        raise
    except Exception as e:  # pypdf raises many types on a damaged file (PdfReadError, KeyError, zlib.error...)
        raise DocumentError(f"{filename}: corrupt PDF ({type(e).__name__}: {e})", "bad_pdf", name=filename) from e
    return [_classify(t) for t in text.splitlines()]


def _decrypt(reader: PdfReader, filename: str) -> None:
    """Open a PDF protected by an owner password only (readable without one); refuse a user password."""
    try:
        opened = reader.decrypt("")
    except Exception as e:  # pypdf raises DependencyError for AES without the `cryptography` package
        raise DocumentError(f"{filename}: the PDF is encrypted and cannot be opened ({e})", "pdf_locked",
                            name=filename) from e
    if not opened:
        raise DocumentError(f"{filename}: the PDF is password-protected; remove the password and upload again",
                            "pdf_locked", name=filename)


def _docx_lines(data: bytes, filename: str) -> list[Line]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            if sum(i.file_size for i in z.infolist()) > MAX_UNZIPPED_BYTES:
                raise DocumentError(f"{filename}: the DOCX unpacks to more than {MAX_UNZIPPED_BYTES >> 20} MB",
                                    "docx_big", name=filename, limit=f"{MAX_UNZIPPED_BYTES >> 20} MB")
            if "word/document.xml" not in z.namelist():
                raise DocumentError(f"{filename}: not a Word document (no word/document.xml)", "bad_docx",
                                    name=filename)
        document = docx.Document(io.BytesIO(data))
    except DocumentError:
        raise
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as e:
        raise DocumentError(f"{filename}: corrupt DOCX or not a Word file ({type(e).__name__})", "bad_docx",
                            name=filename) from e
    except Exception as e:  # python-docx / lxml raise assorted errors on malformed XML
        raise DocumentError(f"{filename}: corrupt DOCX ({type(e).__name__}: {e})", "bad_docx", name=filename) from e
    lines: list[Line] = []
    for block in document.iter_inner_content():
        # Tables are read cell by cell, so a table-layout résumé still yields its text.
        paragraphs = (
            [p for row in block.rows for cell in row.cells for p in cell.paragraphs]
            if isinstance(block, Table) else [block]
        )
        lines += [_docx_line(p) for p in paragraphs]
    return lines


def _docx_line(paragraph: Paragraph) -> Line:
    text = paragraph.text
    style = (paragraph.style.name if paragraph.style is not None else "") or ""
    lowered = style.lower()
    if lowered == "title":
        return Line(_clean(text), "heading", 1)
    if m := re.match(r"(?:heading|标题)\s*(\d)", lowered):
        return Line(_clean(text), "heading", int(m.group(1)) + 1)  # Title is the top level
    numbered = paragraph._p.pPr is not None and paragraph._p.pPr.numPr is not None  # Word's own list numbering
    if "list" in lowered or numbered:
        return Line(_clean(_BULLET.sub("", text, count=1)), "bullet")
    return _classify(text)


def _build_sections(lines: list[Line]) -> tuple[str, list[Section]]:
    """Group lines: headings at the section level open sections, deeper headings and plain lines followed by
    bullets open experiences. A single top-level heading (often the name) is the document title."""
    levels = [ln.level for ln in lines if ln.kind == "heading"]
    name = ""
    top = min(levels, default=2)
    if levels.count(top) == 1 and len(set(levels)) > 1:
        i = next(i for i, ln in enumerate(lines) if ln.kind == "heading" and ln.level == top)
        name = lines[i].text
        lines = lines[:i] + lines[i + 1:]
        levels.remove(top)
    section_level = min(levels, default=2)
    sections = [Section("")]
    for ln in lines:
        current = sections[-1]
        last = current.experiences[-1] if current.experiences else None
        if ln.kind == "heading" and ln.level <= section_level:
            sections.append(Section(ln.text))
        elif ln.kind == "heading":
            current.experiences.append(Experience(ln.text))
        elif ln.kind == "bullet":
            if last is None:
                last = Experience("")
                current.experiences.append(last)
            last.bullets.append(ln.text)
        elif last is None or last.bullets:
            current.experiences.append(Experience(ln.text))
        else:
            last.details.append(ln.text)
    return name, [s for s in sections if s.title or s.experiences]
