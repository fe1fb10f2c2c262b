"""A BibTeX library's abbreviations and cross-references, for entries read one by one.

An entry cut out of its ``.bib`` and read alone (a ``.bib`` given as items, a LaTeX document's
cited entries) loses what the library around it gives: ``@string`` abbreviations and the fields
it inherits through ``crossref``. :func:`resolve_bibtex_blocks` writes such an entry again so
that it stands alone; text only, no parser of the project (any layer may use it).
"""

from __future__ import annotations

import re

from citejudge.text.normalize import MONTHS

__all__ = ["bibtex_strings", "resolve_bibtex_blocks"]

_HEAD = re.compile(r"@\s*([A-Za-z]+)\s*[{(]\s*([^,\s]*)\s*,?")

#: BibTeX's predefined month abbreviations.
_MONTHS = {m[:3]: m.capitalize() for m in MONTHS}
_STRING_HEAD = re.compile(r"@\s*string\s*[{(]", re.IGNORECASE)
_IDENT = re.compile(r"[A-Za-z_][\w:.+/'-]*")
_NUMBER = re.compile(r"\d+")
_FIELD = re.compile(r"\s*,?\s*([A-Za-z][\w\-:.]*)\s*=\s*")
#: Fields a child never takes from the entry it cross-references: identifiers and links of the
#: parent (a proceedings' DOI or ISBN is not the paper's) and DBLP's bookkeeping.
_NOT_INHERITED = frozenset(
    [
        "key",
        "ids",
        "crossref",
        "xref",
        "title",
        "subtitle",
        "titleaddon",
        "author",
        "doi",
        "url",
        "isbn",
        "issn",
        "eprint",
        "eprinttype",
        "archiveprefix",
        "pmid",
        "pmcid",
        "biburl",
        "bibsource",
        "timestamp",
        "abstract",
        "pages",
        "note",
        "file",
        "keywords",
    ]
)
#: A parent's title is the child's booktitle when the child is a part of it (biblatex's rule).
_PART_TYPES = frozenset({"inproceedings", "conference", "incollection", "inbook", "inreference"})


def _value(s: str, i: int, strings: dict[str, str]) -> tuple[str, int, bool]:
    """The value expression at ``s[i]`` (``{…}``, ``"…"``, a number, a macro, joined by ``#``).

    Returns the value, the index after it and whether it used a macro or ``#``.
    """
    parts: list[str] = []
    expanded = False
    n = len(s)
    while True:
        while i < n and s[i].isspace():
            i += 1
        if i >= n:
            break
        ch = s[i]
        if ch == "{":
            depth, j = 0, i
            while j < n:
                if s[j] == "{":
                    depth += 1
                elif s[j] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            parts.append(s[i + 1 : j])
            i = j + 1
        elif ch == '"':
            depth, j = 0, i + 1
            while j < n and not (s[j] == '"' and depth == 0):
                depth += (s[j] == "{") - (s[j] == "}")
                j += 1
            parts.append(s[i + 1 : j])
            i = j + 1
        else:
            m = (_NUMBER if ch.isdigit() else _IDENT).match(s, i)
            if m is None:
                break
            word = m.group(0)
            if ch.isdigit():
                parts.append(word)
            else:
                expanded = True
                parts.append(strings.get(word.lower(), _MONTHS.get(word.lower(), word)))
            i = m.end()
        while i < n and s[i].isspace():
            i += 1
        if i < n and s[i] == "#":
            expanded = True
            i += 1
            continue
        break
    return "".join(parts), i, expanded


def bibtex_strings(text: str, strings: dict[str, str] | None = None) -> dict[str, str]:
    """The ``@string`` abbreviations ``text`` defines (names lower-cased), added to ``strings``."""
    out = dict(strings or {})
    for m in _STRING_HEAD.finditer(text):
        j = m.end()
        while j < len(text) and text[j].isspace():
            j += 1
        name = _IDENT.match(text, j)
        if name is None:
            continue
        eq = text.find("=", name.end())
        if eq < 0 or text[name.end() : eq].strip():
            continue
        value, _, _ = _value(text, eq + 1, out)
        out[name.group(0).lower()] = value
    return out


def _fields(block: str, strings: dict[str, str]) -> tuple[str, str, list[tuple[str, str]], bool]:
    """(type, key, fields in order, whether a macro was expanded) of one entry block."""
    head = _HEAD.match(block.lstrip())
    if head is None:
        raise ValueError("no entry head")
    s = block.lstrip()
    i = head.end()
    out: list[tuple[str, str]] = []
    expanded = False
    while True:
        m = _FIELD.match(s, i)
        if m is None:
            break
        value, i, used = _value(s, m.end(), strings)
        expanded = expanded or used
        out.append((m.group(1).lower(), value))
    return head.group(1).lower(), head.group(2), out, expanded


def resolve_bibtex_blocks(blocks: list[str], strings: dict[str, str] | None = None) -> list[str]:
    """Entry blocks of one library, each made to stand alone.

    An entry read on its own loses what the library around it gives: its ``@string``
    abbreviations (``journal = pami`` and ``"IEEE " # cvpr``; BibTeX's month names) and the
    fields it inherits through ``crossref`` (or biblatex's ``xref``) from another entry (a
    DBLP paper's proceedings: booktitle, year, publisher; identifiers are never inherited). An
    entry that needs neither stays as written; one that does is written again with its values
    expanded and the inherited fields added. ``strings``: abbreviations defined elsewhere (an
    ``IEEEabrv.bib`` named beside the library).
    """
    strings = dict(strings or {})
    parsed: list[tuple[str, str, list[tuple[str, str]], bool] | None] = []
    for b in blocks:
        try:
            parsed.append(_fields(b, strings))
        except (ValueError, IndexError):
            parsed.append(None)
    by_key = {p[1].lower(): p for p in parsed if p is not None}
    out: list[str] = []
    for b, p in zip(blocks, parsed, strict=True):
        if p is None:
            out.append(b)
            continue
        kind, key, fields, expanded = p
        have = dict(fields)
        parent_key = have.get("crossref") or have.get("xref")
        parent = by_key.get(parent_key.strip().lower()) if parent_key else None
        inherited: list[tuple[str, str]] = []
        if parent is not None:
            for name, value in parent[2]:
                if name == "title" and kind in _PART_TYPES:
                    name = "booktitle"
                elif name in _NOT_INHERITED:
                    continue
                if name not in have and all(name != n for n, _ in inherited):
                    inherited.append((name, value))
        if not expanded and not inherited:
            out.append(b)
            continue
        body = ",\n".join(f"  {n} = {{{v}}}" for n, v in [*fields, *inherited])
        out.append(f"@{kind}{{{key},\n{body}\n}}")
    return out
