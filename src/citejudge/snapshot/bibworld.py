"""User libraries as worlds: BibTeX (``.bib``) and CSL-JSON (``.json`` list or ``.jsonl``) -> Work.

BibTeX is parsed with bibtexparser 2 (default parse stack: string references resolved, enclosing
braces removed); LaTeX is decoded with :func:`citejudge.match.normalize.delatex`, which is much
faster than bibtexparser's LaTeX middleware. Names are kept as written ("Last, First" stays so;
the matcher handles name forms) except that DBLP homonym suffixes ("Jiawei He 0002") are removed
from ``name`` (the original stays in ``raw_name``).

Failures do not stop reading:

* a block bibtexparser cannot parse (unbalanced braces, stray text) becomes a
  :class:`ReadIssue` naming the file and the block's first line; the block is then salvaged
  line by line (``field = {value},`` lines) when it still has a key and a title, so a truncated
  field costs that field, not the entry. The issue says whether the entry was recovered.
* duplicate citekeys: **both are kept**; the second gets the id ``bib:<key>~2`` (third ``~3`` ...)
  and a warning :class:`ReadIssue` is emitted.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
from bibtexparser import parse_string as _parse_bibtex  # type: ignore[attr-defined]
from bibtexparser.model import DuplicateBlockKeyBlock, Entry, ParsingFailedBlock

from citejudge.ids import (
    arxiv_from_doi,
    extract_arxiv,
    extract_dois,
    norm_arxiv,
    norm_doi,
    norm_pmcid,
    norm_pmid,
)
from citejudge.match.normalize import delatex, strip_markup
from citejudge.records import Author, ReadIssue, Work

__all__ = [
    "bibtex_entry_to_work",
    "csl_item_to_work",
    "read_bibtex",
    "read_bibtex_string",
    "read_csl",
    "split_bibtex_names",
]

log = logging.getLogger(__name__)

_WS = re.compile(r"\s+")
_DBLP_SUFFIX = re.compile(r"\s+\d{4}$")
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
_YEAR = re.compile(r"(1[5-9]\d\d|20\d\d|21\d\d)")
_FIELD_LINE = re.compile(r"^\s*([A-Za-z][\w\-]*)\s*=\s*(.*?)\s*,?\s*$")
_HEAD = re.compile(r"@\s*([A-Za-z]+)\s*[{(]\s*([^,\s]+)\s*,")


def _text(value: str | None) -> str | None:
    if not value:
        return None
    s = (
        strip_markup(delatex(value))
        if ("\\" in value or "{" in value or "$" in value or "<" in value)
        else value
    )
    s = _WS.sub(" ", s).strip()
    return s or None


def split_bibtex_names(value: str) -> list[str]:
    """Split a BibTeX name list on top-level ``and`` (not inside braces), keeping each name as written."""
    if "{" not in value:
        return [n.strip() for n in _AND.split(value.strip()) if n.strip()]
    out: list[str] = []
    depth = 0
    start = 0
    i = 0
    low = value.lower()
    while i < len(value):
        ch = value[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif depth == 0 and ch.isspace():
            m = _AND.match(low, i)
            if m:
                out.append(value[start:i])
                i = m.end()
                start = i
                continue
        i += 1
    out.append(value[start:])
    return [n.strip() for n in out if n.strip()]


def _authors(value: str | None) -> list[Author]:
    if not value:
        return []
    authors: list[Author] = []
    for raw in split_bibtex_names(value):
        name = _text(raw)
        if not name:
            continue
        if name.lower() == "others":
            # The library itself truncates the list: keep the marker so the matcher knows that
            # positions past it cannot be checked (a trailing "others" is never a person).
            authors.append(Author(name="others"))
            break
        clean = _DBLP_SUFFIX.sub("", name)
        authors.append(Author(name=clean, raw_name=name if clean != name else None))
    return authors


def _year(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, int):
        return value
    m = _YEAR.search(str(value))
    return int(m.group(1)) if m else None


def bibtex_entry_to_work(
    key: str, entry_type: str, fields: dict[str, str], source: str | None = None
) -> Work:
    """Turn one BibTeX entry (citekey, type, lower-cased field dict) into a Work with id ``bib:<key>``."""
    f = {k.lower(): v for k, v in fields.items()}
    title = _text(f.get("title"))
    journal = f.get("journal") or f.get("journaltitle")
    venue: str | None = None
    venue_alt: list[str] = []
    for cand in (
        journal,
        f.get("booktitle"),
        f.get("series"),
        f.get("publisher"),
        f.get("howpublished"),
        f.get("institution"),
        f.get("school"),
        f.get("organization"),
    ):
        t = _text(cand)
        if not t or t.lower().startswith(("http://", "https://", "\\url")):
            continue
        if venue is None:
            venue = t
        elif t not in venue_alt and t != venue:
            venue_alt.append(t)
    doi = norm_doi(f.get("doi"))
    url = (f.get("url") or "").strip() or None
    urls = [url] if url else []
    if doi is None and url:
        found = extract_dois(url)
        doi = found[0] if found else None
    arxiv = arxiv_from_doi(doi)
    eprint = f.get("eprint") or f.get("arxivid") or f.get("arxiv")
    prefix = (f.get("archiveprefix") or f.get("eprinttype") or "").lower()
    if arxiv is None and eprint and (prefix in ("arxiv", "")):
        arxiv = norm_arxiv(eprint)
    for text in (journal, f.get("note"), f.get("howpublished"), url, f.get("volume")):
        if arxiv is None and text:
            arxiv = extract_arxiv(text)
    if venue and arxiv and venue.lower().startswith("arxiv"):
        venue = "arXiv"  # "arXiv preprint arXiv:2101.00001" -> the venue is arXiv
    pmid = norm_pmid(f.get("pmid"))
    pmcid = norm_pmcid(f.get("pmcid"))
    return Work(
        id=f"bib:{key}",
        title=title,
        authors=_authors(f.get("author")) or _authors(f.get("editor")),
        year=_year(f.get("year") or f.get("date")),
        venue=venue,
        venue_alt=venue_alt,
        type=entry_type.lower() or None,
        doi=doi,
        pmid=pmid,
        pmcid=pmcid,
        arxiv=arxiv,
        urls=urls,
        abstract=_text(f.get("abstract")),
        source=source,
    )


def _salvage(raw: str) -> tuple[str, str, dict[str, str]] | None:
    """Line-wise recovery of a block bibtexparser rejected: (type, key, fields) or None."""
    head = _HEAD.search(raw)
    if not head:
        return None
    fields: dict[str, str] = {}
    for line in raw[head.end() :].splitlines():
        m = _FIELD_LINE.match(line)
        if not m:
            continue
        value = m.group(2).strip()
        if value.endswith("}") and value.count("{") < value.count("}"):
            value = value[:-1].rstrip()  # the entry's closing brace on the last field line
        if value[:1] in '{"':
            value = value[1:]
        if value[-1:] in '}"':
            value = value[:-1]
        fields.setdefault(m.group(1).lower(), value)
    if "title" not in fields:
        return None
    return head.group(1), head.group(2), fields


def read_bibtex_string(text: str, source: str) -> Iterator[Work | ReadIssue]:
    """Parse BibTeX text; yield Works in file order and ReadIssues for failed or duplicate blocks."""
    lib = _parse_bibtex(text)
    seen: dict[str, int] = {}
    items: list[tuple[int, Work | ReadIssue | tuple[str, str, dict[str, str]]]] = []
    for e in lib.entries:
        items.append(
            (
                e.start_line or 0,
                (e.entry_type, e.key, {k: str(v.value) for k, v in e.fields_dict.items()}),
            )
        )
    for b in lib.failed_blocks:
        start0 = b.start_line or 0
        line = start0 + 1
        if isinstance(b, DuplicateBlockKeyBlock):
            dup = b.ignore_error_block
            if isinstance(dup, Entry):
                fields = {k: _strip_enclosing(str(v.value)) for k, v in dup.fields_dict.items()}
                items.append((start0, (dup.entry_type, dup.key, fields)))
            continue
        err = getattr(b, "error", None)
        detail = _error_detail(err)
        salvaged = _salvage(b.raw or "") if isinstance(b, ParsingFailedBlock) else None
        if salvaged is not None:
            msg = f"BibTeX block starting at line {line} is malformed ({detail}); entry '{salvaged[1]}' recovered line by line"
        else:
            msg = f"BibTeX block starting at line {line} could not be parsed ({detail}); skipped"
        items.append((start0, ReadIssue(file=source, line=line, message=msg)))
        if salvaged is not None:
            items.append((start0, salvaged))
    items.sort(key=lambda it: it[0])
    for start, item in items:
        if isinstance(item, ReadIssue | Work):
            yield item
            continue
        etype, key, fields = item
        n = seen.get(key, 0) + 1
        seen[key] = n
        wkey = key if n == 1 else f"{key}~{n}"
        if n > 1:
            yield ReadIssue(
                file=source,
                line=start + 1,
                kind="warning",
                message=f"duplicate citekey '{key}': kept as bib:{wkey}",
            )
        yield bibtex_entry_to_work(wkey, etype, fields, source)


def _error_detail(err: object) -> str:
    if err is None:
        return "unparseable block"
    reason = getattr(err, "abort_reason", None) or str(err)
    lines = [ln.strip() for ln in str(reason).splitlines() if ln.strip()]
    return lines[-1] if lines else type(err).__name__


def _strip_enclosing(value: str) -> str:
    v = value.strip()
    if len(v) >= 2 and ((v[0] == "{" and v[-1] == "}") or (v[0] == '"' and v[-1] == '"')):
        return v[1:-1]
    return v


def read_bibtex(path: Path) -> Iterator[Work | ReadIssue]:
    """Read a ``.bib`` file: Works in file order, ReadIssues for blocks that failed."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        yield ReadIssue(file=str(path), message=f"cannot read: {exc}")
        return
    yield from read_bibtex_string(text, str(path))


# --- CSL-JSON ---------------------------------------------------------------------------------


def _csl_str(value: Any) -> str | None:
    if isinstance(value, list):
        value = value[0] if value else None
    if value is None:
        return None
    return _text(str(value))


def _csl_name(a: Any) -> str | None:
    if isinstance(a, str):
        return _text(a)
    if not isinstance(a, dict):
        return None
    if a.get("literal"):
        return _text(str(a["literal"]))
    parts = [
        a.get("given"),
        a.get("dropping-particle"),
        a.get("non-dropping-particle"),
        a.get("family"),
        a.get("suffix"),
    ]
    return _text(" ".join(str(p) for p in parts if p))


def _csl_year(item: dict[str, Any]) -> int | None:
    for k in ("issued", "published-print", "published-online", "created"):
        d = item.get(k)
        if isinstance(d, dict):
            parts = d.get("date-parts")
            if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
                y = _year(parts[0][0])
                if y:
                    return y
            y = _year(d.get("raw") or d.get("literal"))
            if y:
                return y
        elif d is not None:
            y = _year(d)
            if y:
                return y
    return _year(item.get("year"))


def csl_item_to_work(item: dict[str, Any], source: str | None = None) -> Work:
    """Turn one CSL-JSON item into a Work with id ``csl:<id>``; raises ValueError without an id."""
    cid = item.get("id")
    if cid is None or str(cid).strip() == "":
        raise ValueError("CSL item without an id")
    venue = _csl_str(item.get("container-title"))
    venue_alt: list[str] = []
    for k in (
        "container-title-short",
        "journalAbbreviation",
        "collection-title",
        "event-title",
        "event",
        "publisher",
    ):
        t = _csl_str(item.get(k))
        if t and t != venue and t not in venue_alt:
            if venue is None:
                venue = t
            else:
                venue_alt.append(t)
    doi = norm_doi(_csl_str(item.get("DOI") or item.get("doi")))
    url = _csl_str(item.get("URL") or item.get("url"))
    arxiv = arxiv_from_doi(doi) or (extract_arxiv(url) if url else None)
    number = _csl_str(item.get("number"))
    if arxiv is None and number and venue and "arxiv" in venue.lower():
        arxiv = norm_arxiv(number)
    authors = [Author(name=n) for n in (_csl_name(a) for a in item.get("author") or []) if n]
    return Work(
        id=f"csl:{cid}",
        title=_csl_str(item.get("title")),
        authors=authors,
        year=_csl_year(item),
        venue=venue,
        venue_alt=venue_alt,
        type=_csl_str(item.get("type")),
        doi=doi,
        pmid=norm_pmid(_csl_str(item.get("PMID"))),
        pmcid=norm_pmcid(_csl_str(item.get("PMCID"))),
        arxiv=arxiv,
        urls=[url] if url else [],
        abstract=_csl_str(item.get("abstract")),
        language=_csl_str(item.get("language")),
        source=source,
    )


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
