"""A ``.bib`` file's entries as reference-list entries (their BibTeX text as found)."""

from __future__ import annotations

import re
from pathlib import Path

from citejudge.documents._build import DocumentError, Entry, assemble, read_text_file
from citejudge.documents._model import Document

__all__ = ["bib_file_entries", "read_bib_document"]

_BLOCK_START = re.compile(r"(?m)^[ \t]*@[A-Za-z]+\s*[{(]")


def bib_file_entries(bib: Path) -> list[Entry]:
    """Every entry of a ``.bib`` file, its text as found (``@type{key, …}``) and what it states."""
    from citejudge.readers.bibtex import parse_bibtex_entry

    text = read_text_file(bib)
    starts = [m.start() for m in _BLOCK_START.finditer(text)]
    out: list[Entry] = []
    for k, s in enumerate(starts):
        block = text[s : starts[k + 1] if k + 1 < len(starts) else len(text)].strip()
        head = re.match(r"\s*@([A-Za-z]+)\s*[{(]\s*([^,\s]*)", block)
        if head is None or head.group(1).lower() in ("comment", "string", "preamble"):
            continue
        cw = parse_bibtex_entry(block)
        out.append(
            Entry(
                block,
                None,
                head.group(2),
                None,
                text.count("\n", 0, s) + 1,
                authors=list(cw.authors),
                year=cw.year,
                title=cw.title,
            )
        )
    return out


def read_bib_document(path: Path) -> Document:
    """A ``.bib`` file alone: a reference list with no text citing it.

    Every entry is checked; none is "uncited" (there is no text to cite it).
    """
    entries = bib_file_entries(path)
    if not entries:
        raise DocumentError(
            f"{path}: no BibTeX entry found", hint="entries start with @type{key, …}"
        )
    return assemble(str(path), "bibtex", entries, [])
