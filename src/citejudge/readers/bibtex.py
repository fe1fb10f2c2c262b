"""BibTeX: entries -> :class:`~citejudge.readers.EntryFields` -> world records or citations.

Text is parsed with bibtexparser 2 (default parse stack: string references resolved, enclosing
braces removed); LaTeX is decoded with :func:`citejudge.text.normalize.delatex`, which is much
faster than bibtexparser's LaTeX middleware. Names are kept as written ("Last, First" stays so;
the matcher handles name forms) except that DBLP homonym suffixes ("Jiawei He 0002") are removed
(the original stays in ``raw_name``). A block bibtexparser rejects (unbalanced braces, a
truncated field) is read field by field instead (:func:`salvage_bibtex`), so a broken field
costs that field, not the entry.

* :func:`parse_bibtex_entry` reads one entry a citation gives (``references`` items); never raises.
* :func:`read_bibtex_string` reads a library (a world): Works in file order and a
  :class:`~citejudge.records.ReadIssue` for each block that failed or key that repeats (both
  copies of a repeated citekey are kept, the second as ``bib:<key>~2``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass

from bibtexparser import parse_string as _parse_bibtex  # type: ignore[attr-defined]
from bibtexparser.model import DuplicateBlockKeyBlock, Entry, ParsingFailedBlock

from citejudge import ids
from citejudge.readers._entry import EntryFields, to_cited, to_work
from citejudge.readers._text import _PREPRINT_RE, _clean, _tidy, field_text, year_in
from citejudge.records import Author, CitedWork, ReadIssue, Work
from citejudge.text.normalize import delatex, strip_markup

__all__ = [
    "BibEntry",
    "BibFailure",
    "bibtex_entry_to_work",
    "bibtex_fields",
    "bibtex_names",
    "parse_bibtex_blocks",
    "parse_bibtex_entry",
    "read_bibtex_string",
    "salvage_bibtex",
    "split_bibtex_names",
    "strip_dblp_suffix",
]

logger = logging.getLogger(__name__)

_MAX_BIBTEX_CHARS = 100_000
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
_DBLP_SUFFIX = re.compile(r"\s+\d{4}\s*$")
_ET_AL_NAMES = frozenset({"others", "et al", "et al.", "and others"})
_HEAD = re.compile(r"@\s*([A-Za-z]+)\s*[{(]\s*([^,\s]*)\s*,?")
_FIELD_START = re.compile(r"(?:^|[,{\s])([A-Za-z][\w\-]*)\s*=\s*")
#: fields naming where a work appeared, most specific first (``publisher`` is kept apart)
_VENUE_FIELDS = (
    "journal",
    "journaltitle",
    "booktitle",
    "series",
    "howpublished",
    "institution",
    "school",
)


@dataclass(frozen=True)
class BibEntry:
    """One entry: type and key as written, fields with lower-cased names (the first of repeated names wins)."""

    entry_type: str
    key: str
    fields: dict[str, str]
    line: int  # 0-based line where the block starts


@dataclass(frozen=True)
class BibFailure:
    """A block bibtexparser could not parse, and what :func:`salvage_bibtex` recovered from it."""

    line: int  # 0-based line where the block starts
    detail: str
    salvaged: BibEntry | None


# --- names ------------------------------------------------------------------------------------


def strip_dblp_suffix(name: str) -> str:
    """Remove DBLP's homonym number from a name: ``"Jiawei He 0002"`` -> ``"Jiawei He"``."""
    return _DBLP_SUFFIX.sub("", name).strip()


def split_bibtex_names(value: str) -> list[str]:
    """Split a BibTeX name list on top-level ``and`` (not inside braces), keeping each name as written."""
    if "{" not in value:
        return [n.strip() for n in _AND.split(value.strip()) if n.strip()]
    out: list[str] = []
    depth = 0
    start = 0
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif depth == 0 and ch.isspace():
            m = _AND.match(value, i)
            if m:
                out.append(value[start:i])
                i = m.end()
                start = i
                continue
        i += 1
    out.append(value[start:])
    return [n.strip() for n in out if n.strip()]


def bibtex_names(value: str | None) -> tuple[list[Author], bool]:
    """(names, et_al) of a BibTeX name list: LaTeX decoded, DBLP numbers removed, ``others`` -> et_al."""
    if not value:
        return [], False
    names: list[Author] = []
    et_al = False
    for raw in split_bibtex_names(value):
        name = _clean(strip_markup(delatex(raw))).strip(" ,")
        if not name:
            continue
        if name.lower() in _ET_AL_NAMES:
            et_al = True
            continue
        clean = strip_dblp_suffix(name)
        names.append(Author(name=clean, raw_name=name if clean != name else None))
    return names, et_al


# --- fields -----------------------------------------------------------------------------------


def bibtex_fields(entry_type: str | None, fields: dict[str, str]) -> EntryFields:
    """Decode one entry's fields (names lower-cased, values as written) into :class:`EntryFields`."""

    def get(*keys: str) -> str | None:
        for k in keys:
            v = fields.get(k)
            if v and v.strip():
                return v.strip()
        return None

    e = EntryFields(entry_type=entry_type.lower() if entry_type else None)
    e.title = field_text(get("title"))
    e.authors, e.et_al = bibtex_names(get("author"))
    e.editors, _ = bibtex_names(get("editor"))
    for key in _VENUE_FIELDS:
        t = field_text(get(key))
        if t and not t.lower().startswith(("http://", "https://", "\\url")) and t not in e.venues:
            e.venues.append(t)
    org = field_text(get("organization"))
    e.venue_aliases = [org] if org else []
    year = get("year", "date")
    if year:
        e.year_raw = _clean(delatex(year))
        e.year = year_in(e.year_raw)
    else:
        e.warnings.append("no year field")
    doi = get("doi")
    if doi:
        d = ids.norm_doi(doi)
        if d:
            e.dois.append(d)
        else:
            e.bad_ids.append(("doi", doi[:200]))
    url = get("url")
    if url:
        e.dois.extend(d for d in ids.extract_dois(url) if d not in e.dois)
        e.urls = ids.extract_urls(url) or [url]
    e.pmid = ids.norm_pmid(get("pmid"))
    e.pmcid = ids.norm_pmcid(get("pmcid"))
    eprint = get("eprint", "arxivid", "arxiv")
    prefix = (get("archiveprefix", "eprinttype") or "").lower()
    if eprint and (prefix in ("", "arxiv") or "arxiv" in prefix):
        e.arxiv = ids.norm_arxiv(eprint)
    for d in e.dois:
        e.arxiv = e.arxiv or ids.arxiv_from_doi(d)
    for key in ("journal", "note", "howpublished", "url", "volume", "eprint", "biburl"):
        text = fields.get(key)
        if e.arxiv is None and text:
            e.arxiv = ids.extract_arxiv(text)
    e.volume = _tidy(get("volume"))
    pages = get("pages")
    e.pages = re.sub(r"\s*-+\s*", "–", pages) if pages else None
    e.publisher = _tidy(field_text(get("publisher")))
    # A preprint: the venue says so ("arXiv preprint arXiv:..."), or there is no venue and the
    # entry points at a preprint server (eprint field, note, publisher).
    others = " ".join(
        x
        for x in (prefix, get("publisher") or "", get("note") or "", get("howpublished") or "")
        if x
    )
    if e.venues:
        e.is_preprint = bool(_PREPRINT_RE.search(e.venues[0]))
    else:
        e.is_preprint = e.arxiv is not None or bool(_PREPRINT_RE.search(others))
    e.abstract = field_text(get("abstract"))
    return e


# --- blocks -----------------------------------------------------------------------------------


def salvage_bibtex(text: str, line: int = 0) -> BibEntry | None:
    """Field-by-field reading of a block bibtexparser rejects (unbalanced braces, truncated field).

    Each ``name = value`` start ends the value before it, so both one-line and one-field-a-line
    entries are read; a value with an unclosed brace costs that value only. None if no
    ``@type{`` head and no field is found.
    """
    m = _HEAD.search(text)
    body = text[m.end() :] if m else text
    fields: dict[str, str] = {}
    starts = list(_FIELD_START.finditer(body))
    for k, fm in enumerate(starts):
        stop = starts[k + 1].start() if k + 1 < len(starts) else len(body)
        raw = body[fm.end() : stop].strip().rstrip(",").strip()
        raw = raw.rstrip("})").strip() if k + 1 == len(starts) else raw
        if raw.startswith(("{", '"')):
            raw = raw[1:]
            raw = re.sub(r"[}\"]\s*,?\s*$", "", raw)
        fields.setdefault(fm.group(1).lower(), raw.strip())
    if m is None and not fields:
        return None
    return BibEntry(m.group(1) if m else "", m.group(2) if m else "", fields, line)


def _strip_enclosing(value: str) -> str:
    v = value.strip()
    if len(v) >= 2 and ((v[0] == "{" and v[-1] == "}") or (v[0] == '"' and v[-1] == '"')):
        return v[1:-1]
    return v


def _entry(e: Entry, strip: bool = False) -> BibEntry:
    fields: dict[str, str] = {}
    for f in e.fields:
        value = str(f.value)
        fields.setdefault(f.key.lower(), _strip_enclosing(value) if strip else value)
    return BibEntry(e.entry_type, e.key, fields, e.start_line or 0)


def _error_detail(err: object) -> str:
    if err is None:
        return "unparseable block"
    reason = getattr(err, "abort_reason", None) or str(err)
    lines = [ln.strip() for ln in str(reason).splitlines() if ln.strip()]
    return lines[-1] if lines else type(err).__name__


def parse_bibtex_blocks(text: str) -> list[BibEntry | BibFailure]:
    """Every entry of ``text`` and every block that failed, in file order.

    A repeated citekey is an entry like the others (bibtexparser reports it as a failure).
    """
    lib = _parse_bibtex(text)
    out: list[BibEntry | BibFailure] = [_entry(e) for e in lib.entries]
    for b in lib.failed_blocks:
        start = b.start_line or 0
        if isinstance(b, DuplicateBlockKeyBlock):
            if isinstance(b.ignore_error_block, Entry):
                # the default parse stack has not removed this copy's enclosing braces
                out.append(_entry(b.ignore_error_block, strip=True))
            continue
        salvaged = salvage_bibtex(b.raw or "", start) if isinstance(b, ParsingFailedBlock) else None
        out.append(BibFailure(start, _error_detail(getattr(b, "error", None)), salvaged))
    out.sort(key=lambda x: x.line)
    return out


# --- a citation -------------------------------------------------------------------------------


def parse_bibtex_entry(text: str) -> CitedWork:
    """Parse one BibTeX entry (the first one in ``text``) into the citation it states; never raises."""
    raw = text if isinstance(text, str) else repr(text)[:200]
    if not isinstance(text, str) or not text.strip():
        work = CitedWork(raw=raw, form="bibtex")
        work.warnings.append("empty BibTeX entry")
        return work
    warnings: list[str] = []
    src = text[:_MAX_BIBTEX_CHARS]
    if len(text) > _MAX_BIBTEX_CHARS:
        warnings.append(f"BibTeX text longer than {_MAX_BIBTEX_CHARS} characters; truncated")
    entry: BibEntry | None = None
    try:
        blocks = parse_bibtex_blocks(src)
        entries = [b for b in blocks if isinstance(b, BibEntry)]
        if entries:
            entry = entries[0]
            if len(entries) > 1:
                warnings.append(f"{len(entries)} BibTeX entries given; the first was used")
        elif blocks:
            warnings.append(
                "BibTeX entry could not be parsed (unbalanced braces?); fields read best-effort"
            )
    except Exception as exc:
        logger.debug("bibtexparser failed", exc_info=True)
        warnings.append(f"BibTeX parser error ({type(exc).__name__}); fields read best-effort")
    if entry is None or not entry.fields:
        try:
            entry = salvage_bibtex(src)
        except Exception:  # pragma: no cover - defensive
            entry = None
    try:
        fields = bibtex_fields(entry.entry_type if entry else None, entry.fields if entry else {})
    except Exception as exc:  # pragma: no cover - defensive
        logger.debug("bibtex field mapping failed", exc_info=True)
        work = CitedWork(
            raw=raw,
            form="bibtex",
            warnings=[*warnings, f"BibTeX field error: {type(exc).__name__}"],
        )
        return work
    fields.warnings[:0] = warnings
    return to_cited(fields, raw, "bibtex")


# --- a library (world) ------------------------------------------------------------------------


def bibtex_entry_to_work(
    key: str, entry_type: str, fields: dict[str, str], source: str | None = None
) -> Work:
    """Turn one BibTeX entry (citekey, type, field dict) into a Work with id ``bib:<key>``."""
    lower: dict[str, str] = {}
    for k, v in fields.items():
        lower.setdefault(k.lower(), v)
    return to_work(bibtex_fields(entry_type, lower), f"bib:{key}", source)


def read_bibtex_string(text: str, source: str) -> Iterator[Work | ReadIssue]:
    """Parse BibTeX text; yield Works in file order and ReadIssues for failed or duplicate blocks.

    A failed block is recovered field by field when it still has a key and a title; the issue
    says whether it was.
    """
    seen: dict[str, int] = {}
    for block in parse_bibtex_blocks(text):
        entry: BibEntry | None
        if isinstance(block, BibFailure):
            line = block.line + 1
            entry = block.salvaged
            if entry is not None and entry.key and "title" in entry.fields:
                msg = (
                    f"BibTeX block starting at line {line} is malformed ({block.detail}); "
                    f"entry '{entry.key}' recovered line by line"
                )
            else:
                entry = None
                msg = f"BibTeX block starting at line {line} could not be parsed ({block.detail}); skipped"
            yield ReadIssue(file=source, line=line, message=msg)
            if entry is None:
                continue
        else:
            entry = block
        n = seen.get(entry.key, 0) + 1
        seen[entry.key] = n
        wkey = entry.key if n == 1 else f"{entry.key}~{n}"
        if n > 1:
            yield ReadIssue(
                file=source,
                line=entry.line + 1,
                kind="warning",
                message=f"duplicate citekey '{entry.key}': kept as bib:{wkey}",
            )
        yield to_work(bibtex_fields(entry.entry_type, entry.fields), f"bib:{wkey}", source)
