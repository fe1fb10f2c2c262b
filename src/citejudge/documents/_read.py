"""Which reader reads a file: by its suffix, or the format the caller names."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from citejudge.documents._build import DocumentError
from citejudge.documents._model import DOCUMENT_FORMATS, Document

__all__ = ["SUFFIXES", "detect_format", "document_files", "read_document"]

#: File suffix -> format.
SUFFIXES = {
    ".pdf": "pdf",
    ".tex": "latex",
    ".ltx": "latex",
    ".xml": "jats",
    ".nxml": "jats",
    ".jats": "jats",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
    ".bib": "bibtex",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".docx": "docx",
}


def document_files(paths: Sequence[Path]) -> list[Path]:
    """``paths`` with each folder replaced by the documents under it.

    A folder gives every file with a document suffix (:data:`SUFFIXES`) under it, at any depth,
    sorted, hidden files and folders left out, and a ``.bib`` left out where a ``.tex`` sits
    beside it (the LaTeX document reads it). Other paths stay as given, so that a missing file
    is still reported by name.
    """
    out: list[Path] = []
    for p in paths:
        if not p.is_dir():
            out.append(p)
            continue
        found = sorted(
            f
            for f in p.rglob("*")
            if f.is_file()
            and f.suffix.lower() in SUFFIXES
            and not any(part.startswith(".") for part in f.relative_to(p).parts)
        )
        tex_dirs = {f.parent for f in found if f.suffix.lower() in (".tex", ".ltx")}
        out.extend(f for f in found if not (f.suffix.lower() == ".bib" and f.parent in tex_dirs))
    return out


def detect_format(path: Path) -> str:
    """The format of ``path`` from its suffix (see :data:`SUFFIXES`)."""
    fmt = SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        raise DocumentError(
            f"{path}: unknown document type {path.suffix or '(no suffix)'}",
            hint="documents are .pdf, .tex, .xml (JATS), .html, .docx, .md, .txt or a .bib (a reference list "
            "alone); a list of items (.jsonl, .csv, CSL-JSON .json, .ris) goes to "
            "'citejudge check references'",
        )
    return fmt


def read_document(path: str | Path, *, fmt: str | None = None) -> Document:
    """Read one document: its reference list, its citing sentences and their markers.

    Raises :class:`~citejudge.documents.DocumentError` (naming the file) for a file that
    cannot be read, an encrypted or image-only PDF, or a document without a reference list.
    """
    p = Path(path)
    if not p.is_file():
        raise DocumentError(f"{p}: no such file")
    fmt = fmt or detect_format(p)
    if fmt not in DOCUMENT_FORMATS:
        raise DocumentError(
            f"{p}: unknown format {fmt!r}", hint=f"one of {', '.join(DOCUMENT_FORMATS)}"
        )
    if fmt == "pdf":
        from citejudge.documents._pdf import read_pdf

        return read_pdf(p)
    if fmt == "latex":
        from citejudge.documents._latex import read_latex

        return read_latex(p)
    if fmt == "bibtex":
        from citejudge.documents._bib import read_bib_document

        return read_bib_document(p)
    if fmt == "jats":
        from citejudge.documents._jats import read_jats

        return read_jats(p)
    if fmt == "docx":
        from citejudge.documents._docx import read_docx

        return read_docx(p)
    if fmt == "html":
        from citejudge.documents._html import read_html

        return read_html(p)
    from citejudge.documents._plain import read_markdown

    return read_markdown(p, markdown=fmt == "markdown")
