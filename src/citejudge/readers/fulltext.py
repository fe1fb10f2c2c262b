"""Local full texts of works: ``<folder>/<work id>.txt|.md``, then ``<DOI, unsafe characters as _>.txt|.md``.

One lookup for every stage that wants a work's text (content grounding in ``references``, the
source store of ``citation-eval``).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from citejudge.records import Work

__all__ = ["find_fulltext", "fulltext_names"]

log = logging.getLogger(__name__)

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_EXTENSIONS = (".txt", ".md")


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
                text = p.read_text(encoding="utf-8", errors="replace")
            except OSError as exc:
                log.warning("cannot read full text %s: %s", p, exc)
                continue
            if text.strip():
                return text, p.name
    return None
