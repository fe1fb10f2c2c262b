"""A ``.bib`` file's entries as reference-list entries (their BibTeX text as found)."""

from __future__ import annotations

import re
from pathlib import Path

from citejudge.documents._build import DocumentError, Entry, assemble, group_end, read_text_file
from citejudge.documents._model import Document
from citejudge.text.normalize import delatex

__all__ = ["bbl_entries", "bbl_file_entries", "bib_file_entries", "bibitems", "read_bib_document"]

_BIBITEM = re.compile(r"\\bibitem\s*(?:\[((?:[^\[\]{}]|\{[^{}]*\})*)\])?\s*\{([^{}]*)\}")
_BLOCK_START = re.compile(r"(?m)^[ \t]*@[A-Za-z]+\s*[{(]")


def _entry(block: str, key: str, line: int) -> Entry:
    """The entry of one BibTeX block, with what the BibTeX reader reads in it."""
    from citejudge.readers.bibtex import parse_bibtex_entry

    cw = parse_bibtex_entry(block)
    return Entry(
        block, None, key, None, line, authors=list(cw.authors), year=cw.year, title=cw.title
    )


def bib_file_entries(*bibs: Path) -> list[Entry]:
    """Every entry of the ``.bib`` files, its text as found (``@type{key, …}``) and what it states.

    The files are one library: an entry that uses an ``@string`` abbreviation (defined in any of
    them: an ``IEEEabrv.bib`` beside the references) or inherits fields through ``crossref``
    is written again to stand alone (:func:`~citejudge.text.bibtex_library.resolve_bibtex_blocks`).
    """
    from citejudge.text.bibtex_library import bibtex_strings, resolve_bibtex_blocks

    found: list[tuple[str, str, int]] = []  # (block, key, line)
    strings: dict[str, str] = {}
    for bib in bibs:
        text = read_text_file(bib)
        strings = bibtex_strings(text, strings)
        starts = [m.start() for m in _BLOCK_START.finditer(text)]
        for k, s in enumerate(starts):
            block = text[s : starts[k + 1] if k + 1 < len(starts) else len(text)].strip()
            head = re.match(r"\s*@([A-Za-z]+)\s*[{(]\s*([^,\s]*)", block)
            if head is None or head.group(1).lower() in ("comment", "string", "preamble"):
                continue
            found.append((block, head.group(2), text.count("\n", 0, s) + 1))
    blocks = resolve_bibtex_blocks([b for b, _, _ in found], strings)
    return [_entry(b, key, line) for b, (_, key, line) in zip(blocks, found, strict=True)]


# biber's .bbl (biblatex): \entry{key}{type}{options} … \endentry, its fields already parsed:
# \name{author}{n}{}{{{hash=…}{family={LeCun}, given={Yann}, …}}…} (biber 1: positional
# {family}{familyi}{given}{giveni}{prefix}{prefixi}{suffix}{suffixi}), \list{publisher}{n}{{…}},
# \field{title}{…}, \verb{doi} \verb 10.… \endverb. Newer biber puts [default][en-us] options
# after the command name.
_OPTS = r"(?:\[[^\]]*\])*"
_BBL_ENTRY = re.compile(r"\\entry\{([^{}]*)\}\{([^{}]*)\}(.*?)\\endentry", re.S)
_BBL_COMMAND = re.compile(r"\\(name|list|field)" + _OPTS + r"\{([^{}]*)\}")
_BBL_VERB = re.compile(r"\\verb\{([^{}]*)\}\s*\\verb (.*?)\s*\\endverb", re.S)
_BBL_MACROS = (
    (re.compile(r"\\bibinitperiod\b\s*"), "."),
    (re.compile(r"\\bibinit(?:hyphen)?delim\b\s*"), " "),
    (re.compile(r"\\bibinithyphendelim\b\s*"), "-"),
    (re.compile(r"\\bibnamedelim[a-di]\b\s*"), " "),
    (re.compile(r"\\bibrangedash\b\s*"), "--"),
    (re.compile(r"\\bibdatedash\b\s*"), "/"),
)
#: biber's own fields (labels, hashes, sorting) are not the work's.
_BBL_FIELDS = frozenset(
    {
        "title",
        "subtitle",
        "titleaddon",
        "journal",
        "journalsubtitle",
        "booktitle",
        "booksubtitle",
        "maintitle",
        "eventtitle",
        "series",
        "volume",
        "number",
        "issue",
        "pages",
        "year",
        "month",
        "date",
        "edition",
        "publisher",
        "location",
        "address",
        "institution",
        "organization",
        "school",
        "howpublished",
        "note",
        "doi",
        "url",
        "eprint",
        "eprinttype",
        "eprintclass",
        "archiveprefix",
        "primaryclass",
        "isbn",
        "issn",
        "pmid",
        "pmcid",
        "editor",
        "author",
        "type",
        "chapter",
        "version",
    }
)


def _groups(s: str) -> list[str]:
    """The top-level ``{…}`` groups of ``s``, in order (one that never closes left out)."""
    out: list[str] = []
    i = s.find("{")
    while i >= 0:
        end = group_end(s, i)
        if end < 0:
            break
        out.append(s[i + 1 : end - 1])
        i = s.find("{", end)
    return out


def _braced(s: str, at: int) -> tuple[str, int]:
    """The group opening at ``s[at]`` (``{``) and the index after it (the rest, unclosed)."""
    end = group_end(s, at)
    return (s[at + 1 : end - 1], end) if end >= 0 else (s[at + 1 :], len(s))


def _bbl_text(s: str) -> str:
    for pattern, repl in _BBL_MACROS:
        s = pattern.sub(repl, s)
    return " ".join(s.replace("%", " ").split())


def _bbl_person(group: str) -> str:
    r"""One name of a ``\name`` list as BibTeX writes it: "von Last, Jr, First"."""
    parts = _groups(group)
    body = parts[-1] if parts else group
    kv = dict(re.findall(r"([a-z]+)=\{((?:[^{}]|\{[^{}]*\})*)\}", body))
    if "family" in kv:
        family, given = kv["family"], " ".join(x for x in (kv.get("given"), kv.get("middle")) if x)
        prefix, suffix = kv.get("prefix", ""), kv.get("suffix", "")
    else:  # biber 1: positional parts after the hash group
        pos = [*parts[1:], *[""] * 8] if len(parts) > 8 else [*parts, *[""] * 8]
        family, given, prefix, suffix = pos[0], pos[2], pos[4], pos[6]
    name = " ".join(x for x in (_bbl_text(prefix), _bbl_text(family)) if x)
    for extra in (suffix, given):
        if _bbl_text(extra):
            name += ", " + _bbl_text(extra)
    return name


def bbl_entries(text: str) -> list[Entry]:
    """The entries of a biblatex ``.bbl`` (biber's output), each as the BibTeX it stands for.

    Each entry's ``full_citation`` is a ``@type{key, …}`` block of the fields biber wrote
    (its own labels, hashes and sort keys left out; ``journaltitle`` written ``journal``), read
    by the BibTeX reader like an entry of a ``.bib``. An entry listed again (another sorting of
    the same section) is read once.
    """
    out: list[Entry] = []
    seen: set[str] = set()
    for m in _BBL_ENTRY.finditer(text):
        key, kind, body = m.group(1).strip(), m.group(2).strip(), m.group(3)
        if key in seen:
            continue
        seen.add(key)
        fields: dict[str, str] = {}
        for c in _BBL_COMMAND.finditer(body):
            what, name = c.group(1), c.group(2).lower()
            name = "journal" if name == "journaltitle" else name
            rest = body[c.end() :]
            if what == "field":
                value, _ = _braced(rest, rest.index("{")) if "{" in rest else ("", 0)
                fields.setdefault(name, _bbl_text(value))
                continue
            # \name{author}{3}{}{…} / \list{publisher}{1}{…}: the last group holds the items
            groups = re.match(r"\s*\{[^{}]*\}\s*(?:\{[^{}]*\}\s*)?", rest)
            if groups is None or groups.end() >= len(rest) or rest[groups.end()] != "{":
                continue
            items, _ = _braced(rest, groups.end())
            people = [_bbl_person(g) if what == "name" else _bbl_text(g) for g in _groups(items)]
            fields.setdefault(name, " and ".join(p for p in people if p))
        for v in _BBL_VERB.finditer(body):
            fields.setdefault(v.group(1).lower(), v.group(2).strip())
        kept = [(k, v) for k, v in fields.items() if k in _BBL_FIELDS and v]
        block = "@%s{%s,\n%s\n}" % (  # noqa: UP031 (the braces of BibTeX)
            kind or "misc",
            key,
            ",\n".join(f"  {k} = {{{v}}}" for k, v in kept),
        )
        out.append(_entry(block, key, text.count("\n", 0, m.start()) + 1))
    return out


def bibitems(text: str, source_line: int = 1) -> list[Entry]:
    r"""The ``\bibitem`` entries of ``text`` (a ``.bbl`` or a ``thebibliography``), LaTeX decoded."""
    body = re.sub(r"\\(?:begin|end)\{thebibliography\}(?:\{[^{}]*\})?", "", text)
    items = list(_BIBITEM.finditer(body))
    out: list[Entry] = []
    for k, m in enumerate(items):
        raw = body[m.end() : items[k + 1].start() if k + 1 < len(items) else len(body)]
        raw = re.sub(r"\\newblock\s*", " ", raw)
        plain = " ".join(delatex(raw).split())
        label = m.group(1)
        out.append(
            Entry(
                plain,
                " ".join(delatex(label).replace("~", " ").split()) if label else str(k + 1),
                m.group(2).strip(),
                None,
                source_line + body.count("\n", 0, m.start()),
            )
        )
    return out


def bbl_file_entries(bbl: Path) -> list[Entry]:
    r"""The entries of a ``.bbl``: BibTeX's ``\bibitem``s or biber's ``\entry``s (biblatex)."""
    text = read_text_file(bbl)
    return bbl_entries(text) if "\\entry{" in text else bibitems(text)


def read_bib_document(path: Path) -> Document:
    r"""A ``.bib`` file alone (or a ``.bbl``): a reference list with no text citing it.

    Every entry is checked; none is "uncited" (there is no text to cite it). A ``.bbl`` is
    what BibTeX (``\bibitem``) or biber (biblatex's ``\entry``) printed for a document.
    """
    if path.suffix.lower() == ".bbl":
        entries = bbl_file_entries(path)
        if not entries:
            raise DocumentError(
                f"{path}: no \\bibitem or \\entry found", hint="a .bbl BibTeX or biber wrote"
            )
        return assemble(str(path), "bibtex", entries, [])
    entries = bib_file_entries(path)
    if not entries:
        raise DocumentError(
            f"{path}: no BibTeX entry found", hint="entries start with @type{key, …}"
        )
    return assemble(str(path), "bibtex", entries, [])
