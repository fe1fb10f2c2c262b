"""Local full texts of works: ``<folder>/<work id>.<ext>``, then ``<DOI, unsafe characters as _>.<ext>``.

The extensions, in lookup order: ``.txt``, ``.md``, ``.html``/``.htm`` (a saved article page:
scripts and styles dropped, tags and entities removed) and ``.pdf`` (the paper itself: its text
layer, page by page, through pypdfium2; a PDF without one, or an encrypted one, is logged and
skipped). One lookup for every stage that wants a work's text (content grounding in
``references``, the source store of ``citation-eval``).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from citejudge.records import Work
from citejudge.text.normalize import strip_markup

__all__ = ["find_fulltext", "fulltext_names"]

log = logging.getLogger(__name__)

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_EXTENSIONS = (".txt", ".md", ".html", ".htm", ".pdf")


def fulltext_names(work: Work) -> list[str]:
    """File names (without extension) a full text of ``work`` may have, in lookup order."""
    names = [work.id] if "/" not in work.id and "\\" not in work.id else []
    if work.doi:
        names.append(_UNSAFE.sub("_", work.doi))
    return names


def find_fulltext(folder: Path, work: Work) -> tuple[str, str] | None:
    """(text, file name) of the first non-blank full text of ``work`` in ``folder``, or None.

    An unreadable file is logged and skipped.
    """
    for name in fulltext_names(work):
        for ext in _EXTENSIONS:
            p = folder / f"{name}{ext}"
            if not p.is_file():
                continue
            try:
                text = _read(p)
            except (OSError, ValueError) as exc:
                log.warning("cannot read full text %s: %s", p, exc)
                continue
            if text.strip():
                return text, p.name
    return None


def _read(path: Path) -> str:
    """The text of one full-text file (see the module docstring); ValueError for a bad PDF."""
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return _pdf_text(path)
    text = path.read_text(encoding="utf-8", errors="replace")
    if suffix in (".html", ".htm"):
        text = strip_markup(re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", text))
    return text


def _pdf_text(path: Path) -> str:
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        raise ValueError(f"not a readable PDF ({exc})") from exc
    try:
        pages: list[str] = []
        for i in range(len(pdf)):
            page = pdf[i]
            try:
                tp = page.get_textpage()
                try:
                    pages.append(tp.get_text_range().replace("\r\n", "\n").replace("\r", "\n"))
                finally:
                    tp.close()
            finally:
                page.close()
        return "\n\n".join(pages)
    finally:
        pdf.close()
