"""Offline source verification: resolve a cited source and look for the quoted content in its text.

A *source* is what a citation names: a DOI, a URL (doi.org, arXiv, PubMed, PMC, OpenAlex, or
any other page) or a free-text reference string. It is resolved offline only:

1. through the world index (:class:`citejudge.index.WorldIndex`): identifiers are read with
   :mod:`citejudge.ids`, free text with :func:`citejudge.readers.parse_citation_string`,
   and the record is found with :func:`citejudge.match.resolve.resolve`; when the source also
   names the work (title) and the identifier resolves to a record with another title, the
   identifier belongs to a *different work* than the one named (when no title can be read from a
   reference string: its authors and year both disagree with the record and the record's title
   does not occur in it, see :data:`TITLE_IN_REFERENCE`);
2. through the local **source store**, a folder of saved pages and texts (the ``--fulltext``
   folder of ``citejudge check``).

Source store layout (every part optional)::

    STORE/
      index.jsonl        one JSON object a line: {"url": "https://...", "file": "pages/a.html",
                         "title": "optional"}; "file" is relative to STORE
      <sha256>.txt|.md|.html
                         a page saved under the sha256 (hex) of its normalised URL
      <W-id>.txt|.md     full text of an index record, by OpenAlex id (or DOI with "/" → "_"),
                         the same convention the references task uses

URLs are normalised before lookup (:func:`normalize_url`): scheme and host lower-cased,
``http`` → ``https``, ``www.`` dropped, fragment and trailing ``/`` removed. ``.html``/``.htm``
files are reduced to text (tags and entities removed).

Quote search (:func:`find_quote`): both texts are folded (:func:`citejudge.match.normalize.fold`:
case, diacritics, markup and punctuation removed); an exact folded substring scores 100, else
the score is rapidfuzz ``partial_ratio`` of the quote against windows of the text; the quote
counts as found from :data:`QUOTE_FOUND` (90) up. A quote with ellipses (``...``/``…``) is
found when each of its pieces of 12+ characters is found.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from rapidfuzz import fuzz

from citejudge.ids import (
    extract_arxiv,
    extract_dois,
    extract_openalex,
    extract_pmcid,
    extract_pmid,
    extract_urls,
    norm_doi,
)
from citejudge.match.citation import CitedWork
from citejudge.match.fields import compare_title
from citejudge.match.resolve import WorldLookup, resolve, validate
from citejudge.readers import find_fulltext, parse_citation_string
from citejudge.records import Work
from citejudge.text.normalize import fold, strip_markup

__all__ = [
    "MAX_SOURCE_CHARS",
    "QUOTE_FOUND",
    "TITLE_IN_REFERENCE",
    "Elsewhere",
    "QuoteMatch",
    "SourceResolution",
    "SourceStore",
    "SourceText",
    "find_elsewhere",
    "find_quote",
    "normalize_url",
    "read_source",
    "resolve_source",
    "url_key",
]

log = logging.getLogger(__name__)

#: Folded-quote similarity (0-100) from which the quote counts as found in a text.
QUOTE_FOUND = 90.0
#: Only this many characters of a source string are parsed (longer strings are cut).
MAX_SOURCE_CHARS = 4000
#: Texts longer than this are searched in their first part only.
MAX_TEXT_CHARS = 400_000
_MIN_PIECE = 12
_ELLIPSIS = re.compile(r"\s*(?:\.\s?\.\s?\.|…|\[\s*(?:\.\.\.|…)\s*\])\s*")


def normalize_url(url: str) -> str:
    """Canonical form of a URL for store lookups (see the module docstring)."""
    s = url.strip()
    m = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*)://([^/?#]*)(.*)$", s)
    if not m:
        return s.split("#", 1)[0].rstrip("/")
    scheme, host, rest = m.group(1).lower(), m.group(2).lower(), m.group(3)
    if scheme == "http":
        scheme = "https"
    if host.startswith("www."):
        host = host[4:]
    rest = rest.split("#", 1)[0]
    if rest.endswith("/") and "?" not in rest:
        rest = rest.rstrip("/")
    return f"{scheme}://{host}{rest}"


def url_key(url: str) -> str:
    """The sha256 (hex) of the normalised URL: the file name of a page saved in the store."""
    return hashlib.sha256(normalize_url(url).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class SourceText:
    """A text to look for quoted content in, and where it came from."""

    text: str
    origin: str  # "abstract of W1" | "store:pages/a.html" | "fulltext:W1.txt"


def _read_text(path: Path) -> str | None:
    try:
        raw = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        log.warning("cannot read source store file %s: %s", path, exc)
        return None
    if path.suffix.lower() in {".html", ".htm", ".xml"}:
        raw = re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", raw)
        raw = strip_markup(raw)
    return raw if raw.strip() else None


@dataclass
class SourceStore:
    """A folder of saved pages and texts, keyed by URL (see the module docstring for the layout)."""

    root: Path
    urls: dict[str, str] = field(default_factory=dict)  # normalised URL → file relative to root
    issues: list[str] = field(default_factory=list)
    _texts: list[tuple[str, str]] | None = field(default=None, repr=False)

    @classmethod
    def open(cls, root: Path) -> SourceStore:
        """Open a store folder; a bad ``index.jsonl`` line is skipped and listed in ``issues``."""
        store = cls(Path(root))
        idx = store.root / "index.jsonl"
        if idx.is_file():
            for n, line in enumerate(
                idx.read_text(encoding="utf-8", errors="replace").splitlines(), start=1
            ):
                if not line.strip():
                    continue
                try:
                    row = orjson.loads(line)
                except orjson.JSONDecodeError:
                    store.issues.append(f"index.jsonl line {n}: not valid JSON")
                    continue
                if not (
                    isinstance(row, dict)
                    and isinstance(row.get("url"), str)
                    and isinstance(row.get("file"), str)
                ):
                    store.issues.append(
                        f"index.jsonl line {n}: needs string fields 'url' and 'file'"
                    )
                    continue
                store.urls.setdefault(normalize_url(row["url"]), row["file"])
        for msg in store.issues:
            log.warning("source store %s: %s", store.root, msg)
        return store

    def _file(self, rel: str) -> Path | None:
        p = (self.root / rel).resolve()
        try:
            p.relative_to(self.root.resolve())
        except ValueError:
            return None  # a path escaping the store is ignored
        return p if p.is_file() else None

    def texts(self, limit: int) -> list[tuple[str, str]]:
        """(file name, text) of the store's text files, in name order, at most ``limit`` (cached)."""
        if self._texts is None:
            out: list[tuple[str, str]] = []
            for p in sorted(self.root.iterdir()) if self.root.is_dir() else []:
                if len(out) >= limit:
                    break
                if p.is_file() and p.suffix in (".txt", ".md", ".html", ".htm"):
                    text = _read_text(p)
                    if text:
                        out.append((p.name, text))
            self._texts = out
        return self._texts

    def text_for_url(self, url: str) -> SourceText | None:
        """The saved text of ``url`` (via ``index.jsonl``, then the sha256-named file), or None."""
        norm = normalize_url(url)
        rel = self.urls.get(norm)
        if rel is not None:
            p = self._file(rel)
            text = _read_text(p) if p else None
            if text:
                return SourceText(text, f"store:{rel}")
        key = url_key(url)
        for ext in (".txt", ".md", ".html", ".htm"):
            p = self.root / f"{key}{ext}"
            if p.is_file():
                text = _read_text(p)
                if text:
                    return SourceText(text, f"store:{p.name}")
        return None

    def text_for_work(self, work: Work) -> SourceText | None:
        """The stored full text of an index record (by id or DOI file name, then its URLs)."""
        found = find_fulltext(self.root, work)
        if found is not None:
            return SourceText(found[0], f"fulltext:{found[1]}")
        urls = (
            list(work.urls)
            + ([f"https://doi.org/{work.doi}"] if work.doi else [])
            + ([f"https://openalex.org/{work.id}"] if work.id.startswith("W") else [])
        )
        for u in urls:
            st = self.text_for_url(u)
            if st is not None:
                return st
        return None


# ------------------------------------------------------------------------------- resolution


@dataclass
class SourceResolution:
    """What a source string resolves to offline.

    ``status``: ``resolved`` (a record of the world), ``other_work`` (an identifier resolves to
    a record whose title is not the one the source names), ``id_conflict`` (identifiers resolve
    to different works), ``ambiguous``, ``not_found``, ``no_index`` (identifiers or a title
    were stated but no index was given), ``nothing_stated`` (no identifier, title or URL).
    """

    status: str
    kind: str  # "doi" | "arxiv" | "pmid" | "pmcid" | "openalex" | "url" | "reference" | "none"
    shown: str  # the source as named in messages (identifier or a shortened string)
    work: Work | None = None
    method: str | None = None
    named_title: str | None = None
    urls: list[str] = field(default_factory=list)
    message: str = ""
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for ``details``."""
        out: dict[str, Any] = {
            "status": self.status,
            "kind": self.kind,
            "shown": self.shown,
            "work_id": self.work.id if self.work else None,
            "method": self.method,
        }
        if self.named_title:
            out["named_title"] = self.named_title
        if self.urls:
            out["urls"] = self.urls[:5]
        if self.message:
            out["message"] = self.message
        if self.notes:
            out["notes"] = self.notes
        return out


def _short(s: str, n: int = 100) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


def _cited_from_source(source: str) -> tuple[CitedWork, str, str]:
    """What the source states, its kind, and how to name it in messages."""
    text = source[:MAX_SOURCE_CHARS]
    stripped = text.strip()
    bare = not re.search(r"\s", stripped)
    if bare:
        cited = CitedWork(raw=stripped, form="string")
        doi = norm_doi(stripped)
        cited.doi = [doi] if doi else extract_dois(stripped)
        cited.arxiv = extract_arxiv(stripped)
        cited.pmid = extract_pmid(stripped)
        cited.pmcid = extract_pmcid(stripped)
        cited.openalex = extract_openalex(stripped)
        cited.urls = extract_urls(stripped)
    else:
        cited = parse_citation_string(text)
        if not cited.urls:
            cited.urls = extract_urls(text)
    if cited.openalex:
        kind, shown = "openalex", f"OpenAlex {cited.openalex}"
    elif cited.doi:
        kind, shown = "doi", f"DOI {cited.doi[0]}"
    elif cited.arxiv:
        kind, shown = "arxiv", f"arXiv {cited.arxiv}"
    elif cited.pmcid:
        kind, shown = "pmcid", f"PMCID {cited.pmcid}"
    elif cited.pmid:
        kind, shown = "pmid", f"PMID {cited.pmid}"
    elif cited.urls:
        kind, shown = "url", f"URL {_short(cited.urls[0], 120)}"
    elif stripped:
        kind, shown = "reference", f"reference '{_short(stripped)}'"
    else:
        kind, shown = "none", "no source"
    if not bare and kind != "reference":
        shown += " (in a reference string)"
    return cited, kind, shown


def resolve_source(source: str | None, world: WorldLookup | None) -> SourceResolution:
    """Resolve a source string through the world index (see :class:`SourceResolution`)."""
    if not isinstance(source, str) or not source.strip():
        return SourceResolution(
            "nothing_stated", "none", "no source", message="the citation gives no source"
        )
    cited, kind, shown = _cited_from_source(source)
    named = cited.title
    urls = list(cited.urls)
    stated = cited.states_work()
    if not stated:
        status = "not_found" if urls else "nothing_stated"
        msg = "no identifier or title could be read from the source"
        return SourceResolution(status, kind, shown, urls=urls, message=msg)
    if world is None:
        return SourceResolution(
            "no_index",
            kind,
            shown,
            named_title=named,
            urls=urls,
            message="no index was given (--index), so the source could not be looked up",
        )
    res = resolve(cited, world)
    out = SourceResolution(
        res.status if res.status != "matched" else "resolved",
        kind,
        shown,
        res.work,
        res.method,
        named,
        urls,
        res.message or "",
        list(res.notes),
    )
    if (
        res.status == "matched"
        and res.work is not None
        and res.method not in (None, "title_key", "title_search", "string_search")
    ):
        if named:
            check = compare_title(named, res.work.title)
            if not check.ok:
                out.status = "other_work"
                out.message = check.reason
        elif kind != "reference" and " " in source.strip():
            other = _names_other_work(cited, res.work)
            if other:
                out.status = "other_work"
                out.message = other
    return out


#: Below this similarity (rapidfuzz partial_ratio of the folded record title against the folded
#: reference string) the reference does not contain the record's title.
TITLE_IN_REFERENCE = 60.0


def _names_other_work(cited: CitedWork, work: Work) -> str | None:
    """Why a reference whose title could not be read names another work than ``work``, or None.

    Only when the evidence is clear: the reference states authors *and* a year, both disagree with
    the record, and the record's title does not occur in the reference string.
    """
    if not (cited.authors and cited.year is not None and work.title):
        return None
    fields = {f.field: f for f in validate(cited, work)}
    a, y = fields.get("authors"), fields.get("year")
    if a is None or y is None or a.ok or y.ok:
        return None
    sim = fuzz.partial_ratio(
        fold(work.title), fold(cited.raw[:MAX_SOURCE_CHARS]), processor=None, score_cutoff=0
    )
    if sim >= TITLE_IN_REFERENCE:
        return None
    return (
        f"the reference names {cited.authors[0]} ({cited.year}); the record's authors and year differ "
        f"({a.reason}; {y.reason}) and its title is not in the reference (similarity {sim:.0f})"
    )


# ------------------------------------------------------------------------------------ quotes


@dataclass(frozen=True)
class QuoteMatch:
    """Where a quote stands against a text: its best similarity (0-100) and whether it is found."""

    found: bool
    score: float
    exact: bool


def _best_partial(q: str, text: str) -> float:
    if not q or not text:
        return 0.0
    if q in text:
        return 100.0
    if len(text) <= 4 * len(q) + 200:
        return float(fuzz.partial_ratio(q, text, processor=None, score_cutoff=0))
    # Overlapping windows keep partial_ratio cheap on long texts.
    size = 2 * len(q) + 50
    step = max(len(q), 1)
    best = 0.0
    for start in range(0, max(len(text) - len(q), 0) + step, step):
        win = text[start : start + size]
        s = fuzz.partial_ratio(q, win, processor=None, score_cutoff=best)
        if s > best:
            best = float(s)
            if best >= 100.0:
                break
    return best


def find_quote(quote: str, text: str, threshold: float = QUOTE_FOUND) -> QuoteMatch:
    """Look for ``quote`` in ``text`` (folded; exact substring, else rapidfuzz partial alignment)."""
    ftext = fold(text[:MAX_TEXT_CHARS])
    pieces = [fold(p) for p in _ELLIPSIS.split(quote)]
    pieces = [p for p in pieces if len(p) >= _MIN_PIECE] or [fold(quote)]
    pieces = [p for p in pieces if p]
    if not pieces or not ftext:
        return QuoteMatch(False, 0.0, False)
    scores = [_best_partial(p, ftext) for p in pieces]
    score = min(scores)
    exact = all(p in ftext for p in pieces)
    return QuoteMatch(exact or score >= threshold, round(score, 1), exact)


#: Candidate works retrieved by the quote's words when looking for the work a quote came from.
ELSEWHERE_TOP_K = 20
#: Store files scanned at most when looking for a quote elsewhere (their texts are cached).
ELSEWHERE_MAX_FILES = 5000


@dataclass(frozen=True)
class Elsewhere:
    """Where else a quote was found: a record of the index or a file of the source store."""

    name: str
    origin: str
    score: float
    exact: bool


def find_elsewhere(
    quote: str,
    world: WorldLookup | None,
    store: SourceStore | None,
    *,
    exclude: set[str],
    siblings: Sequence[SourceText] = (),
) -> Elsewhere | None:
    """Another source that contains ``quote``, or None.

    Looked at in this order: ``siblings`` (the texts of the other sources the same answer cites:
    a quote is most often taken from one of them); the abstracts (and stored texts) of the index
    records whose titles share the quote's words (Tantivy, top :data:`ELSEWHERE_TOP_K`); the
    source store's files (at most :data:`ELSEWHERE_MAX_FILES`). ``exclude`` holds the stated
    source's work ids and text origins. The first hit is returned.
    """
    for sib in siblings:
        if sib.origin in exclude:
            continue
        qm = find_quote(quote, sib.text)
        if qm.found:
            return Elsewhere(sib.origin.replace("abstract of ", ""), sib.origin, qm.score, qm.exact)
    if world is not None:
        try:
            hits = world.search_title(quote[:600], k=ELSEWHERE_TOP_K)
        except Exception:
            hits = []
        for work in world.get_many([wid for wid, _ in hits if wid not in exclude]):
            text = (store.text_for_work(work) if store is not None else None) or (
                SourceText(work.abstract, f"abstract of {work.id}") if work.abstract else None
            )
            if text is None or text.origin in exclude:
                continue
            qm = find_quote(quote, text.text)
            if qm.found:
                return Elsewhere(
                    f"{work.id} '{(work.title or 'untitled')[:100]}'",
                    text.origin,
                    qm.score,
                    qm.exact,
                )
    if store is not None:
        for path, body in store.texts(ELSEWHERE_MAX_FILES):
            origin = f"store:{path}"
            if origin in exclude or f"fulltext:{path}" in exclude:
                continue
            qm = find_quote(quote, body)
            if qm.found:
                return Elsewhere(f"the stored text {path}", origin, qm.score, qm.exact)
    return None


def read_source(res: SourceResolution, store: SourceStore | None) -> SourceText | None:
    """The text of a resolved source: stored full text, then abstract; for URLs, the stored page."""
    if res.work is not None:
        if store is not None:
            st = store.text_for_work(res.work)
            if st is not None:
                return st
        if res.work.abstract and res.work.abstract.strip():
            return SourceText(res.work.abstract, f"abstract of {res.work.id}")
    if store is not None:
        for u in res.urls:
            st = store.text_for_url(u)
            if st is not None:
                return st
    return None
