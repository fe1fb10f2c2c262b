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
from functools import lru_cache
from pathlib import Path

from citejudge.records import Work
from citejudge.text.normalize import fold, strip_markup

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


#: Zotero's (and Mendeley's, JabRef's) default attachment name: "Hochreiter and Schmidhuber -
#: 1997 - Long Short-Term Memory.pdf" (the title cut at about 100 characters, ":" and "?" left out).
_LIBRARY_NAME = re.compile(r"^.+? - (?P<year>(?:1[5-9]|20)\d\d) - (?P<title>.+)$")


@lru_cache(maxsize=64)
def _library_files(folder: Path, stamp: float) -> dict[int, list[tuple[str, Path]]]:
    """Year -> (title folded without spaces, path) of the files a reference manager named.

    ``stamp`` is the folder's mtime: a changed folder is read again.
    """
    out: dict[int, list[tuple[str, Path]]] = {}
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return out
    for p in entries:
        m = _LIBRARY_NAME.match(p.stem) if p.suffix.lower() in _EXTENSIONS else None
        if m is not None:
            title = fold(m.group("title")).replace(" ", "")
            if len(title) >= 10:
                out.setdefault(int(m.group("year")), []).append((title, p))
    return out


def _library_match(folder: Path, work: Work) -> list[Path]:
    """Files named "<authors> - <year> - <title>" of the work's year and title (or its start)."""
    if not work.title or work.year is None:
        return []
    try:
        stamp = folder.stat().st_mtime
    except OSError:
        return []
    title = fold(work.title).replace(" ", "")
    files = _library_files(folder, stamp).get(work.year, [])
    # a name of 60 characters or more may have been cut (Zotero cuts titles at 100)
    return [p for t, p in files if t == title or (len(t) >= 60 and title.startswith(t))]


def find_fulltext(folder: Path, work: Work) -> tuple[str, str] | None:
    """(text, file name) of the first non-blank full text of ``work`` in ``folder``, or None.

    By the work's id, then its DOI, each with every extension; then a file a reference manager
    named "<authors> - <year> - <title>" (:data:`_LIBRARY_NAME`) whose year is the work's and
    whose title is the work's (or its start, for a cut name). An unreadable file is logged and
    skipped.
    """
    paths = [folder / f"{name}{ext}" for name in fulltext_names(work) for ext in _EXTENSIONS]
    for p in [*paths, *_library_match(folder, work)]:
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
