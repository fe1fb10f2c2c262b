"""Citation managers' fields in a Word document: the works a citation carries, as CSL-JSON.

Zotero, Mendeley and EndNote write each citation as a Word field (``w:fldChar`` begin …
``w:instrText`` … separate … the rendered citation … end). The instruction carries the cited
works' data:

- Zotero: ``ADDIN ZOTERO_ITEM CSL_CITATION {json}``; Mendeley (Cite-O-Matic, Mendeley
  Desktop): ``ADDIN CSL_CITATION {json}``. The JSON's ``citationItems[]`` each hold
  ``itemData``, a CSL-JSON item, and ``uris`` (the item in the library).
- EndNote: ``ADDIN EN.CITE <EndNote><Cite>…<record>…</record></Cite>…</EndNote>`` (the XML
  sometimes HTML-escaped once more), or the same XML base64-encoded in the ``w:fldData`` of a
  nested ``ADDIN EN.CITE.DATA`` field. A ``record`` is mapped to CSL-JSON variables.

The rendered bibliography is a field too (``ADDIN ZOTERO_BIBL … CSL_BIBLIOGRAPHY``,
``ADDIN Mendeley Bibliography CSL_BIBLIOGRAPHY``, ``ADDIN EN.REFLIST``): its paragraphs are
the entries of the works the citation fields carry (:func:`renders`). Every other field (PAGE,
HYPERLINK, TOC, REF…) is no citation.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import html
import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal
from xml.etree import ElementTree as ET

from citejudge import ids
from citejudge.readers.csl import csl_fields
from citejudge.text.normalize import fold

__all__ = [
    "FieldKind",
    "FieldWork",
    "field_kind",
    "field_works",
    "render_csl",
    "renders",
]

#: What a field is to a citation reader.
FieldKind = Literal["csl", "endnote", "bibliography", "endnote-data"]

_ADDIN = re.compile(r"^\s*ADDIN\s+(\S+)", re.I)


def field_kind(instruction: str) -> FieldKind | None:
    """The kind of a field from its instruction; None for a field that is no citation manager's."""
    m = _ADDIN.match(instruction)
    if m is None:
        return None
    word = m.group(1).upper()
    if word == "ZOTERO_ITEM" or word == "CSL_CITATION":
        return "csl"
    if word == "ZOTERO_BIBL" or word == "EN.REFLIST" or "CSL_BIBLIOGRAPHY" in instruction.upper():
        return "bibliography"
    if word == "EN.CITE.DATA":
        return "endnote-data"
    if word == "EN.CITE":
        return "endnote"
    return None


@dataclass
class FieldWork:
    """One work a citation field carries: its CSL-JSON item and the key that names it."""

    key: str
    csl: dict[str, Any]
    manager: str
    warnings: list[str] = field(default_factory=list)


def field_works(
    instruction: str, kind: FieldKind, data: str = ""
) -> tuple[list[FieldWork], list[str]]:
    """The works of a citation field and what went wrong reading them (one message each).

    ``data``: what the field's ``w:fldData`` (or a nested ``EN.CITE.DATA`` field's) holds,
    base64 as Word writes it.
    """
    if kind == "csl":
        return _csl_works(instruction)
    if kind == "endnote":
        return _endnote_works(instruction, data)
    return [], []


def _csl_works(instruction: str) -> tuple[list[FieldWork], list[str]]:
    manager = "Zotero" if "ZOTERO" in instruction[:40].upper() else "Mendeley"
    at = instruction.find("{")
    if at < 0:
        return [], [f"{manager} citation field without its JSON data"]
    try:
        data, _ = json.JSONDecoder().raw_decode(instruction[at:])
    except json.JSONDecodeError as exc:
        return [], [f"{manager} citation field: its JSON data is not valid ({exc.msg} at "
                    f"character {exc.pos})"]  # fmt: skip
    except RecursionError:  # (a JSON nested deeper than Python's stack: no citation's data)
        return [], [f"{manager} citation field: its JSON data is nested too deeply to read"]
    items = data.get("citationItems") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return [], [f"{manager} citation field: its JSON data has no citationItems list"]
    works: list[FieldWork] = []
    problems: list[str] = []
    for i, it in enumerate(items, start=1):
        item = it.get("itemData") if isinstance(it, dict) else None
        if not isinstance(item, dict) or not item:
            problems.append(f"{manager} citation field: item {i} carries no itemData")
            continue
        uris = it.get("uris") or it.get("uri")
        uri = uris[0] if isinstance(uris, list) and uris and isinstance(uris[0], str) else None
        works.append(FieldWork(_key(item, uri), item, manager))
    return works, problems


def _key(item: dict[str, Any], uri: str | None) -> str:
    """What names one work across the document's fields: its library URI, else DOI, else its data.

    Without a URI or a DOI the work is its title, year, first author and container together
    (two "Editorial" items of 2001 in Nature and Science are two works), and an item with
    none of those its whole data (Mendeley numbers every field's items "ITEM-1").
    """
    if uri:
        return uri
    e = csl_fields(item)
    if e.dois:
        return f"doi:{e.dois[0]}"
    first = fold(e.authors[0].name) if e.authors else ""
    container = fold(e.venues[0]) if e.venues else ""
    if e.title:
        return f"title:{fold(e.title)}|{e.year or ''}|{first}|{container}"
    # (without its "id": Mendeley numbers each field's items anew, "ITEM-1", "ITEM-2")
    whole = json.dumps(
        {k: v for k, v in item.items() if k != "id"},
        sort_keys=True,
        ensure_ascii=False,
        default=str,
    )
    return "item:" + hashlib.sha1(whole.encode("utf-8")).hexdigest()[:16]


# EndNote record -> CSL-JSON
_EN_TYPES = {
    "journal article": "article-journal",
    "electronic article": "article-journal",
    "magazine article": "article-magazine",
    "newspaper article": "article-newspaper",
    "book": "book",
    "edited book": "book",
    "electronic book": "book",
    "book section": "chapter",
    "electronic book section": "chapter",
    "conference proceedings": "paper-conference",
    "conference paper": "paper-conference",
    "thesis": "thesis",
    "report": "report",
    "government document": "report",
    "web page": "webpage",
    "dataset": "dataset",
    "patent": "patent",
}
_ENDNOTE_XML = re.compile(r"<EndNote\b.*</EndNote>", re.S | re.I)


def _el_text(el: ET.Element | None) -> str | None:
    """An EndNote element's text; the ``<style>`` runs inside it joined."""
    if el is None:
        return None
    s = " ".join("".join(el.itertext()).split())
    return s or None


def _endnote_xml(instruction: str, data: str) -> str | None:
    rest = instruction.split("EN.CITE", 1)[-1]
    if "&lt;" in rest and "<EndNote" not in rest:
        rest = html.unescape(rest)
    m = _ENDNOTE_XML.search(rest)
    if m:
        return m.group(0)
    if data.strip():
        try:
            decoded = base64.b64decode("".join(data.split()), validate=False)
        except (binascii.Error, ValueError):
            return None
        text = decoded.decode("utf-8", errors="replace")
        m = _ENDNOTE_XML.search(text)
        return m.group(0) if m else None
    return None


def _endnote_works(instruction: str, data: str) -> tuple[list[FieldWork], list[str]]:
    xml = _endnote_xml(instruction, data)
    if xml is None:
        return [], ["EndNote citation field without its <EndNote> record data"]
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        return [], [f"EndNote citation field: its XML is not well-formed ({exc})"]
    works: list[FieldWork] = []
    problems: list[str] = []
    for i, cite in enumerate(root.iter("Cite"), start=1):
        rec = cite.find("record")
        if rec is None:
            shown = " ".join(
                x for x in (_el_text(cite.find("Author")), _el_text(cite.find("Year"))) if x
            )
            problems.append(
                f"EndNote citation field: cite {i} ({shown or 'no author'}) carries no record"
            )
            continue
        item = endnote_record_csl(rec)
        num = _el_text(cite.find("RecNum")) or _el_text(rec.find("rec-number"))
        db = rec.find("foreign-keys/key")
        db_id = db.get("db-id") if db is not None else None
        if num:
            key = f"endnote:{db_id + ':' if db_id else ''}{num}"
            item["id"] = key
        else:
            key = _key(item, None)
        works.append(FieldWork(key, item, "EndNote"))
    if not works and not problems:
        problems.append("EndNote citation field holds no <Cite>")
    return works, problems


def _name(written: str) -> dict[str, str]:
    """An EndNote author ("Hochreiter, Sepp") as a CSL name."""
    if "," in written:
        family, given = written.split(",", 1)
        out = {"family": family.strip()}
        if given.strip():
            out["given"] = given.strip()
        return out
    return {"literal": written.strip()}


def endnote_record_csl(rec: ET.Element) -> dict[str, Any]:
    """An EndNote ``<record>`` as a CSL-JSON item (title, authors, year, container, DOI, …)."""
    item: dict[str, Any] = {}
    rtype = rec.find("ref-type")
    if rtype is not None:
        csl_type = _EN_TYPES.get((rtype.get("name") or "").strip().lower())
        if csl_type:
            item["type"] = csl_type
    title = _el_text(rec.find("titles/title"))
    if title:
        item["title"] = title
    authors = [_name(t) for a in rec.findall("contributors/authors/author") if (t := _el_text(a))]
    if authors:
        item["author"] = authors
    editors = [
        _name(t) for a in rec.findall("contributors/secondary-authors/author") if (t := _el_text(a))
    ]
    if editors:
        item["editor"] = editors
    year = _el_text(rec.find("dates/year"))
    if year:
        y = re.search(r"\d{4}", year)
        item["issued"] = {"date-parts": [[int(y.group(0))]]} if y else {"literal": year}
    container = _el_text(rec.find("titles/secondary-title")) or _el_text(
        rec.find("periodical/full-title")
    )
    if container:
        item["container-title"] = container
    short = _el_text(rec.find("titles/alt-title")) or _el_text(rec.find("periodical/abbr-1"))
    if short and short != container:
        item["container-title-short"] = short
    for tag, var in (
        ("volume", "volume"),
        ("number", "issue"),
        ("pages", "page"),
        ("publisher", "publisher"),
        ("pub-location", "publisher-place"),
        ("isbn", "ISBN"),
        ("accession-num", "PMID"),
    ):
        v = _el_text(rec.find(tag))
        if v:
            item[var] = v
    if "PMID" in item and not ids.norm_pmid(item["PMID"]):
        del item["PMID"]  # an accession number of another database
    doi = _el_text(rec.find("electronic-resource-num"))
    if doi:
        d = ids.norm_doi(doi)
        item["DOI"] = d or doi
    url = _el_text(rec.find("urls/related-urls/url")) or _el_text(rec.find("urls/web-urls/url"))
    if url:
        item["URL"] = url
    return item


def render_csl(item: dict[str, Any]) -> str:
    """A readable one-line form of a CSL item: authors (year). Title. Container, volume, pages. DOI."""
    e = csl_fields(item)
    head = "; ".join(a.name for a in e.authors[:20]) + ("; et al." if e.et_al else "")
    parts = [
        f"{head} ({e.year_raw or e.year or 'n.d.'})." if head else f"({e.year_raw or 'n.d.'})."
    ]
    if e.title:
        parts.append(e.title.rstrip(".") + ".")
    where = ", ".join(x for x in (e.venues[0] if e.venues else None, e.volume, e.pages) if x)
    if where:
        parts.append(where + ".")
    if e.dois:
        parts.append(f"https://doi.org/{e.dois[0]}")
    elif e.urls:
        parts.append(e.urls[0])
    return " ".join(parts)


def renders(text: str, item: dict[str, Any]) -> bool:
    """Whether the bibliography paragraph ``text`` is the rendered entry of ``item``.

    Its DOI, its title (folded), or its first author's family name with its year.
    """
    e = csl_fields(item)
    if e.dois and any(d == e.dois[0] for d in ids.extract_dois(text)):
        return True
    folded = fold(text)
    if e.title and len(fold(e.title)) >= 8 and fold(e.title) in folded:
        return True
    if e.authors and e.year is not None:
        # the first author opens the entry (after a label "[3]", "3."): a typed entry of
        # another work by a co-author that year ("LeCun, Y. (2015b). A different paper …") is
        # no rendering of it unless it opens with the name and carries the year
        # (initials may come first, "[1] S. Hochreiter and …", as title-less physics styles
        # print it; Zotero's "1997a"/"1997b" are the year; the volume or first page, when
        # the work has one, must be there too: "LeCun, Y. (2015b). A different paper …" of
        # another journal is no rendering of "Deep learning", Nature 521)
        family = fold(e.authors[0].name.split(",")[0])
        head = _ENTRY_LABEL.sub("", folded, count=1)
        numbers = [
            n
            for n in (e.volume, re.split(r"[-–—‐]", e.pages or "")[0].strip())
            if n and n.isdigit()
        ]
        return (
            bool(family)
            and re.match(rf"(?:\w\s+){{0,3}}{re.escape(family)}\b", head) is not None
            and re.search(rf"\b{e.year}[a-z]?\b", text) is not None
            and (not numbers or any(re.search(rf"(?<!\d){n}(?!\d)", text) for n in numbers))
        )
    return False


#: a reference list's label before the entry: "[3] ", "3. ", "(3) "
_ENTRY_LABEL = re.compile(r"^\W*\d{0,3}\W*")
