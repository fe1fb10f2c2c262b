"""Word documents (``.docx``): a manuscript, a thesis chapter, a report a tool exported for Word.

A ``.docx`` is a zip of XML parts (ECMA-376, WordprocessingML); the standard library reads it:

- ``word/document.xml``: the body's paragraphs (``w:p``, tables' paragraphs included), each one
  line, a blank line between them. Only the text a reader sees is kept: runs' ``w:t`` (tabs and
  breaks as spaces), never field instructions (``w:instrText``: a Zotero or EndNote field's
  JSON) or deleted text of tracked changes (``w:delText``). A paragraph of a numbered list
  carries its number ("3. …", from ``word/numbering.xml``; Word's reference lists are numbered
  lists whose numbers are not in the text), a bulleted one a bullet.
- ``word/footnotes.xml``, ``word/endnotes.xml``: notes. A note that reads as a reference (a year
  with a name, a reference word or a page range:
  :func:`~citejudge.documents._finder.reads_as_reference`) is an entry, labelled ``fn3`` / ``en3``, and its
  mark in the body is a marker pointing to it; "Ibid." (or "Ibid., 1740.") points to the entry of
  the note before it. A note that is a remark ("We thank …") is neither.

Then the lines go to the reference finder like any text document
(:func:`~citejudge.documents._plain.document_from_lines`): a list under a "References" heading is
found as in a PDF. Lines are numbered by paragraph, so an error names the body's paragraph.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree as ET

from citejudge.documents._build import IDENTIFIER_TEXT, DocumentError, Entry
from citejudge.documents._fields import field_kind, field_works, render_csl, renders
from citejudge.documents._finder import (
    SUPERSCRIPT_CITATION,
    Line,
    reads_as_reference,
    superscript_marker,
)
from citejudge.documents._markers import IBID, RawMarker
from citejudge.documents._model import Document, DocumentFormat
from citejudge.readers.csl import csl_fields

__all__ = [
    "DocParts",
    "FieldSpan",
    "FieldSpans",
    "document_from_parts",
    "docx_parts",
    "note_entries",
    "read_docx",
    "zip_xml",
]

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_PR = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_BULLET_FORMATS = frozenset({"bullet", "none"})


def zip_xml(z: zipfile.ZipFile, name: str) -> ET.Element | None:
    """The part ``name`` of the package ``z`` parsed; None when there is no such part.

    Raises :class:`DocumentError` naming the file and the part for XML that is not well-formed.
    """
    try:
        return ET.fromstring(z.read(name))
    except KeyError:
        return None
    except ET.ParseError as exc:
        raise DocumentError(f"{z.filename}: {name} is not well-formed XML ({exc})") from exc


def _numbering(root: ET.Element | None) -> dict[tuple[str, str], tuple[str, int]]:
    """(numId, ilvl) -> (number format, start) of every list definition."""
    if root is None:
        return {}
    abstract: dict[str, dict[str, tuple[str, int]]] = {}
    for an in root.iter(f"{_W}abstractNum"):
        levels: dict[str, tuple[str, int]] = {}
        for lvl in an.iter(f"{_W}lvl"):
            fmt = lvl.find(f"{_W}numFmt")
            start = lvl.find(f"{_W}start")
            s = start.get(f"{_W}val", "1") if start is not None else "1"
            levels[lvl.get(f"{_W}ilvl", "0")] = (
                fmt.get(f"{_W}val", "decimal") if fmt is not None else "decimal",
                int(s) if s.isdigit() else 1,
            )
        abstract[an.get(f"{_W}abstractNumId", "")] = levels
    out: dict[tuple[str, str], tuple[str, int]] = {}
    for num in root.iter(f"{_W}num"):
        ref = num.find(f"{_W}abstractNumId")
        levels = abstract.get(ref.get(f"{_W}val", "") if ref is not None else "", {})
        for ilvl, spec in levels.items():
            out[(num.get(f"{_W}numId", ""), ilvl)] = spec
    return out


@dataclass
class FieldSpan:
    """A field (``w:fldChar`` begin … separate … end, or ``w:fldSimple``) as the body is read."""

    order: int
    begin: int  # paragraph of its beginning
    instr: list[str] = field(default_factory=list)
    data: list[str] = field(default_factory=list)  # w:fldData, a nested EN.CITE.DATA field's
    result_at: tuple[int, int] | None = None  # (paragraph, offset in its raw text) of "separate"
    end_at: tuple[int, int] | None = None
    shown: str | None = None  # its result text, when it lies in one paragraph

    @property
    def instruction(self) -> str:
        return "".join(self.instr)


@dataclass
class FieldSpans:
    """Fields open and closed while a part's paragraphs are read in order (they span paragraphs)."""

    open: list[FieldSpan] = field(default_factory=list)
    closed: list[FieldSpan] = field(default_factory=list)
    count: int = 0

    def begin(self, par: int, data: str = "") -> None:
        self.count += 1
        self.open.append(FieldSpan(self.count, par, data=[data] if data else []))

    def separate(self, par: int, offset: int) -> None:
        if self.open and self.open[-1].result_at is None:
            self.open[-1].result_at = (par, offset)

    def end(self, par: int, offset: int) -> None:
        if not self.open:
            return
        f = self.open.pop()
        f.end_at = (par, offset)
        if self.open and field_kind(f.instruction) == "endnote-data":
            self.open[-1].data.extend(f.data)
        self.closed.append(f)

    def instruction(self, text: str) -> None:
        if self.open and self.open[-1].result_at is None:
            self.open[-1].instr.append(text)


def _text(
    p: ET.Element,
    marks: dict[str, str] | None = None,
    links: dict[str, str] | None = None,
    fields: FieldSpans | None = None,
    par: int = 0,
) -> str:
    """A paragraph's visible text; a note's reference becomes ``marks[kind+id]`` (or nothing).

    Superscript runs of numbers (Vancouver citations typed in Word, "problem¹˒²") become a
    numeric marker, "[1,2]"; after a digit or a unit an exponent, "10^5", "km^2". A hyperlink to
    a web address (``links``: relationship id -> address) is kept the Markdown way,
    "[text](https://…)", as the HTML reader keeps one. ``fields`` (the body's, ``par`` the
    paragraph's number) records each field's instruction and where its result shows.
    """
    parts: list[str] = []
    sup: list[str] = []
    in_link: dict[int, str] = {}  # id() of each run inside an external hyperlink -> its address
    simple: dict[int, list[str]] = {}  # id() of a w:fldSimple's first/last run -> instr/"end"
    if fields is not None:
        for fs in p.iter(f"{_W}fldSimple"):
            runs = list(fs.iter(f"{_W}r"))
            if runs and fs.get(f"{_W}instr", "").strip():
                simple.setdefault(id(runs[0]), []).append(fs.get(f"{_W}instr", ""))
                simple.setdefault(id(runs[-1]), []).append("")
    for h in p.iter(f"{_W}hyperlink"):
        target = (links or {}).get(h.get(_R_ID, ""), "")
        if target.lower().startswith(("http://", "https://")):
            runs = list(h.iter(f"{_W}r"))
            anchor = "".join(t.text or "" for r in runs for t in r.iter(f"{_W}t")).strip()
            if runs and anchor and not IDENTIFIER_TEXT.match(anchor):
                in_link[id(runs[0])] = "["
                in_link[id(runs[-1])] = in_link.get(id(runs[-1]), "") + f"]({target})"

    def end_sup() -> None:
        if sup:
            raw = "".join(sup)
            sup.clear()
            if SUPERSCRIPT_CITATION.fullmatch(raw.strip()) is None:
                parts.append(raw)
            else:
                parts.append(superscript_marker("".join(parts), raw))

    def at() -> int:
        end_sup()
        return sum(map(len, parts))

    for r in p.iter(f"{_W}r"):
        align = r.find(f"{_W}rPr/{_W}vertAlign")
        raised = align is not None and align.get(f"{_W}val") == "superscript"
        if not raised:
            end_sup()
        edge = in_link.get(id(r), "")
        if edge.startswith("["):
            parts.append("[")
        if fields is not None and id(r) in simple:
            for instr in simple[id(r)][:1]:
                if instr:  # a w:fldSimple's first run: the field begins, its result shows
                    fields.begin(par)
                    fields.instruction(instr)
                    fields.separate(par, at())
        for el in r:
            tag = el.tag
            if fields is not None and tag == f"{_W}fldChar":
                kind = el.get(f"{_W}fldCharType")
                if kind == "begin":
                    fields.begin(par, (el.findtext(f"{_W}fldData") or "").strip())
                elif kind == "separate":
                    fields.separate(par, at())
                elif kind == "end":
                    fields.end(par, at())
            elif fields is not None and tag == f"{_W}instrText":
                fields.instruction(el.text or "")
            elif tag == f"{_W}t":
                (sup if raised else parts).append(el.text or "")
            elif tag in (f"{_W}tab", f"{_W}br", f"{_W}cr"):
                parts.append(" ")
            elif tag in (f"{_W}footnoteReference", f"{_W}endnoteReference") and marks is not None:
                end_sup()
                kind = "fn" if tag == f"{_W}footnoteReference" else "en"
                parts.append(marks.get(f"{kind}{el.get(f'{_W}id', '')}", ""))
        if "](" in edge:
            parts.append(edge[edge.index("]") :])
        if fields is not None and simple.get(id(r), ["x"])[-1] == "":
            fields.end(par, at())  # a w:fldSimple's last run
    end_sup()
    raw = "".join(parts)
    if fields is not None:
        for f in fields.closed:
            start, end = f.result_at, f.end_at
            if f.shown is None and start and end and start[0] == end[0] == par:
                f.shown = " ".join(raw[start[1] : end[1]].split())  # its result, in one paragraph
    return " ".join(raw.split())


def _relationships(root: ET.Element | None) -> dict[str, str]:
    """Relationship id -> target of the external relationships (hyperlinks) of a part."""
    if root is None:
        return {}
    return {
        r.get("Id", ""): r.get("Target", "")
        for r in root.iter(f"{_PR}Relationship")
        if r.get("TargetMode") == "External"
    }


def _notes(root: ET.Element | None, tag: str, kind: str) -> list[tuple[str, str, list[FieldSpan]]]:
    """(label, text, fields) of each real note (separators left out), in document order."""
    if root is None:
        return []
    out: list[tuple[str, str, list[FieldSpan]]] = []
    for note in root.iter(f"{_W}{tag}"):
        if note.get(f"{_W}type") in ("separator", "continuationSeparator", "continuationNotice"):
            continue
        fields = FieldSpans()
        text = " ".join(
            _text(p, fields=fields, par=n) for n, p in enumerate(note.iter(f"{_W}p"), start=1)
        ).strip()
        if text:
            out.append((f"{kind}{note.get(f'{_W}id', '')}", text, [*fields.closed, *fields.open]))
    return out


def note_entries(
    notes: Sequence[tuple[str, str, list[FieldSpan]]],
) -> tuple[list[Entry], dict[str, str], dict[str, tuple[str, list[FieldSpan]]]]:
    """The notes (label, text, fields) that are entries, each note's mark, the citing notes.

    A note that reads as a reference (or "Ibid.") is an entry, its mark ``[^fn3]`` a marker; a
    note holding a citation manager's field is no entry of its own (its fields' works are: the
    third result, label -> (text, fields)); a remark note is neither, its mark nothing.
    """
    entries: list[Entry] = []
    marks: dict[str, str] = {}
    cite_notes: dict[str, tuple[str, list[FieldSpan]]] = {}
    for label, text, note_fields in notes:
        if any(field_kind(f.instruction) in ("csl", "endnote") for f in note_fields):
            cite_notes[label] = (text, note_fields)  # a note style's citation (Zotero, EndNote)
            marks[label] = f"[^{label}]"
        elif IBID.match(text) or reads_as_reference(text):
            # "Ibid., 1740." too: the document's assembly points it to the note before it
            entries.append(Entry(text, label, label))
            marks[label] = f"[^{label}]"
    return entries, marks, cite_notes


@dataclass
class DocParts:
    """A Word document's parts as :func:`docx_parts` reads them."""

    lines: list[Line]
    #: the notes that read as references
    entries: list[Entry]
    #: each note's mark in the body
    marks: dict[str, str]
    #: the body's fields, in the order they begin
    fields: list[FieldSpan]
    #: a note whose fields a citation manager wrote: label -> (text, fields)
    cite_notes: dict[str, tuple[str, list[FieldSpan]]]
    #: label -> the body paragraph of the note's mark
    mark_paragraph: dict[str, int]


def docx_parts(path: Path) -> DocParts:
    """The body's lines and fields, the notes that are references (entries) and their marks.

    A note that holds a citation manager's field is no entry of its own: its fields' works are
    (:func:`read_docx`).

    Raises :class:`DocumentError` for a file that is no ``.docx`` (an encrypted one is not a zip).
    """
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise DocumentError(
            f"{path}: not a Word .docx file (not a zip package: {exc})",
            hint="an encrypted document must be saved without a password; a .doc must be "
            "saved as .docx",
        ) from exc
    with z:
        body = zip_xml(z, "word/document.xml")
        if body is None:
            raise DocumentError(f"{path}: no word/document.xml in the package")
        numbering = _numbering(zip_xml(z, "word/numbering.xml"))
        links = _relationships(zip_xml(z, "word/_rels/document.xml.rels"))
        notes = _notes(zip_xml(z, "word/footnotes.xml"), "footnote", "fn") + _notes(
            zip_xml(z, "word/endnotes.xml"), "endnote", "en"
        )
    entries, marks, cite_notes = note_entries(notes)
    lines: list[Line] = []
    counters: dict[tuple[str, str], int] = {}
    fields = FieldSpans()
    mark_paragraph: dict[str, int] = {}
    for n, p in enumerate(body.iter(f"{_W}p"), start=1):
        for tag, kind in (("footnoteReference", "fn"), ("endnoteReference", "en")):
            for ref in p.iter(f"{_W}{tag}"):
                mark_paragraph.setdefault(f"{kind}{ref.get(f'{_W}id', '')}", n)
        text = _text(p, marks, links, fields, n)
        if not text:
            continue
        num = p.find(f"{_W}pPr/{_W}numPr")
        if num is not None:
            num_id = num.find(f"{_W}numId")
            ilvl = num.find(f"{_W}ilvl")
            key = (
                num_id.get(f"{_W}val", "") if num_id is not None else "",
                ilvl.get(f"{_W}val", "0") if ilvl is not None else "0",
            )
            fmt, start = numbering.get(key, ("bullet", 1))
            if key[0] != "0":  # numId 0: numbering switched off
                counters[key] = counters.get(key, start - 1) + 1
                text = f"- {text}" if fmt in _BULLET_FORMATS else f"{counters[key]}. {text}"
        lines.append(Line(text, None, n))
        lines.append(Line("", None, n))
    return DocParts(
        lines,
        entries,
        marks,
        # a field that begins and never ends (a damaged file) is read too: its works are
        # listed, and a warning says no sentence cites them (no text shows it)
        sorted([*fields.closed, *fields.open], key=lambda f: f.order),
        cite_notes,
        mark_paragraph,
    )


@dataclass
class _Citations:
    """What a Word document's citation fields carry: works, where they are cited, warnings."""

    entries: list[Entry] = field(default_factory=list)
    by_key: dict[str, Entry] = field(default_factory=dict)
    #: paragraph -> (the marker's text as shown, the keys of its works), in reading order
    shown: dict[int, list[tuple[str, tuple[str, ...]]]] = field(default_factory=dict)
    bibliographies: list[tuple[int, int]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def works(self) -> list[Entry]:
        return [e for e in self.entries if e.csl is not None]

    def read(
        self, path: Path, fields: Sequence[FieldSpan], note: tuple[str, int | None] | None = None
    ) -> list[str]:
        """Read ``fields`` (the body's, or a ``note``'s: its name and its mark's paragraph).

        Each work once (by its key); a body field's text as shown is a marker at its paragraph
        (a note's mark is, for every work of the note: the caller's). Returns the works' keys.
        A bibliography field gives the range of paragraphs its result spans.
        """
        keys: list[str] = []
        for f in fields:
            kind = field_kind(f.instruction)
            if kind is None or kind == "endnote-data":
                continue
            if kind == "bibliography":
                if f.result_at and f.end_at and note is None:
                    self.bibliographies.append((f.result_at[0], f.end_at[0]))
                continue
            where, line = (f"paragraph {f.begin}", f.begin) if note is None else note
            works, problems = field_works(f.instruction, kind, "".join(f.data))
            for problem in problems:
                self.warnings.append(
                    f"{path}: {where}: {problem}; "
                    + ("the field's other works were read" if works else "the field was skipped")
                )
            for w in works:
                keys.append(w.key)
                if w.key not in self.by_key:
                    e = csl_fields(w.csl)
                    self.by_key[w.key] = Entry(
                        render_csl(w.csl),
                        None,
                        w.key,
                        None,
                        line,
                        authors=[a.name for a in e.authors],
                        year=e.year,
                        title=e.title,
                        csl=w.csl,
                    )
                    self.entries.append(self.by_key[w.key])
            if not works or note is not None:
                continue
            if f.shown and f.result_at and f.result_at[0] == (f.end_at or (0, 0))[0]:
                self.shown.setdefault(f.result_at[0], []).append(
                    (f.shown, tuple(dict.fromkeys(w.key for w in works)))
                )
            else:
                self.warnings.append(
                    f"{path}: {where}: a {works[0].manager} citation field shows no text in one "
                    "paragraph; its works are listed, no sentence cites them"
                )
        return list(dict.fromkeys(keys))


def _drop_rendered(path: Path, lines: list[Line], cites: _Citations) -> list[Line]:
    """``lines`` without the bibliography fields' paragraphs that render a work of the fields.

    A paragraph of the field that renders none stays, read as a typed entry (a warning says so).
    """
    if not cites.bibliographies:
        return lines
    works = cites.works()
    out: list[Line] = []
    kept: list[int] = []
    for ln in lines:
        inside = ln.number is not None and any(a <= ln.number <= b for a, b in cites.bibliographies)
        if inside and not ln.blank:
            if any(e.csl is not None and renders(ln.text, e.csl) for e in works):
                out.append(Line("", ln.page, ln.number))
                continue
            kept.append(ln.number or 0)
        out.append(ln)
    if kept:
        cites.warnings.append(
            f"{path}: paragraphs {', '.join(map(str, kept))} of the citation manager's "
            "bibliography render no work its citation fields carry; read as typed entries"
        )
    return out


_WORD_RE = re.compile(r"[^\W\d_]{2}")


def _find_shown(sentence: str, shown: str, pos: int) -> int:
    """Where a field's shown text is in ``sentence`` from ``pos``, -1 when it is not there.

    A number only as a whole number: "1" is not in "2019" nor in "120".
    """
    if shown[:1].isdigit() or shown[-1:].isdigit():
        m = re.compile(r"(?<!\d)" + re.escape(shown) + r"(?!\d)").search(sentence, pos)
        return m.start() if m else -1
    return sentence.find(shown, pos)


def read_docx(path: Path) -> Document:
    """Read a Word document: its reference list or reference notes, and the sentences citing them.

    A citation manager's fields (Zotero, Mendeley, EndNote: :mod:`~citejudge.documents._fields`)
    give the works they carry as references with their data (CSL-JSON), listed first in order
    of first citation, each at the paragraph that first cites it; the field's text as shown is
    the sentence's marker and points to them (in a note style, the fields are in the notes: the
    note's mark points to their works). The paragraphs of the manager's rendered bibliography
    that render those works are no second, typed entry.
    """
    return document_from_parts(path, "docx", docx_parts(path))


def document_from_parts(path: Path, fmt: DocumentFormat, parts: DocParts) -> Document:
    """The document of a word processor's parts (Word's, OpenDocument's): see :func:`read_docx`.

    The citation fields' works first, then the reference notes; the lines go to the reference
    finder (read the Markdown way: they carry hyperlinks so), each field's text as shown is
    the marker of its paragraph's sentence.
    """
    from citejudge.documents._plain import document_from_lines

    cites = _Citations()
    cites.read(path, parts.fields)
    entries = list(parts.entries)
    for label, (text, note_fields) in parts.cite_notes.items():
        name = f"{'footnote' if label.startswith('fn') else 'endnote'} {label[2:]}"
        at = parts.mark_paragraph.get(label)
        keys = cites.read(path, note_fields, (name, at))
        if keys and at is not None:
            cites.shown.setdefault(at, []).append((f"[^{label}]", tuple(keys)))
        elif IBID.match(text) or reads_as_reference(text):
            entries.append(Entry(text, label, label))  # its fields carried nothing: as written
    lines = _drop_rendered(path, parts.lines, cites)
    pending = {n: list(v) for n, v in cites.shown.items()}
    skipped: list[tuple[int, str]] = []

    def located(sentence: str, line: int | None) -> list[RawMarker]:
        # a paragraph's fields in order; a field not found in this sentence is in a later one,
        # unless a later field is found here: then it is in none (the sentence splitter cut
        # through its shown text) and the rest of the paragraph's fields are still placed
        queue = pending.get(line or 0, [])
        found: list[RawMarker] = []
        pos = 0
        while queue:
            # the next field, else (when it is in no sentence) a later one with words in its
            # text: a bare number ("1", "[2]", a superscript style's) is found anywhere
            hits = [(0, _find_shown(sentence, queue[0][0], pos))]
            if hits[0][1] < 0:
                hits = [
                    (k, _find_shown(sentence, shown, pos))
                    for k, (shown, _) in enumerate(queue)
                    if k and _WORD_RE.search(shown)
                ]
            k, at = next(((k, at) for k, at in hits if at >= 0), (-1, -1))
            if at < 0:
                break
            skipped.extend((line or 0, shown) for shown, _ in queue[:k])
            shown, keys = queue[k]
            found.append(RawMarker(at, at + len(shown), shown, "key", keys))
            pos = at + len(shown)
            del queue[: k + 1]
        return found

    # the lines carry hyperlinks the Markdown way: read them as Markdown
    doc = document_from_lines(
        str(path),
        fmt,
        lines,
        extra_entries=[*cites.entries, *entries],
        find_with_extra=True,
        markdown=True,
        warnings=cites.warnings,
        located=located,
        prose_lists=True,
    )
    missed = [*skipped, *((n, shown) for n, queue in pending.items() for shown, _ in queue)]
    if not missed:
        return doc
    return doc.model_copy(
        update={
            "warnings": [
                *doc.warnings,
                *(
                    f"{path}: paragraph {n}: the citation field shown as {shown!r} is in no "
                    "sentence of the body; its works are not cited there"
                    for n, shown in missed
                ),
            ]
        }
    )
