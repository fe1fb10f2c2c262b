"""JATS XML (PubMed Central, publishers): ``<ref-list>`` and ``<xref ref-type="bibr">``.

Each ``<ref>`` is an entry (its ``id`` the key, its ``<label>`` the label). A
``<mixed-citation>`` is read as its text (it carries its own punctuation); an
``<element-citation>`` is written out as "Surname Given, …. (Year). Title. Source,
Volume(Issue), First–Last. doi:…", the fields it tags. The body's paragraphs (``<p>`` under
``<body>``) are the running text; an ``<xref ref-type="bibr" rid="…">`` is a marker of kind
``key`` naming its ``rid`` ids, and two numeric xrefs joined by a dash cover the range between.
Parsed with the standard library's expat, which refuses external entities and guards against
entity expansion.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from citejudge.documents._build import DocumentError, Entry, Paragraph, assemble
from citejudge.documents._markers import RawMarker
from citejudge.documents._model import Document

__all__ = ["read_jats"]

_TOKEN = re.compile(r"⟦(\d+)⟧")
_RANGE = re.compile(r"⟦(\d+)⟧\s*[–—-]\s*⟦(\d+)⟧")


def _local(tag: object) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _text(el: ET.Element) -> str:
    return " ".join("".join(el.itertext()).split())


def _element_citation(c: ET.Element) -> str:
    names = []
    for n in c.iter():
        if _local(n.tag) == "name":
            sur = next((_text(x) for x in n if _local(x.tag) == "surname"), "")
            giv = next((_text(x) for x in n if _local(x.tag) == "given-names"), "")
            names.append(f"{sur} {giv}".strip())
        elif _local(n.tag) == "etal":
            names.append("et al.")
    fields = {_local(x.tag): _text(x) for x in c}
    ids = {x.get("pub-id-type"): _text(x) for x in c if _local(x.tag) == "pub-id"}
    parts = []
    if names:
        parts.append(", ".join(names) + ".")
    if fields.get("year"):
        parts.append(f"({fields['year']}).")
    for k in ("article-title", "chapter-title", "data-title"):
        if fields.get(k):
            parts.append(fields[k].rstrip(".") + ".")
    src = fields.get("source", "")
    vol = fields.get("volume", "")
    iss = f"({fields['issue']})" if fields.get("issue") else ""
    pages = fields.get("fpage", "") + (f"–{fields['lpage']}" if fields.get("lpage") else "")
    tail = ", ".join(x for x in (src, vol + iss, pages) if x)
    if tail:
        parts.append(tail + ".")
    if ids.get("doi"):
        parts.append(f"doi:{ids['doi']}")
    if ids.get("pmid"):
        parts.append(f"PMID: {ids['pmid']}")
    return " ".join(parts)


def read_jats(path: Path) -> Document:
    """A JATS article."""
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise DocumentError(f"{path}: not well-formed XML ({exc})") from exc
    except OSError as exc:
        raise DocumentError(f"{path}: cannot be read: {exc}") from exc
    entries: list[Entry] = []
    for ref in root.iter():
        if _local(ref.tag) != "ref":
            continue
        label_el = next((x for x in ref if _local(x.tag) == "label"), None)
        cit = next(
            (
                x
                for x in ref.iter()
                if _local(x.tag) in ("mixed-citation", "element-citation", "citation")
            ),
            None,
        )
        if cit is None:
            continue
        text = _element_citation(cit) if _local(cit.tag) == "element-citation" else _text(cit)
        label = _text(label_el).strip("[]. ") if label_el is not None else None
        if text:
            entries.append(Entry(text, label or None, ref.get("id")))
    body = next((x for x in root.iter() if _local(x.tag) == "body"), None)
    xrefs: list[tuple[str, list[str]]] = []
    paragraphs: list[Paragraph] = []

    def flatten(el: ET.Element) -> str:
        out = [el.text or ""]
        for child in el:
            name = _local(child.tag)
            if name == "xref" and child.get("ref-type") == "bibr":
                xrefs.append((_text(child), (child.get("rid") or "").split()))
                out.append(f"⟦{len(xrefs) - 1}⟧")
            elif name in ("p", "table-wrap", "fig", "disp-formula", "list"):
                pass  # nested blocks are paragraphs of their own
            else:
                out.append(flatten(child))
            out.append(child.tail or "")
        return "".join(out)

    if body is not None:
        for p in body.iter():
            if _local(p.tag) == "p":
                s = " ".join(flatten(p).split())
                if s:
                    paragraphs.append(Paragraph(s))
    by_label = {e.label: e.key for e in entries if e.label}

    def markers(sentence: str) -> list[RawMarker]:
        out: list[RawMarker] = []
        ranges = {int(m.group(1)): m for m in _RANGE.finditer(sentence)}
        skip: set[int] = set()
        for m in _TOKEN.finditer(sentence):
            n = int(m.group(1))
            if n in skip:
                continue
            label, rids = xrefs[n]
            if n in ranges:
                r = ranges[n]
                end_label, end_rids = xrefs[int(r.group(2))]
                skip.add(int(r.group(2)))
                if (
                    label.isdigit()
                    and end_label.isdigit()
                    and 0 <= int(end_label) - int(label) <= 100
                ):
                    rids = [
                        by_label.get(str(k)) or f"#{k}"
                        for k in range(int(label), int(end_label) + 1)
                    ]
                else:
                    rids = rids + end_rids
                out.append(
                    RawMarker(r.start(), r.end(), f"{label}–{end_label}", "key", tuple(rids))
                )
                continue
            out.append(RawMarker(m.start(), m.end(), label or ",".join(rids), "key", tuple(rids)))
        return out

    doc = assemble(str(path), "jats", entries, paragraphs, markers=markers)
    fixed = [
        s.model_copy(update={"text": _TOKEN.sub(lambda mm: xrefs[int(mm.group(1))][0], s.text)})
        for s in doc.sentences
    ]
    return doc.model_copy(update={"sentences": fixed})
