"""Reading task items (JSONL, JSON, CSV, BibTeX) and writing result lines.

Every input problem becomes an :class:`ItemError` naming the file, the line and, where
known, the field; reading goes on with the next item.
"""

from __future__ import annotations

import csv
import io as _io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from citejudge.errors import InputError

__all__ = ["Item", "ItemError", "OutputLine", "dumps_line", "read_items"]


@dataclass
class Item:
    """One input item: its id, the parsed object, and where it came from."""

    id: str
    data: dict[str, Any]
    file: str
    line: int


@dataclass
class ItemError:
    """An input line that could not become an item."""

    id: str
    file: str
    line: int
    message: str
    field: str | None = None
    kind: str = "input"

    def as_error(self) -> dict[str, Any]:
        """The ``error`` object of an output line."""
        err: dict[str, Any] = {
            "kind": self.kind,
            "message": self.message,
            "file": self.file,
            "line": self.line,
        }
        if self.field:
            err["field"] = self.field
        return err


@dataclass
class OutputLine:
    """One line of a results file, as the IO contract in DESIGN.md fixes it."""

    id: str
    task: str
    result: dict[str, Any] | None
    details: dict[str, Any] = field(default_factory=dict)
    error: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain dict in the contract's key order."""
        return {
            "id": self.id,
            "task": self.task,
            "result": self.result,
            "details": self.details,
            "error": self.error,
        }


def input_error(
    item: Item, task: str, message: str, field: str | None, details: dict[str, Any] | None = None
) -> OutputLine:
    """The line of an item whose input is wrong: no result, and an error naming file, line, field."""
    error = {
        "kind": "input",
        "message": message,
        "field": field,
        "file": item.file,
        "line": item.line,
    }
    return OutputLine(item.id, task, None, {} if details is None else details, error)


def dumps_line(obj: dict[str, Any]) -> bytes:
    """Canonical JSON line (UTF-8, newline-terminated); deterministic for equal inputs."""
    return orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE)


def _item_id(obj: dict[str, Any], line: int) -> str:
    raw = obj.get("id")
    if raw is None or raw == "" or isinstance(raw, (dict, list, bool)):
        return f"line-{line}"
    return str(raw)


def _read_jsonl(path: Path, text: str) -> Iterator[Item | ItemError]:
    for n, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            yield ItemError(f"line-{n}", str(path), n, f"not valid JSON: {exc}")
            continue
        if not isinstance(obj, dict):
            yield ItemError(
                f"line-{n}", str(path), n, f"expected a JSON object, got {type(obj).__name__}"
            )
            continue
        yield Item(_item_id(obj, n), obj, str(path), n)


def _read_json(path: Path, text: str) -> Iterator[Item | ItemError]:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        yield ItemError("line-1", str(path), exc.lineno, f"not valid JSON: {exc.msg}")
        return
    items = obj.get("items", obj) if isinstance(obj, dict) else obj
    if isinstance(items, dict):
        items = [items]
    if not isinstance(items, list):
        yield ItemError("line-1", str(path), 1, 'expected a JSON list of items or {"items": [...]}')
        return
    for n, it in enumerate(items, start=1):
        if isinstance(it, dict):
            yield Item(_item_id(it, n), it, str(path), n)
        else:
            yield ItemError(f"line-{n}", str(path), n, f"item {n} is not a JSON object")


_JSON_COLUMNS = {"metadata", "retrieved_chunks", "citations", "authors"}


def _read_csv(path: Path, text: str) -> Iterator[Item | ItemError]:
    reader = csv.DictReader(_io.StringIO(text))
    for row in reader:
        n = reader.line_num
        obj: dict[str, Any] = {}
        meta: dict[str, Any] = {}
        for k, v in row.items():
            if k is None:
                yield ItemError(f"line-{n}", str(path), n, "row has more cells than the header")
                break
            if v is None or v == "":
                continue
            key = k.strip()
            if key in _JSON_COLUMNS and v.lstrip()[:1] in "[{":
                try:
                    obj[key] = json.loads(v)
                except json.JSONDecodeError:
                    obj[key] = v
            elif key.startswith("metadata."):
                meta[key.split(".", 1)[1]] = v
            else:
                obj[key] = v
        else:
            if meta:
                obj.setdefault("metadata", {}).update(meta)
            yield Item(_item_id(obj, n), obj, str(path), n)


_BIB_START = re.compile(r"^\s*@\s*([A-Za-z]+)\s*[{(]\s*([^,\s]*)", re.M)


def _read_bib(path: Path, text: str) -> Iterator[Item | ItemError]:
    """Each BibTeX entry becomes a ``references`` item whose ``full_citation`` is the entry text."""
    from citejudge.text.bibtex_library import bibtex_strings, resolve_bibtex_blocks

    heads = list(_BIB_START.finditer(text))
    ends = [h.start() for h in heads[1:]] + [len(text)]
    kept = [
        (m, end)
        for m, end in zip(heads, ends, strict=True)
        if m.group(1).lower() not in {"comment", "preamble", "string"}
    ]
    starts = [m for m, _ in kept]
    chunks = [text[m.start() : end].strip() for m, end in kept]
    # each entry stands alone: @string abbreviations expanded, crossref fields inherited
    chunks = resolve_bibtex_blocks(chunks, bibtex_strings(text))
    for m, chunk in zip(starts, chunks, strict=True):
        line = text.count("\n", 0, m.start()) + 1
        key = m.group(2) or f"line-{line}"
        yield Item(key, {"id": key, "full_citation": chunk}, str(path), line)


_RIS_LINE = re.compile(r"^([A-Z][A-Z0-9])  -(?: (.*))?$")
#: RIS tags of the container, most specific first: EndNote's full journal, then the secondary
#: title (Zotero's journal, proceedings or book), the journal abbreviations, the book title
_RIS_VENUE_TAGS = ("JF", "T2", "JO", "J2", "JA", "BT")


def _ris_metadata(tags: dict[str, list[str]]) -> dict[str, Any]:
    """The ``metadata`` of one RIS record."""

    def first(*names: str) -> str | None:
        for n in names:
            for v in tags.get(n, ()):
                if v.strip():
                    return v.strip()
        return None

    meta: dict[str, Any] = {}
    title = first("TI", "T1", "CT")
    if title:
        meta["title"] = title
    authors = [a.strip() for tag in ("AU", "A1") for a in tags.get(tag, ()) if a.strip()]
    if authors:
        meta["authors"] = authors
    date = first("PY", "Y1", "DA")
    year = re.match(r"\s*(\d{4})", date or "")
    if year:
        meta["year"] = int(year.group(1))
    venue = first(*_RIS_VENUE_TAGS)
    if venue and venue != title:
        meta["venue"] = venue
    doi = first("DO")
    if doi:
        meta["doi"] = doi
    url = first("UR", "L2")
    if url:
        meta["url"] = url
    return meta


def _read_ris(path: Path, text: str) -> Iterator[Item | ItemError]:
    """Each RIS record (``TY  -`` … ``ER  -``) becomes a ``references`` item.

    The format of EndNote, Zotero, Mendeley and Web of Science exports; the item states the
    ``metadata`` of the record, and its ``ID`` tag, if any, is the item id.
    """
    tags: dict[str, list[str]] = {}
    start = 0
    last: str | None = None

    def record() -> Item | ItemError:
        meta = _ris_metadata(tags)
        rid = (tags.get("ID") or [""])[0].strip() or f"line-{start}"
        if not meta:
            return ItemError(
                rid, str(path), start, "RIS record states no title, author, year, venue, DOI or URL"
            )
        return Item(rid, {"id": rid, "metadata": meta}, str(path), start)

    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        m = _RIS_LINE.match(line)
        if m is None:
            if line.strip() and last is not None and tags.get(last):
                tags[last][-1] += " " + line.strip()  # a value wrapped onto the next line
            continue
        tag, value = m.group(1), (m.group(2) or "")
        if tag == "TY":
            if tags:
                yield record()  # a record without its ER line
            tags, start = {"TY": [value]}, n
        elif tag == "ER":
            if tags:
                yield record()
            tags, last = {}, None
            continue
        elif tags:
            tags.setdefault(tag, []).append(value)
        last = tag
    if tags:
        yield record()


def read_items(path: Path) -> Iterator[Item | ItemError]:
    """Items of an input file, by extension: ``.jsonl``, ``.json``, ``.csv``, ``.bib``, ``.ris``."""
    if not path.exists():
        raise InputError(f"input file {path} does not exist", hint="check the path")
    if path.is_dir():
        raise InputError(
            f"input {path} is a directory", hint="give a .jsonl, .json, .csv, .bib or .ris file"
        )
    data = path.read_bytes()
    text = data.decode("utf-8", errors="replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    suffix = path.suffix.lower()
    if suffix == ".csv":
        yield from _read_csv(path, text)
    elif suffix == ".bib":
        yield from _read_bib(path, text)
    elif suffix == ".ris":
        yield from _read_ris(path, text)
    elif suffix == ".json":
        yield from _read_json(path, text)
    else:
        yield from _read_jsonl(path, text)
