"""A ``.bib`` file's entries as reference-list entries (their BibTeX text as found)."""

from __future__ import annotations

import re
from pathlib import Path

from citejudge.documents._build import Entry, read_text_file

__all__ = ["bib_file_entries"]

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
