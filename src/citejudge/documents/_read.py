"""Which reader reads a file: by its suffix, or the format the caller names."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from citejudge.documents._build import DocumentError
from citejudge.documents._model import DOCUMENT_FORMATS, Document

__all__ = ["SUFFIXES", "detect_format", "document_files", "read_along", "read_document"]

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
    ".qmd": "markdown",  # Quarto
    ".rmd": "markdown",  # R Markdown
    ".txt": "text",
    ".text": "text",
    ".bib": "bibtex",
    ".bbl": "bibtex",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".docx": "docx",
    ".odt": "odt",  # OpenDocument text (LibreOffice, OpenOffice)
    ".fodt": "odt",  # its flat form: one XML file
}


def document_files(paths: Sequence[Path], *, source_only: bool = False) -> list[Path]:
    r"""``paths`` with each folder replaced by the documents under it.

    A folder gives every file with a document suffix (:data:`SUFFIXES`) and every archive
    (``.tar.gz``, ``.zip``…) under it, at any depth, sorted, hidden files and folders left out,
    and a ``.bib`` or ``.bbl`` left out where a ``.tex`` sits beside it (the LaTeX document
    reads it); so
    are the parts of a LaTeX project (what its ``\input``, ``\include``, ``\bibliography`` or
    ``\includegraphics`` names, ``subfiles``/``standalone`` files, and ``.tex`` files without a
    ``\documentclass`` beside one that has it: see
    :func:`~citejudge.documents._latex.latex_parts`). With ``source_only`` (an unpacked
    archive: one paper's source), a folder holding a LaTeX document gives its main files only.
    Other paths stay as given, so that a missing file is still reported by name.
    """
    from citejudge.documents._archive import is_archive

    out: list[Path] = []
    for p in paths:
        if not p.is_dir():
            out.append(p)
            continue
        found = sorted(
            f
            for f in p.rglob("*")
            if f.is_file()
            and (f.suffix.lower() in SUFFIXES or is_archive(f))
            and not any(part.startswith(".") for part in f.relative_to(p).parts)
        )
        tex = [f for f in found if f.suffix.lower() in (".tex", ".ltx")]
        tex_dirs = {f.parent for f in tex}
        parts: set[Path] = set()
        if tex:
            from citejudge.documents._latex import latex_parts

            parts = latex_parts(tex, p)
        parts.update(
            Path(os.path.normpath(b))
            for f in found
            if SUFFIXES.get(f.suffix.lower()) == "markdown"
            for b in _markdown_bibliographies(f)
        )
        docs = [
            f
            for f in found
            if f not in parts
            and not (f.suffix.lower() in (".bib", ".bbl") and f.parent in tex_dirs)
        ]
        mains = [f for f in docs if f in tex]
        out.extend(mains if source_only and mains else docs)
    return out


def read_along(paths: Sequence[Path]) -> list[Path]:
    """The files that reading the documents ``paths`` also reads, each once.

    A LaTeX document's parts, its ``.bib`` or ``.bbl``; the ``.bib`` a Markdown front matter
    names: a run's manifest records their sha256 beside the documents'.
    """
    from citejudge.documents._latex import latex_read_files

    out: list[Path] = []
    for p in paths:
        if not p.is_file():
            continue
        if p.suffix.lower() in (".tex", ".ltx"):
            out.extend(f for f in latex_read_files(p) if f not in out and f not in paths)
        elif SUFFIXES.get(p.suffix.lower()) == "markdown":
            bibs = _markdown_bibliographies(p)
            out.extend(f for f in bibs if f.is_file() and f not in out and f not in paths)
    return out


def _markdown_bibliographies(path: Path) -> list[Path]:
    from citejudge.documents._plain import markdown_bibliographies

    return markdown_bibliographies(path)


def detect_format(path: Path) -> str:
    """The format of ``path`` from its suffix (see :data:`SUFFIXES`)."""
    fmt = SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        raise DocumentError(
            f"{path}: unknown document type {path.suffix or '(no suffix)'}",
            hint="documents are .pdf, .tex, .xml (JATS), .html, .docx, .odt, .md (.qmd, .Rmd), .txt, a .bib or "
            ".bbl (a reference list alone) or an archive of them (.tar.gz, .zip); a list of items "
            "(.jsonl, .csv, CSL-JSON .json, .ris) goes to "
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
    if fmt == "odt":
        from citejudge.documents._odt import read_odt

        return read_odt(p)
    if fmt == "html":
        from citejudge.documents._html import read_html

        return read_html(p)
    from citejudge.documents._plain import read_markdown

    return read_markdown(p, markdown=fmt == "markdown")
