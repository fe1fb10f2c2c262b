"""OpenDocument text (``.odt``, ``.fodt``): LibreOffice's and OpenOffice's documents.

An ``.odt`` is a zip of XML parts (OASIS ODF 1.2/1.3); the standard library reads it, and the
Word reader's assembly (:func:`~citejudge.documents._docx.document_from_parts`) makes the
document, so both read alike:

- ``content.xml``'s ``office:text``: headings and paragraphs (``text:h``, ``text:p``, tables'
  and sections' included) in order, each one line, numbered by paragraph so that an error names
  the body's paragraph. Spans' text is kept; ``text:s`` are spaces, ``text:tab`` and
  ``text:line-break`` a space; deleted text of tracked changes (``text:tracked-changes``),
  comments (``office:annotation``) and indexes' templates are left out. A text frame's
  paragraphs (a caption) follow the paragraph that anchors it.
- Lists (``text:list``, ``text:list-item``): a numbered list's first paragraph of each item
  carries its number ("3. …"), from its list style (``text:list-style``, in ``content.xml`` or
  ``styles.xml``: ``text:list-level-style-number``, ``text:start-value``; a reference list is
  often a numbered list whose numbers are not in the text); a bulleted one a bullet.
- Notes (``text:note``, ``text:note-class`` footnote or endnote): one that reads as a reference
  is an entry, labelled ``fn3`` / ``en3`` (the third footnote), its mark in the body a marker;
  "Ibid." points to the note before it; a remark note is neither
  (:func:`~citejudge.documents._docx.note_entries`).
- Superscript spans of numbers (a style whose ``style:text-position`` is ``super``) are numeric
  markers, as in Word; a hyperlink (``text:a``) to a web address is kept the Markdown way.
- Citation managers (:mod:`~citejudge.documents._fields`): Zotero's LibreOffice plugin stores a
  citation as a reference mark (``text:reference-mark-start`` … ``text:reference-mark-end``,
  or a point ``text:reference-mark``) or a bookmark whose name is ``ZOTERO_ITEM CSL_CITATION
  {json} RND…`` (in its bookmark mode, a bookmark ``ZOTERO_BREF_…`` whose code lies in the
  document's user-defined properties, ``meta.xml``); Mendeley's, ``CSL_CITATION {json}``. The name is the field's instruction, the
  marked text its text as shown. The bibliography is a section or a mark named ``ZOTERO_BIBL …``
  (or ``… CSL_BIBLIOGRAPHY``): the paragraphs it spans. Every other mark, bookmark or section
  (a cross-reference's ``_Ref…``) is no citation.

A flat ``.fodt`` is one XML file, ``office:document``, holding the same body and styles.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree as ET

from citejudge.documents._build import IDENTIFIER_TEXT, DocumentError
from citejudge.documents._docx import (
    DocParts,
    FieldSpan,
    document_from_parts,
    note_entries,
    zip_xml,
)
from citejudge.documents._fields import field_kind
from citejudge.documents._finder import SUPERSCRIPT_CITATION, Line, superscript_marker
from citejudge.documents._model import Document

__all__ = ["odt_parts", "read_odt"]

_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
_DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
_META = "{urn:oasis:names:tc:opendocument:xmlns:meta:1.0}"
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_BREF_PIECE = re.compile(r"^(ZOTERO_BREF_\S+)_(\d+)$")

_PARAGRAPHS = frozenset({f"{_TEXT}p", f"{_TEXT}h"})
#: What a reader does not see in the body: deleted text, comments, indexes' templates, forms.
_HIDDEN = frozenset(
    {
        f"{_TEXT}tracked-changes",
        f"{_OFFICE}annotation",
        f"{_OFFICE}annotation-end",
        f"{_TEXT}sequence-decls",
        f"{_TEXT}variable-decls",
        f"{_TEXT}user-field-decls",
        f"{_TEXT}table-of-content-source",
        f"{_TEXT}bibliography-source",
        f"{_TEXT}alphabetical-index-source",
        f"{_TEXT}illustration-index-source",
        f"{_TEXT}table-index-source",
        f"{_TEXT}object-index-source",
        f"{_TEXT}user-index-source",
        f"{_OFFICE}forms",
        f"{_TEXT}note-citation",
        "{urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0}title",
        "{urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0}desc",
    }
)
_MARK_STARTS = frozenset({f"{_TEXT}reference-mark-start", f"{_TEXT}bookmark-start"})
_MARK_ENDS = frozenset({f"{_TEXT}reference-mark-end", f"{_TEXT}bookmark-end"})
_MARK_POINTS = frozenset({f"{_TEXT}reference-mark", f"{_TEXT}bookmark"})


def _instruction(name: str, codes: dict[str, str] | None = None) -> str | None:
    """A mark's, bookmark's or section's name as a field instruction, if a manager wrote it.

    ``codes``: a bookmark's code kept in the document's properties (Zotero's bookmark mode).
    """
    code = (codes or {}).get(name, name)
    instr = code if code.lstrip().upper().startswith("ADDIN") else f"ADDIN {code}"
    return instr if field_kind(instr) is not None else None


def _bookmark_codes(roots: list[ET.Element]) -> dict[str, str]:
    """Zotero's bookmark mode: bookmark ``ZOTERO_BREF_…`` -> its field code.

    The code is kept in the document's user-defined properties (``meta.xml``), cut into
    pieces of 255 characters named ``ZOTERO_BREF_…_1``, ``_2``…
    """
    pieces: dict[str, dict[int, str]] = {}
    for root in roots:
        for prop in root.iter(f"{_META}user-defined"):
            m = _BREF_PIECE.match(prop.get(f"{_META}name", ""))
            if m:
                pieces.setdefault(m.group(1), {})[int(m.group(2))] = prop.text or ""
    return {name: "".join(p[k] for k in sorted(p)) for name, p in pieces.items()}


def _list_styles(roots: list[ET.Element]) -> dict[str, dict[int, tuple[str, int]]]:
    """List style name -> level -> (number format, or "bullet"; start value)."""
    out: dict[str, dict[int, tuple[str, int]]] = {}
    for root in roots:
        for ls in root.iter(f"{_TEXT}list-style"):
            levels: dict[int, tuple[str, int]] = {}
            for lvl in ls:
                level = lvl.get(f"{_TEXT}level", "1")
                n = int(level) if level.isdigit() else 1
                if lvl.tag == f"{_TEXT}list-level-style-number":
                    start = lvl.get(f"{_TEXT}start-value", "1")
                    fmt = lvl.get(f"{_STYLE}num-format", "1") or "bullet"  # "": no number shown
                    levels[n] = (fmt, int(start) if start.isdigit() else 1)
                else:  # a bullet or an image
                    levels[n] = ("bullet", 1)
            out.setdefault(ls.get(f"{_STYLE}name", ""), levels)
    return out


def _styles(roots: list[ET.Element]) -> tuple[set[str], dict[str, str]]:
    """The text styles that raise their text (superscript); paragraph style -> its list style."""
    raised: set[str] = set()
    lists: dict[str, str] = {}
    for root in roots:
        for st in root.iter(f"{_STYLE}style"):
            name = st.get(f"{_STYLE}name", "")
            props = st.find(f"{_STYLE}text-properties")
            position = props.get(f"{_STYLE}text-position", "") if props is not None else ""
            up = (position.split() or [""])[0].rstrip("%")  # "super 58%", "33% 58%"
            if up == "super" or (up.isdigit() and int(up) > 0):
                raised.add(name)
            if st.get(f"{_STYLE}list-style-name"):
                lists[name] = st.get(f"{_STYLE}list-style-name", "")
    return raised, lists


@dataclass
class _Marks:
    """A part's citation marks as its paragraphs are read (a mark may span paragraphs)."""

    closed: list[FieldSpan] = field(default_factory=list)
    open: dict[str, FieldSpan] = field(default_factory=dict)
    count: int = 0

    def span(self, instr: str, par: int, offset: int) -> FieldSpan:
        """A new mark, its text beginning at ``offset`` of paragraph ``par``."""
        self.count += 1
        return FieldSpan(self.count, par, [instr], result_at=(par, offset))

    def start(self, name: str, instr: str | None, par: int, offset: int) -> None:
        if instr is not None and name not in self.open:
            self.open[name] = self.span(instr, par, offset)

    def end(self, name: str, par: int, offset: int) -> None:
        f = self.open.pop(name, None)
        if f is not None:
            f.end_at = (par, offset)
            self.closed.append(f)

    def shown(self, par: int, raw: str) -> None:
        """The text each mark closed in paragraph ``par`` (raw text ``raw``) shows."""
        for f in self.closed:
            start, end = f.result_at, f.end_at
            if f.shown is None and start and end and start[0] == end[0] == par:
                f.shown = " ".join(raw[start[1] : end[1]].split())


@dataclass
class _Text:
    """A paragraph's text as it is read: superscript numbers become a marker when they end."""

    parts: list[str] = field(default_factory=list)
    sup: list[str] = field(default_factory=list)

    def add(self, s: str, raised: bool = False) -> None:
        if raised:
            self.sup.append(s)
        else:
            self.end_sup()
            self.parts.append(s)

    def end_sup(self) -> None:
        if self.sup:
            raw = "".join(self.sup)
            self.sup.clear()
            if SUPERSCRIPT_CITATION.fullmatch(raw.strip()) is None:
                self.parts.append(raw)
            else:
                self.parts.append(superscript_marker("".join(self.parts), raw))

    def at(self) -> int:
        self.end_sup()
        return sum(map(len, self.parts))

    def raw(self) -> str:
        self.end_sup()
        return "".join(self.parts)


@dataclass
class _Reader:
    """One OpenDocument body read in order into lines, notes, marks and sections."""

    list_styles: dict[str, dict[int, tuple[str, int]]]
    raised: set[str]
    par_lists: dict[str, str]
    codes: dict[str, str]
    note_labels: dict[int, str] = field(default_factory=dict)
    marks: dict[str, str] = field(default_factory=dict)
    lines: list[Line] = field(default_factory=list)
    body: _Marks = field(default_factory=_Marks)
    par: int = 0
    counters: dict[tuple[str, int], int] = field(default_factory=dict)
    mark_paragraph: dict[str, int] = field(default_factory=dict)

    def inline(
        self, el: ET.Element, text: _Text, marks: _Marks, par: int, frames: list[ET.Element],
        raised: bool = False,
    ) -> None:  # fmt: skip
        """The text of ``el``'s content (not its tail) into ``text``."""
        if el.text:
            text.add(el.text, raised)
        for child in el:
            tag = child.tag
            if tag in _HIDDEN:
                pass
            elif tag == f"{_TEXT}s":
                c = child.get(f"{_TEXT}c", "1")
                text.add(" " * (int(c) if c.isdigit() else 1))
            elif tag in (f"{_TEXT}tab", f"{_TEXT}line-break"):
                text.add(" ")
            elif tag == f"{_TEXT}note":
                label = self.note_labels.get(id(child))
                if label is not None:
                    self.mark_paragraph.setdefault(label, par)
                    text.add(self.marks.get(label, ""))
            elif tag in _MARK_STARTS:
                name = child.get(f"{_TEXT}name", "")
                marks.start(name, _instruction(name, self.codes), par, text.at())
            elif tag in _MARK_ENDS:
                marks.end(child.get(f"{_TEXT}name", ""), par, text.at())
            elif tag in _MARK_POINTS:
                name = child.get(f"{_TEXT}name", "")
                marks.start(name, _instruction(name, self.codes), par, text.at())
                marks.end(name, par, text.at())
            elif tag == f"{_DRAW}frame":
                frames.append(child)  # its paragraphs follow this one
            elif tag == f"{_TEXT}a":
                self.link(child, text, marks, par, frames, raised)
            else:  # text:span, text:meta, fields (page numbers, LibreOffice's own citations)…
                style = child.get(f"{_TEXT}style-name", "")
                self.inline(child, text, marks, par, frames, raised or style in self.raised)
            if child.tail:
                text.add(child.tail, raised)

    def link(
        self, a: ET.Element, text: _Text, marks: _Marks, par: int, frames: list[ET.Element],
        raised: bool,
    ) -> None:  # fmt: skip
        """A hyperlink: to a web address with a text that is no identifier, "[text](address)"."""
        target = a.get(_XLINK_HREF, "")
        anchor = "".join(a.itertext()).strip()
        web = target.lower().startswith(("http://", "https://"))
        if web and anchor and not IDENTIFIER_TEXT.match(anchor):
            text.add("[")
            self.inline(a, text, marks, par, frames, raised)
            text.add(f"]({target})")
        else:
            self.inline(a, text, marks, par, frames, raised)

    def paragraph_text(
        self, p: ET.Element, marks: _Marks, par: int
    ) -> tuple[str, list[ET.Element]]:
        """A paragraph's visible text, whitespace collapsed, and the frames it anchors."""
        text = _Text()
        frames: list[ET.Element] = []
        self.inline(p, text, marks, par, frames)
        raw = text.raw()
        marks.shown(par, raw)
        return " ".join(raw.split()), frames

    def paragraph(self, p: ET.Element, label: str = "") -> None:
        self.par += 1
        n = self.par
        text, frames = self.paragraph_text(p, self.body, n)
        if text:
            self.lines.append(Line(label + text, None, n))
            self.lines.append(Line("", None, n))
        for fr in frames:
            self.blocks(fr)

    def blocks(self, el: ET.Element) -> None:
        """The paragraphs under ``el`` in order (lists numbered, sections' extents recorded)."""
        for child in el:
            tag = child.tag
            if tag in _HIDDEN:
                continue
            if tag in _PARAGRAPHS:
                self.paragraph(child)
            elif tag == f"{_TEXT}list":
                self.items(child, 0, "")
            elif tag == f"{_TEXT}section":
                instr = _instruction(child.get(f"{_TEXT}name", ""))
                span = self.body.span(instr, self.par + 1, 0) if instr is not None else None
                self.blocks(child)
                if span is not None and self.par >= span.begin:
                    span.end_at = (self.par, 0)  # a bibliography: the paragraphs it spans
                    self.body.closed.append(span)
            else:  # tables, rows, cells, index bodies, frames' text boxes…
                self.blocks(child)

    def items(self, el: ET.Element, depth: int, style: str) -> None:
        """A list: each item's first paragraph carries its number (or a bullet)."""
        style = el.get(f"{_TEXT}style-name") or style
        if not style:
            first = next(el.iter(f"{_TEXT}p"), None)
            style = self.par_lists.get(
                first.get(f"{_TEXT}style-name", "") if first is not None else "", ""
            )
        level = depth + 1
        key = (style, level)
        fmt, start = self.list_styles.get(style, {}).get(level, ("bullet", 1))
        if el.get(f"{_TEXT}continue-numbering") != "true" and not el.get(f"{_TEXT}continue-list"):
            self.counters.pop(key, None)
        for item in el:
            if item.tag not in (f"{_TEXT}list-item", f"{_TEXT}list-header"):
                continue
            numbered = item.tag == f"{_TEXT}list-item" and any(c.tag in _PARAGRAPHS for c in item)
            if numbered:
                restart = item.get(f"{_TEXT}start-value", "")
                if restart.isdigit():
                    self.counters[key] = int(restart) - 1
                self.counters[key] = self.counters.get(key, start - 1) + 1
                for deeper in [k for k in self.counters if k[0] == style and k[1] > level]:
                    del self.counters[deeper]  # a new item restarts its sublists
            label = ("- " if fmt == "bullet" else f"{self.counters[key]}. ") if numbered else ""
            for child in item:
                if child.tag in _PARAGRAPHS:
                    self.paragraph(child, label)
                    label = ""
                elif child.tag == f"{_TEXT}list":
                    self.items(child, level, style)
                elif child.tag not in _HIDDEN:
                    self.blocks(child)

    def notes(self, text_root: ET.Element) -> list[tuple[str, str, list[FieldSpan]]]:
        """(label, text, citation marks) of each note in body order; labels ``fn3``, ``en1``."""
        out: list[tuple[str, str, list[FieldSpan]]] = []
        counts = {"fn": 0, "en": 0}
        for note in _visible(text_root, f"{_TEXT}note"):
            kind = "en" if note.get(f"{_TEXT}note-class") == "endnote" else "fn"
            counts[kind] += 1
            label = f"{kind}{counts[kind]}"
            self.note_labels[id(note)] = label
            marks = _Marks()
            body = note.find(f"{_TEXT}note-body")
            pars = [p for p in (body.iter() if body is not None else ()) if p.tag in _PARAGRAPHS]
            text = " ".join(
                self.paragraph_text(p, marks, n)[0] for n, p in enumerate(pars, start=1)
            ).strip()
            if text:
                out.append((label, text, marks.closed))
        return out


def _visible(el: ET.Element, tag: str) -> list[ET.Element]:
    """The elements ``tag`` under ``el`` in document order, none inside hidden content."""
    out: list[ET.Element] = []
    for child in el:
        if child.tag == tag:
            out.append(child)
        elif child.tag not in _HIDDEN:
            out.extend(_visible(child, tag))
    return out


def _roots(path: Path) -> tuple[ET.Element, list[ET.Element]]:
    """The content's root and the roots holding styles and properties.

    content.xml's, styles.xml's and meta.xml's; a flat document's one root.
    """
    if path.suffix.lower() == ".fodt":
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as exc:
            raise DocumentError(f"{path}: not well-formed XML ({exc})") from exc
        except OSError as exc:
            raise DocumentError(f"{path}: cannot be read ({exc})") from exc
        return root, [root]
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise DocumentError(
            f"{path}: not an OpenDocument .odt file (not a zip package: {exc})",
            hint="a .doc or .rtf must be saved as .odt or .docx; a flat XML document is .fodt",
        ) from exc
    with z:
        manifest = (
            z.read("META-INF/manifest.xml") if "META-INF/manifest.xml" in z.namelist() else b""
        )
        try:
            content = zip_xml(z, "content.xml")
        except DocumentError:
            if b"encryption-data" in manifest:
                raise DocumentError(
                    f"{path}: the document is encrypted (saved with a password)",
                    hint="save it without a password",
                ) from None
            raise
        if content is None:
            raise DocumentError(f"{path}: no content.xml in the package")
        others = [zip_xml(z, "styles.xml"), zip_xml(z, "meta.xml")]
    return content, [content] + [r for r in others if r is not None]


def odt_parts(path: Path) -> DocParts:
    """The body's lines and citation marks, the notes that are references and their marks.

    Raises :class:`DocumentError` for a file that is no OpenDocument text (not a zip, no
    ``content.xml``, XML that is not well-formed, a spreadsheet or a presentation).
    """
    content, style_roots = _roots(path)
    body = content.find(f"{_OFFICE}body/{_OFFICE}text")
    if body is None:
        other = content.find(f"{_OFFICE}body")
        kind = other[0].tag.rsplit("}", 1)[-1] if other is not None and len(other) else "no body"
        raise DocumentError(
            f"{path}: not an OpenDocument text (its body is {kind})",
            hint="documents are text: .odt, .docx, .pdf…",
        )
    raised, par_lists = _styles(style_roots)
    reader = _Reader(_list_styles(style_roots), raised, par_lists, _bookmark_codes(style_roots))
    try:
        entries, reader.marks, cite_notes = note_entries(reader.notes(body))
        reader.blocks(body)
    except RecursionError:  # (spans, lists or sections nested a thousand deep: a damaged file)
        raise DocumentError(
            f"{path}: its text is nested too deeply to read",
            hint="open it in LibreOffice and save it again",
        ) from None
    return DocParts(
        reader.lines,
        entries,
        reader.marks,
        sorted(reader.body.closed, key=lambda f: f.order),
        cite_notes,
        reader.mark_paragraph,
    )


def read_odt(path: Path) -> Document:
    """Read an OpenDocument text: its references and the sentences citing them.

    As the Word reader does (:func:`~citejudge.documents._docx.read_docx`): a citation manager's
    marks give their works with their data, its bibliography section no second copy of them.
    """
    return document_from_parts(path, "odt", odt_parts(path))
