"""Reading what the user hands us, for the CLI and the app alike: a JD or a résumé, from a path or from bytes.

Every problem is an `InputError` with a code, its parameters and one line in English or Chinese (`text(lang)`),
so the CLI prints one line and exits 2 and the app shows the same line in its UI language; neither shows a
traceback. A JD may be plain text or Markdown (UTF-8, UTF-16 or GBK, see `coach.documents.decode_text`), a PDF
or a DOCX; it must hold text and be at most `MAX_JD_BYTES`.
"""

from __future__ import annotations

from pathlib import Path

from coach.documents import MAX_BYTES, DocumentError, Resume, decode_text, parse_resume

MAX_JD_BYTES = 200 * 1024  # a long JD is 10 KB; 200 KB is a whole web page or the wrong file

# code -> (zh, en); {name} is the file, other fields as each raise gives them.
MESSAGES: dict[str, tuple[str, str]] = {
    "missing": ("找不到文件：{name}", "{name}: no such file"),
    "unreadable": ("无法读取这个文件：{reason}", "Cannot read this file: {reason}"),
    "empty": ("{name} 是空文件", "{name}: the file is empty"),
    "binary": ("{name} 是二进制文件，不是文本", "{name}: this is a binary file, not text"),
    "decode": ("{name} 的编码无法识别，请另存为 UTF-8", "{name}: cannot decode the text (save it as UTF-8)"),
    "too_big": ("{name} 有 {size}，超过 {limit} 的上限", "{name}: the file is {size}, over the {limit} limit"),
    "no_text": ("{name} 中没有文字（是扫描件吗？请导出为文字版 PDF 或 DOCX）",
                "{name}: no text found (a scanned image? export it as a text PDF or DOCX)"),
    "unsupported": ("{name} 的类型 {suffix} 不支持，请使用 {supported}",
                    "{name}: unsupported file type {suffix}; use one of {supported}"),
    "bad_pdf": ("{name} 不是有效的 PDF（文件损坏或是其他格式）", "{name}: not a valid PDF (corrupt or another format)"),
    "pdf_pages": ("{name} 有 {pages} 页，超过 {limit} 页的上限", "{name}: {pages} pages, over the {limit}-page limit"),
    "pdf_locked": ("{name} 有密码保护：去掉密码后再上传", "{name}: the PDF is password-protected; remove the password"),
    "bad_docx": ("{name} 不是有效的 Word 文档（DOCX）", "{name}: not a valid Word document (DOCX)"),
    "docx_big": ("{name} 解压后超过 {limit}", "{name}: the DOCX unpacks to more than {limit}"),
    "jd_empty": ("JD 是空的：请粘贴或上传职位描述", "The JD is empty: paste or upload the job description"),
    "jd_too_big": ("JD 有 {size}，超过 {limit} 的上限（是否选错了文件？）",
                   "The JD is {size}, over the {limit} limit (the wrong file?)"),
}


class InputError(ValueError):
    """A file or text we cannot use; `text(lang)` is the one line to show."""

    def __init__(self, code: str, **params: object) -> None:
        self.code = code
        self.params = {"name": "", "reason": "", **{k: str(v) for k, v in params.items()}}
        super().__init__(self.text("en"))

    def text(self, lang: str = "en") -> str:
        zh, en = MESSAGES.get(self.code, MESSAGES["unreadable"])
        return (zh if lang == "zh" else en).format(**self.params)

    @classmethod
    def from_document(cls, e: DocumentError) -> InputError:
        return cls(e.code if e.code in MESSAGES else "unreadable", **e.params)


def read_bytes(path: str | Path) -> bytes:
    """A file's bytes, or an `InputError` (missing, a folder, no permission)."""
    p = Path(path)
    if not p.exists():
        raise InputError("missing", name=str(path))
    try:
        return p.read_bytes()
    except OSError as e:  # a folder, no permission, a device
        raise InputError("unreadable", name=str(path), reason=f"{path}: {e.strerror or type(e).__name__}") from e


def jd_from_bytes(data: bytes, name: str) -> str:
    """The JD's text from an uploaded or read file."""
    if len(data) > MAX_JD_BYTES:
        raise InputError("jd_too_big", name=name, size=_kb(len(data)), limit=_kb(MAX_JD_BYTES))
    try:
        if Path(name).suffix.lower() in (".pdf", ".docx"):
            text = parse_resume(data, name).text  # the same safe readers as a résumé
        else:
            text = decode_text(data, name)
    except DocumentError as e:
        if e.code == "no_text":
            raise InputError("jd_empty", name=name) from e
        raise InputError.from_document(e) from e
    return check_jd(text)


def check_jd(text: str) -> str:
    """A pasted or decoded JD, checked: not empty, not over the size limit."""
    if not text.strip():
        raise InputError("jd_empty")
    size = len(text.encode("utf-8"))
    if size > MAX_JD_BYTES:
        raise InputError("jd_too_big", size=_kb(size), limit=_kb(MAX_JD_BYTES))
    return text


def read_jd(path: str | Path) -> str:
    return jd_from_bytes(read_bytes(path), Path(path).name)


def resume_from_bytes(data: bytes, name: str) -> Resume:
    """A parsed résumé (PDF, DOCX, Markdown, text); a résumé without text is an error."""
    if len(data) > MAX_BYTES:
        raise InputError("too_big", name=name, size=f"{len(data) / 1e6:.1f} MB", limit=f"{MAX_BYTES >> 20} MB")
    try:
        resume = parse_resume(data, name)
    except DocumentError as e:
        raise InputError.from_document(e) from e
    if not resume.text.strip():
        raise InputError("no_text", name=name)
    return resume


def read_resume(path: str | Path) -> Resume:
    return resume_from_bytes(read_bytes(path), Path(path).name)


def _kb(n: int) -> str:
    return f"{n / 1024:.0f} KB"
