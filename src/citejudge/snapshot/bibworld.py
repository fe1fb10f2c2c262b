"""User libraries as worlds: BibTeX (``.bib``) and CSL-JSON (``.json`` list or ``.jsonl``) files -> Work.

The formats are read by :mod:`citejudge.readers.bibtex` and :mod:`citejudge.readers.csl` (the
same readers that read the entries citations give); this module reads the files. Failures do
not stop reading: a block or item that cannot be read becomes a :class:`ReadIssue` naming the
file and line, and reading goes on (see :func:`~citejudge.readers.bibtex.read_bibtex_string`
for malformed and duplicate BibTeX entries).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from citejudge.readers.bibtex import bibtex_entry_to_work, read_bibtex_string, split_bibtex_names
from citejudge.readers.csl import csl_item_to_work
from citejudge.records import ReadIssue, Work

__all__ = [
    "bibtex_entry_to_work",
    "csl_item_to_work",
    "read_bibtex",
    "read_bibtex_string",
    "read_csl",
    "split_bibtex_names",
]


def read_bibtex(path: Path) -> Iterator[Work | ReadIssue]:
    """Read a ``.bib`` file: Works in file order, ReadIssues for blocks that failed."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        yield ReadIssue(file=str(path), message=f"cannot read: {exc}")
        return
    yield from read_bibtex_string(text, str(path))


# --- CSL-JSON ---------------------------------------------------------------------------------


def _csl_items(obj: Any, source: str, line: int | None) -> Iterator[Work | ReadIssue]:
    items = obj.get("items") if isinstance(obj, dict) and "items" in obj else obj
    if isinstance(items, dict):
        items = [items]
    if not isinstance(items, list):
        yield ReadIssue(
            file=source, line=line, message="CSL-JSON must be a list of items or an item"
        )
        return
    for i, it in enumerate(items):
        if not isinstance(it, dict):
            yield ReadIssue(file=source, line=line, message=f"CSL item {i} is not an object")
            continue
        try:
            yield csl_item_to_work(it, source)
        except (ValueError, TypeError) as exc:
            where = "" if line is not None else f"item {i}: "
            yield ReadIssue(file=source, line=line, message=f"{where}{exc}")


def read_csl(path: Path) -> Iterator[Work | ReadIssue]:
    """Read CSL-JSON: a ``.json`` list of items (or ``{"items": [...]}``) or ``.jsonl`` one item a line."""
    src = str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        yield ReadIssue(file=src, message=f"cannot read: {exc}")
        return
    if path.suffix.lower() == ".jsonl":
        for n, line in enumerate(data.splitlines(), 1):
            if not line.strip():
                continue
            try:
                obj = msgspec.json.decode(line)
            except msgspec.DecodeError as exc:
                yield ReadIssue(file=src, line=n, message=f"not JSON: {exc}")
                continue
            yield from _csl_items(obj, src, n)
        return
    try:
        obj = msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        yield ReadIssue(file=src, message=f"not JSON: {exc}")
        return
    yield from _csl_items(obj, src, None)
