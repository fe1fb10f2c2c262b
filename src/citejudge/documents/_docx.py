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

import zipfile
from pathlib import Path
from xml.etree import ElementTree as ET

from citejudge.documents._build import IDENTIFIER_TEXT, DocumentError, Entry
from citejudge.documents._finder import (
    SUPERSCRIPT_CITATION,
    Line,
    reads_as_reference,
    superscript_marker,
)
from citejudge.documents._markers import IBID
from citejudge.documents._model import Document

__all__ = ["docx_parts", "read_docx"]

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_PR = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_BULLET_FORMATS = frozenset({"bullet", "none"})


def _xml(z: zipfile.ZipFile, name: str) -> ET.Element | None:
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


def _text(
    p: ET.Element, marks: dict[str, str] | None = None, links: dict[str, str] | None = None
) -> str:
    """A paragraph's visible text; a note's reference becomes ``marks[kind+id]`` (or nothing).

    Superscript runs of numbers (Vancouver citations typed in Word, "problem¹˒²") become a
    numeric marker, "[1,2]"; after a digit or a unit an exponent, "10^5", "km^2". A hyperlink to
    a web address (``links``: relationship id -> address) is kept the Markdown way,
    "[text](https://…)", as the HTML reader keeps one.
    """
    parts: list[str] = []
    sup: list[str] = []
    in_link: dict[int, str] = {}  # id() of each run inside an external hyperlink -> its address
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

    for r in p.iter(f"{_W}r"):
        align = r.find(f"{_W}rPr/{_W}vertAlign")
        raised = align is not None and align.get(f"{_W}val") == "superscript"
        if not raised:
            end_sup()
        edge = in_link.get(id(r), "")
        if edge.startswith("["):
            parts.append("[")
        for el in r:
            tag = el.tag
            if tag == f"{_W}t":
                (sup if raised else parts).append(el.text or "")
            elif tag in (f"{_W}tab", f"{_W}br", f"{_W}cr"):
                parts.append(" ")
            elif tag in (f"{_W}footnoteReference", f"{_W}endnoteReference") and marks is not None:
                end_sup()
                kind = "fn" if tag == f"{_W}footnoteReference" else "en"
                parts.append(marks.get(f"{kind}{el.get(f'{_W}id', '')}", ""))
        if "](" in edge:
            parts.append(edge[edge.index("]") :])
    end_sup()
    return " ".join("".join(parts).split())


def _relationships(root: ET.Element | None) -> dict[str, str]:
    """Relationship id -> target of the external relationships (hyperlinks) of a part."""
    if root is None:
        return {}
    return {
        r.get("Id", ""): r.get("Target", "")
        for r in root.iter(f"{_PR}Relationship")
        if r.get("TargetMode") == "External"
    }


def _notes(root: ET.Element | None, tag: str, kind: str) -> list[tuple[str, str]]:
    """(label, text) of each real note (separators left out), in document order."""
    if root is None:
        return []
    out: list[tuple[str, str]] = []
    for note in root.iter(f"{_W}{tag}"):
        if note.get(f"{_W}type") in ("separator", "continuationSeparator", "continuationNotice"):
            continue
        text = " ".join(_text(p) for p in note.iter(f"{_W}p")).strip()
        if text:
            out.append((f"{kind}{note.get(f'{_W}id', '')}", text))
    return out


def docx_parts(path: Path) -> tuple[list[Line], list[Entry], dict[str, str]]:
    """The body's lines, the notes that are references (entries) and each note's body mark.

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
        body = _xml(z, "word/document.xml")
        if body is None:
            raise DocumentError(f"{path}: no word/document.xml in the package")
        numbering = _numbering(_xml(z, "word/numbering.xml"))
        links = _relationships(_xml(z, "word/_rels/document.xml.rels"))
        notes = _notes(_xml(z, "word/footnotes.xml"), "footnote", "fn") + _notes(
            _xml(z, "word/endnotes.xml"), "endnote", "en"
        )
    entries: list[Entry] = []
    marks: dict[str, str] = {}
    for label, text in notes:
        if IBID.match(text) or reads_as_reference(text):
            # "Ibid., 1740." too: the document's assembly points it to the note before it
            entries.append(Entry(text, label, label))
            marks[label] = f"[^{label}]"
    lines: list[Line] = []
    counters: dict[tuple[str, str], int] = {}
    for n, p in enumerate(body.iter(f"{_W}p"), start=1):
        text = _text(p, marks, links)
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
    return lines, entries, marks


def read_docx(path: Path) -> Document:
    """Read a Word document: its reference list or reference notes, and the sentences citing them."""
    from citejudge.documents._plain import document_from_lines

    lines, entries, _ = docx_parts(path)
    # the lines carry hyperlinks the Markdown way: read them as Markdown
    return document_from_lines(
        str(path), "docx", lines, extra_entries=entries, find_with_extra=True, markdown=True
    )
