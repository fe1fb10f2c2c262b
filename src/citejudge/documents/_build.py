"""From a reader's output to a :class:`~citejudge.documents.Document`.

Every reader ends here: the entries of the reference list become :class:`Reference` (each
parsed by the free-text citation parser, :func:`citejudge.readers.freetext.parse_citation_string`,
unless the reader parsed it already), and the body's paragraphs are split into sentences whose
markers are found and resolved (:mod:`citejudge.documents._markers`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citejudge.documents._markers import (
    IBID,
    RawMarker,
    Resolver,
    find_markers,
    short_authors,
    short_note_targets,
    strip_markers,
)
from citejudge.documents._model import CitingSentence, Document, DocumentFormat, Reference
from citejudge.errors import InputError
from citejudge.text.normalize import fold
from citejudge.text.sentences import split_sentences

__all__ = [
    "IDENTIFIER_TEXT",
    "DocumentError",
    "Entry",
    "LocatedMarkers",
    "Paragraph",
    "assemble",
    "group_end",
    "parse_entry",
    "read_text_file",
]


#: A linked text that is an identifier written out ("10.1162/…", "1412.6980", a PMID, a URL): the
#: HTML and Word readers keep no second copy of its address.
IDENTIFIER_TEXT = re.compile(
    r"^\s*(?:10\.\d{4,}|\d[\d.v]*\s*$|PMC\d|arXiv[:\s]|doi:|https?://)", re.I
)


class DocumentError(InputError):
    """A document that cannot be checked: unreadable, encrypted, image-only, no reference list."""


def read_text_file(path: Path) -> str:
    """The file's text (UTF-8, with a BOM or not); undecodable bytes are a :class:`DocumentError`."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DocumentError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DocumentError(
            f"{path}: not UTF-8 text (byte {exc.start})", hint="convert the file to UTF-8"
        ) from exc


def group_end(text: str, at: int, limit: int = 1 << 30) -> int:
    """The index after the ``{…}`` group opening at ``text[at]``, braces balanced.

    -1 when the group does not close (within ``limit`` characters).
    """
    depth = 0
    for i in range(at, min(len(text), at + limit)):
        depth += (text[i] == "{") - (text[i] == "}")
        if depth == 0:
            return i + 1
    return -1


@dataclass
class Entry:
    """One reference-list entry as a reader found it."""

    text: str
    label: str | None = None
    key: str | None = None
    page: int | None = None
    line: int | None = None
    authors: list[str] | None = None  # when the reader knows them (BibTeX); else parsed
    year: int | None = None
    title: str | None = None
    csl: dict[str, Any] | None = None  # the work as a citation manager's field carries it


@dataclass
class Paragraph:
    """A paragraph of running text; ``lines`` maps character offsets to (page, line)."""

    text: str
    lines: list[tuple[int, int | None, int | None]] = field(default_factory=list)

    def where(self, offset: int) -> tuple[int | None, int | None]:
        """(page, line) of the character at ``offset``."""
        page, line = (None, None)
        for start, p, ln in self.lines:
            if start > offset:
                break
            page, line = p, ln
        return page, line


_SUFFIX = re.compile(r"(?<!\d)(?:1[5-9]\d\d|20\d\d)([a-z])(?![a-z])")


def parse_entry(e: Entry, number: int) -> Reference:
    """A :class:`Reference` of ``e``, its authors, year and title read by the citation parser."""
    from citejudge.readers.freetext import parse_citation_string

    authors, year, title = e.authors, e.year, e.title
    year_raw: str | None = None
    if authors is None or year is None:
        cw = parse_citation_string(e.text)
        authors = authors if authors is not None else list(cw.authors)
        year = year if year is not None else cw.year
        title = title or cw.title
        year_raw = cw.year_raw
    suffix = None
    for probe in (year_raw or "", e.text):
        m = _SUFFIX.search(probe)
        if m and (year is None or m.group(0)[:4] == str(year)):
            suffix = m.group(1)
            break
    return Reference(
        number=number,
        text=e.text,
        label=e.label,
        key=e.key,
        page=e.page,
        line=e.line,
        authors=list(authors or []),
        year=year,
        year_suffix=suffix,
        title=title,
        csl=e.csl,
    )


#: A reader's own marker finder for a paragraph (LaTeX: its ``\\cite`` tokens).
MarkerFinder = Callable[[str], list[RawMarker]]
#: Markers a reader knows at a line, given the sentence found there (a Word citation field's).
LocatedMarkers = Callable[[str, int | None], list[RawMarker]]


def assemble(
    path: str,
    fmt: DocumentFormat,
    entries: Sequence[Entry],
    paragraphs: Sequence[Paragraph],
    *,
    warnings: Sequence[str] = (),
    markers: MarkerFinder | None = None,
    claim: Callable[[str, list[RawMarker]], str] | None = None,
    located: LocatedMarkers | None = None,
) -> Document:
    """The document of ``entries`` and ``paragraphs``.

    ``located``: markers the reader knows in a sentence at a line; they take the place of the
    markers found where they overlap.

    Raises :class:`DocumentError` when there are no entries (no reference list found).
    """
    if not entries:
        raise DocumentError(
            f"{path}: no reference list found",
            hint="the document needs a reference list (or a .bib/.bbl beside a .tex)",
        )
    refs = [parse_entry(e, n) for n, e in enumerate(entries, start=1)]
    refs, notes = fold_short_notes(refs)
    warnings = list(warnings)
    if notes:
        warnings.append(
            f'{len(notes)} short notes ("Smith 2010, p. 5", "Ibid.") name other entries; '
            "their markers point to those entries"
        )
    resolver = Resolver(refs, notes)
    numeric = any(r.label and r.label.isdigit() for r in refs) or all(r.label is None for r in refs)
    # a citation manager's field names its works by key; the text does not write those keys
    keyed = any(r.key for r in refs if r.csl is None)
    by_number = {r.number: r for r in refs}

    def narrative(m: RawMarker) -> str:
        """A pandoc narrative citation ("@doe99 shows …") leaves its authors in the claim."""
        if m.kind != "key" or not m.text.startswith("@"):
            return ""
        found = [by_number[n] for n in resolver.resolve(m).entries if n in by_number]
        return short_authors(found[0].authors) if found else ""

    find = markers or (lambda s: find_markers(s, numeric=numeric, keyed=keyed))
    sentences: list[CitingSentence] = []
    for para in paragraphs:
        pos = 0
        flat = " ".join(para.text.split())
        for sent in split_sentences(flat, citing=True):
            at = flat.find(sent, pos)
            at = pos if at < 0 else at
            pos = at + len(sent)
            raw = find(sent)
            page, line = para.where(_offset_in(para.text, at))
            known = located(sent, line) if located is not None else []
            if known:
                raw = sorted(
                    [
                        *known,
                        *(
                            m
                            for m in raw
                            if all(m.end <= k.start or m.start >= k.end for k in known)
                        ),
                    ],
                    key=lambda m: m.start,
                )
            if not raw:
                continue
            sentences.append(
                CitingSentence(
                    number=len(sentences) + 1,
                    text=sent,
                    claim=claim(sent, raw) if claim else strip_markers(sent, raw, narrative),
                    markers=[resolver.resolve(r) for r in raw],
                    page=page,
                    line=line,
                )
            )
    return Document(
        path=path, format=fmt, references=refs, sentences=sentences, warnings=list(warnings)
    )


def fold_short_notes(refs: list[Reference]) -> tuple[list[Reference], dict[str, list[int]]]:
    """The entries left when short notes are folded into the entries they name.

    A Wikipedia article's numbered notes ("Hochreiter & Schmidhuber 1997, p. 1736.") name the
    works of its "Sources" list by author and year; a humanities note "Ibid., 1740." names the
    work of the note before it. Each note whose every target names exactly one other entry
    (:meth:`Resolver` rules), and each "Ibid." after an entry, is left out of the list, the rest
    are numbered again, and the note's label (or number) maps to the entries it names: a marker
    that points to the note points to them. A note that names nothing, or not one entry, stays an
    entry as written.
    """
    # a work a citation manager's field carries is a work, whatever its text reads like
    ibids = {r.number for r in refs if r.csl is None and IBID.match(r.text.strip())}
    notes = {
        r.number: t
        for r in refs
        if r.number not in ibids and r.csl is None and (t := short_note_targets(r.text))
    }
    fuller = [r for r in refs if r.number not in notes and r.number not in ibids]
    if not fuller or not (notes or ibids):
        return refs, {}
    probe = Resolver(fuller)
    named: dict[int, list[int]] = {}
    for n, targets in notes.items():
        hits = [probe.resolve(RawMarker(0, 0, "", "author-year", (t,))).entries for t in targets]
        if all(len(h) == 1 for h in hits):
            named[n] = [h[0] for h in hits]  # the entries' numbers in ``refs``
    previous: list[int] | None = None
    for r in refs:
        if r.number in ibids:
            if previous is not None:
                named[r.number] = previous
        else:
            previous = named.get(r.number, [r.number])
    if not named:
        return refs, {}
    keep = [r for r in refs if r.number not in named]
    new_number = {r.number: i for i, r in enumerate(keep, start=1)}
    aliases = {
        fold(refs[n - 1].label or str(n)): [new_number[k] for k in hits]
        for n, hits in named.items()
    }
    return [r.model_copy(update={"number": new_number[r.number]}) for r in keep], aliases


def _offset_in(text: str, flat_offset: int) -> int:
    """The offset in ``text`` of the character at ``flat_offset`` of its whitespace-collapsed form."""
    n = 0
    prev_space = True
    for i, c in enumerate(text):
        if c.isspace():
            if not prev_space:
                n += 1
            prev_space = True
        else:
            if n >= flat_offset:
                return i
            n += 1
            prev_space = False
    return len(text)
